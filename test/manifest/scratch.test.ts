import { it } from "vitest";
import * as fs from "node:fs";
import { parseManifest } from "../../provider/manifest/parse";
it("scratch", () => {
const t = fs.readFileSync("examples/quickstart/keboola.yaml","utf8");
console.log(JSON.stringify(parseManifest(t)).slice(0,300));
for (const bad of [t.replace("source: events\n    name: User", "source: evnts\n    name: User"), t.replace("tableId: in.c-quickstart.raw", "tableId: 5\n    tabelId: x"), t.replace("  raw:\n", "  actions:\n"), t.replace('limit: "2"', 'limit: "x"'), t.replace("count: 1000", "count: 0"), t.replace("    name: Raw events\n", ""), t.replace("  events:\n    name: Quickstart Events\n", "  events:\n    name: Quickstart Events\n    nmae: x\n  - a\n")]) {
  try { parseManifest(bad); console.log("no error!"); } catch (e) { console.log((e as Error).message); }
}
});
