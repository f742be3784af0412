// A representative set of bad inputs through the real CLI: `pulumi preview` fails naming each
// resource, its property path and the fix, and the emulator sees no write. A nested path is
// printed in the reason (as a property, the engine would print `value {<nil>}` for it). Two
// resources of one program addressing the same source are refused when the program declares them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator/server";
import { type PulumiWorkspace, describeResult, initEmulatorStack, makePulumiWorkspace } from "./helpers/pulumi";

const TOKEN = "e2e-refusals-token-0123456789";

// One bad resource per preview: the engine stops a preview at its first refused resource.
const CASES: Array<[string, string, RegExp]> = [
  ["an unknown key", `new keboola.Source("web", { name: "Web", descripton: "typo" });`, /keboola:Source resource 'web': property descripton .*did you mean "description"/],
  ["a duration the service refuses", `new keboola.SourceSettings("slow", { sourceId: "web", targetImportTrigger: { interval: "2d" } });`, /keboola:SourceSettings resource 'slow' has a problem: targetImportTrigger\.interval: .*time: unknown unit "d".*write it like 45s/],
  ["a source's name passed as its id", `new keboola.Sink("orphan", { sourceId: "App Events", name: "Out", tableId: "in.c-e2e.out", columns: [{ type: "uuid", name: "id" }] });`, /property sourceId .*source "App Events" does not exist.*not the source's name/],
  ["a job of a missing configuration", `new keboola.JobRun("ghost", { componentId: "keboola.ex-generic-v2", configId: "does-not-exist" });`, /property configId .*configuration "does-not-exist" of keboola\.ex-generic-v2 does not exist/],
  ["a non-integer default of an int variable", `new keboola.VariableConfig("vars", { name: "Vars", variables: [{ name: "limit", type: "int" }], defaultValues: { limit: "ten" } });`, /keboola:VariableConfig resource 'vars' has a problem: defaultValues\.limit: .*whole number/],
  [
    "an undeclared variable next to a link to shared code (the link is fine)",
    `new keboola.ComponentConfig("sums", { componentId: "keboola.python-transformation-v2", name: "Sums", variables: { configId: "9", declared: [{ name: "limit" }] }, configuration: { shared_code_id: "1", shared_code_row_ids: ["2"], parameters: { blocks: [{ name: "B", codes: [{ name: "C", script: ["{{2}}", "print({{since}})"] }] }] } } });`,
    /keboola:ComponentConfig resource 'sums' has a problem: configuration\.parameters\.blocks\[0\]\.codes\[0\]\.script\[1\]: placeholder \{\{since\}\} refers to variable "since"/,
  ],
];

const DUPLICATE = `"use strict";
const keboola = require("keboola-pulumi");
new keboola.Source("first", { name: "Events" });
new keboola.Source("second", { name: "events" });
`;

let emu: Emulator;
let ws: PulumiWorkspace;

beforeAll(async () => {
  emu = await startEmulator({ token: TOKEN, taskDurationMs: 10 });
  ws = await makePulumiWorkspace({ project: "refusals" });
  ws.writeProgram({ "index.js": "" }, { linkProjectPackage: true });
  await initEmulatorStack(ws, emu.url, TOKEN);
}, 120_000);

afterAll(async () => {
  await ws?.cleanup();
  await emu?.close();
});

describe("e2e: preview refuses bad input with the real CLI", () => {
  it.each(CASES)("refuses %s at preview with the path and fix, writing nothing", async (_what, code, expected) => {
    fs.writeFileSync(path.join(ws.programDir, "index.js"), `"use strict";\nconst keboola = require("keboola-pulumi");\n${code}\n`);
    emu.clearRequests();
    const res = await ws.preview([], { timeoutMs: 180_000 });
    expect(res.code, describeResult(res)).not.toBe(0);
    expect(res.stdout + res.stderr).toMatch(expected);
    expect(res.stdout + res.stderr).not.toMatch(/<nil>|\{\{2\}\}/);
    expect(emu.writes()).toEqual([]);
  }, 240_000);

  it("refuses two resources of one program that would manage one source", async () => {
    fs.writeFileSync(path.join(ws.programDir, "index.js"), DUPLICATE);
    emu.clearRequests();
    const res = await ws.preview([], { timeoutMs: 180_000 });
    expect(res.code).not.toBe(0);
    expect(res.stdout + res.stderr).toMatch(/keboola:Source "second": source id "events" in branch default is already declared by keboola:Source "first" in this program/);
    expect(emu.writes()).toEqual([]);
  }, 240_000);
});
