import { bench, describe } from "vitest";
import { checkWith } from "../../provider/validation/check";
import { templateFailures } from "../../provider/validation/templates";
import { sinkInputsSchema } from "../../provider/kinds/sink/kind";
import { getJsonnetEngine } from "../../jsonnet/engine";

// What a preview costs per resource: validating a full 100-column sink (schema and templates),
// and the template engine per call. Goal: a 100-column check well under 50 ms.

const columns = Array.from({ length: 100 }, (_, i) =>
  i % 2 === 0
    ? { type: "path", name: `p${i}`, path: `a.b${i}`, rawString: true }
    : { type: "template", name: `t${i}`, template: { content: `Body('user.id', 'x') + '-${i}' + Header('X-Id', '?')` } },
);
const inputs = { sourceId: "events", name: "Wide", tableId: "in.c-bench.wide", columns };
const engine = getJsonnetEngine();
const ctx = { ip: "10.0.0.1", body: JSON.stringify({ user: { id: "u-1" }, action: "a" }), headers: { "Content-Type": "application/json", "X-Id": "7" } };

describe("preview checks", () => {
  bench("Sink check of 100 columns (schema + 50 templates)", async () => {
    const { failures } = checkWith(sinkInputsSchema, inputs);
    failures.push(...(await templateFailures(columns)));
    if (failures.length) throw new Error(JSON.stringify(failures));
  });
});

describe("jsonnet engine", () => {
  bench("compile one template", () => {
    engine.compile("Body('user.id', 'x') + ':' + Body('action', '?')");
  });
  bench("evaluate one template against an event", () => {
    engine.evaluate("Body('user.id', 'x') + ':' + Header('X-Id')", ctx);
  });
});
