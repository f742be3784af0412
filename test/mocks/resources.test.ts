import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as pulumi from "@pulumi/pulumi";
import * as keboola from "../../provider/index";
import { providerFor } from "../../provider/dynamic/shim";
import { source as sourceDefinition } from "../../provider/kinds/source/kind";
import { componentConfig as componentConfigDefinition } from "../../provider/kinds/component-config/kind";
import { referenceOf } from "../../provider/program/reference";

// Resource wiring under Pulumi's mocks: types, inputs passed through, outputs as properties, and
// the serialized provider kept tiny and free of secrets.

const SECRET_TOKEN = "mock-token-that-must-never-be-serialized";
const created: pulumi.runtime.MockResourceArgs[] = [];

// Files share a worker's environment (vitest.config.mts, isolate: false): the token is put back after.
const savedToken = process.env.KBC_TOKEN;
afterAll(() => {
  if (savedToken === undefined) delete process.env.KBC_TOKEN;
  else process.env.KBC_TOKEN = savedToken;
});

beforeAll(async () => {
  process.env.KBC_TOKEN = SECRET_TOKEN;
  await pulumi.runtime.setMocks(
    {
      newResource(args) {
        created.push(args);
        const outs: Record<string, unknown> = { ...args.inputs };
        if (args.type === "pulumi-nodejs:dynamic/keboola:Source") {
          Object.assign(outs, { sourceId: "quick-events", branchId: "default", projectId: 4242, url: "https://stream-in.example/stream/4242/quick-events/s3cr3t" });
        }
        if (args.type === "pulumi-nodejs:dynamic/keboola:Sink") Object.assign(outs, { sinkId: args.inputs.sinkId ?? "raw", branchId: "default" });
        return { id: `${args.name}-id`, state: outs };
      },
      call: () => ({}),
    },
    "project",
    "stack",
    false,
  );
});

function outputValue<T>(o: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => o.apply((v) => resolve(v)));
}

describe("resources under mocks", () => {
  it("wires a sink to its source and passes inputs through", async () => {
    const source = new keboola.Source("events", { name: "Quick Events" });
    const sink = new keboola.Sink("raw", {
      sourceId: source.sourceId,
      name: "Raw",
      tableId: "in.c-quick.raw",
      columns: [{ type: "uuid", name: "id" }, { type: "body", name: "body" }],
    });
    expect(await outputValue(sink.sourceId)).toBe("quick-events");
    expect(await outputValue(source.url)).toContain("/stream/4242/quick-events/");
    expect(await outputValue(sink.columns)).toEqual([{ type: "uuid", name: "id" }, { type: "body", name: "body" }]);

    const sinkArgs = created.find((c) => c.name === "raw")!;
    expect(sinkArgs.type).toBe("pulumi-nodejs:dynamic/keboola:Sink");
    // Its provider reference names the kind and the resource by its URN (its owner marker too):
    // no identity of its own among the inputs.
    expect(referenceOf(sinkArgs.inputs.__provider)).toMatchObject({ type: "Sink", urn: expect.stringMatching(/::pulumi-nodejs:dynamic\/keboola:Sink::raw$/) });
    expect(Object.keys(sinkArgs.inputs).filter((k) => k.startsWith("__")).sort()).toEqual(["__program", "__provider"]);
    expect(sinkArgs.inputs.sourceId).toBe("quick-events");
    expect(created.find((c) => c.name === "events")!.type).toBe("pulumi-nodejs:dynamic/keboola:Source");
  });

  it("has every input and output of its schema as an Output property" /* secrets in state: test/e2e/stream.e2e.test.ts */, async () => {
    const source = new keboola.Source("props", { name: "Props" });
    for (const name of sourceDefinition.outputNames) {
      expect(pulumi.Output.isInstance((source as unknown as Record<string, unknown>)[name]), name).toBe(true);
    }
    const config = new keboola.ComponentConfig("props-config", { componentId: "keboola.ex-generic-v2", name: "C" });
    for (const name of componentConfigDefinition.outputNames) {
      expect(pulumi.Output.isInstance((config as unknown as Record<string, unknown>)[name]), name).toBe(true);
    }
  });

  it("keeps the serialized provider tiny, without clients or secrets", async () => {
    new keboola.SinkSettings("settings", { sourceId: "s", sinkId: "k", targetImportTrigger: { interval: "2m" } });
    await new Promise((r) => setImmediate(r));
    const all = created.filter((c) => typeof c.inputs.__provider === "string");
    expect(all.length).toBeGreaterThanOrEqual(3);
    for (const c of all) {
      const serialized = c.inputs.__provider as string;
      expect(serialized.length, `__provider of ${c.name}`).toBeLessThan(4096);
      expect(serialized).not.toContain(SECRET_TOKEN);
      expect(serialized).toContain('require("keboola-pulumi/runtime")');
      expect(serialized).not.toMatch(/undici|KeboolaClient|HttpClient/);
    }
  });

  it("serializes each kind to a distinct but equally small provider", async () => {
    const sizes = await Promise.all(
      (["source", "sink", "sinkSettings"] as const).map(async (kind) => {
        const fn = await pulumi.runtime.serializeFunction(() => providerFor(kind), { allowSecrets: false });
        expect(fn.text).toContain(`kind: "${kind}"`);
        return fn.text.length;
      }),
    );
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThan(32);
  });

  it("tells the provider which # values the program gives as literal, non-secret text (for check's warning)", async () => {
    const config = new keboola.ComponentConfig("plain-secrets", {
      componentId: "keboola.ex-generic-v2",
      name: "Plain secrets",
      configuration: {
        "#literal": "plain-literal",
        "#fromSecret": pulumi.secret("hidden"),
        "#cipher": "KBC::ProjectSecure::abc",
        "#placeholder": "{{x}}",
        nested: pulumi.output({ list: [{ "#inOutput": "plain-in-output" }] }),
        wholeSecret: pulumi.secret({ "#inSecret": "hidden-too" }),
      },
      rows: [{ name: "r", configuration: { "#rowLiteral": "row-plain" } }],
    });
    await outputValue(config.urn);
    const args = created.find((c) => c.name === "plain-secrets")!;
    expect((args.inputs.__program as { plainSecrets: string[] }).plainSecrets).toEqual([
      "configuration.#literal",
      "configuration.nested.list[0].#inOutput",
      "rows[0].configuration.#rowLiteral",
    ]);
  });
});
