// A representative set of bad inputs through the real CLI: `pulumi preview` fails naming each
// resource, its property path and the fix, and the emulator sees no write; so do bad inputs that
// need another object of the same program, not created yet. A nested path is printed in the
// reason (as a property, the engine would print `value {<nil>}` for it). Two resources of one
// program addressing the same source are refused when the program declares them.
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

// Bad inputs that need another object declared in the same program and not created yet: the
// program declares it, so preview refuses them (before, they failed only at `up`).
const COLUMNS = `[{ type: "uuid", name: "id" }]`;
const EVENTS = `const events = new keboola.Source("events", { name: "Events" });`;
const USERS = (binding: string, values: string) => `const vars = new keboola.VariableConfig("vars", { name: "Vars", variables: [{ name: "limit", type: "int" }, { name: "endpoint" }], defaultValues: { limit: "10", endpoint: "users" } });
const users = new keboola.ComponentConfig("users", {
  componentId: "keboola.ex-generic-v2",
  name: "Users",
  variables: ${binding},
  configuration: { parameters: { api: { baseUrl: "https://api.example.com/" }, config: { outputBucket: "in.c-users", jobs: [{ endpoint: "{{endpoint}}", params: { limit: "{{limit}}" } }] } } },
});
new keboola.JobRun("run", { componentId: "keboola.ex-generic-v2", configId: users.configId${values} });`;
const SAME_PROGRAM: Array<[string, string, RegExp]> = [
  [
    "two sinks creating one new table with different columns",
    `${EVENTS}
new keboola.Sink("first", { sourceId: events.sourceId, name: "First", tableId: "in.c-e2e.shared", columns: [{ type: "uuid", name: "id" }, { type: "body", name: "body" }] });
new keboola.Sink("second", { sourceId: events.sourceId, name: "Second", tableId: "in.c-e2e.shared", columns: ${COLUMNS} });`,
    /keboola:Sink resource 'second': property columns .*table "in\.c-e2e\.shared" does not exist yet and Sink "first" of this program writes it too, with other columns/,
  ],
  [
    "two sinks of one source whose names derive one sink id",
    `${EVENTS}
new keboola.Sink("raw", { sourceId: events.sourceId, name: "Raw Events", tableId: "in.c-e2e.raw", columns: ${COLUMNS} });
new keboola.Sink("raw-too", { sourceId: events.sourceId, name: "raw events", tableId: "in.c-e2e.raw2", columns: ${COLUMNS} });`,
    /keboola:Sink "raw-too": sink id "raw-events" \(derived from its name "raw events"\) of source "events" is already declared by keboola:Sink "raw" in this program; two resources would manage one object\. Give one of them another sinkId \(or name\)\./,
  ],
  [
    "settings of a sink neither existing nor declared",
    `${EVENTS}
new keboola.Sink("raw", { sourceId: events.sourceId, name: "Raw", tableId: "in.c-e2e.raw", columns: ${COLUMNS} });
new keboola.SinkSettings("raw-settings", { sourceId: events.sourceId, sinkId: "rwa", syncWait: false });`,
    /keboola:SinkSettings resource 'raw-settings': property sinkId .*sink "rwa" of source "events" does not exist in branch default, and no Sink of this program declares it: pass the sinkId of a Sink/,
  ],
  [
    "an undeclared placeholder of a configuration bound by configId alone",
    USERS("{ configId: vars.configId }", "").replace('"{{endpoint}}"', '"{{endpont}}"'),
    /keboola:ComponentConfig resource 'users' has a problem: configuration\.parameters\.config\.jobs\[0\]\.endpoint: placeholder \{\{endpont\}\} refers to variable "endpont", which the bound variables do not declare \(declared: limit, endpoint\)/,
  ],
  [
    "a job of a new configuration missing a value",
    USERS("vars.binding()", `, variableValuesData: { limit: "5" }`),
    /keboola:JobRun resource 'run': property variableValuesData .*has no value for variable "endpoint", which VariableConfig "vars" of this program declares, so the job would fail \(No value provided for variable "endpoint"\.\): add them to variableValuesData/,
  ],
  [
    "a job of a new, disabled configuration",
    `new keboola.ComponentConfig("off", { componentId: "keboola.ex-generic-v2", configId: "off-here", name: "Off", isDisabled: true });
new keboola.JobRun("run-off", { componentId: "keboola.ex-generic-v2", configId: "off-here" });`,
    /keboola:JobRun resource 'run-off': property configId .*ComponentConfig "off" of this program is disabled, so its job would fail: set isDisabled: false on ComponentConfig "off"/,
  ],
];

/** What these checks must let through: the same program made right previews cleanly. */
const SAME_PROGRAM_RIGHT = `${EVENTS}
const first = new keboola.Sink("first", { sourceId: events.sourceId, name: "First", tableId: "in.c-e2e.shared", columns: ${COLUMNS} });
new keboola.Sink("second", { sourceId: events.sourceId, name: "Second", tableId: "in.c-e2e.shared", columns: ${COLUMNS} });
new keboola.SinkSettings("first-settings", { sourceId: events.sourceId, sinkId: "first", syncWait: false });
new keboola.SinkSettings("second-settings", { sourceId: events.sourceId, sinkId: first.sinkId, syncWait: false });
${USERS("{ configId: vars.configId, valuesRowId: vars.valuesRowId }", `, variableValuesData: { limit: "5", endpoint: "orders" }`)}
const fixed = new keboola.ComponentConfig("fixed", { componentId: "keboola.ex-generic-v2", configId: "fixed-here", name: "Fixed" });
new keboola.JobRun("run-fixed", { componentId: "keboola.ex-generic-v2", configId: fixed.configId });
new keboola.JobRun("run-defaults", { componentId: "keboola.ex-generic-v2", configId: users.configId, triggers: [2] });`;

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

  it.each(SAME_PROGRAM)("refuses %s, declared in the same program, at preview with the path and fix, writing nothing", async (_what, code, expected) => {
    fs.writeFileSync(path.join(ws.programDir, "index.js"), `"use strict";\nconst keboola = require("keboola-pulumi");\n${code}\n`);
    emu.clearRequests();
    const res = await ws.preview([], { timeoutMs: 180_000 });
    expect(res.code, describeResult(res)).not.toBe(0);
    expect(res.stdout + res.stderr).toMatch(expected);
    expect(emu.writes()).toEqual([]);
  }, 240_000);

  it("previews the same program made right, writing nothing", async () => {
    fs.writeFileSync(path.join(ws.programDir, "index.js"), `"use strict";\nconst keboola = require("keboola-pulumi");\n${SAME_PROGRAM_RIGHT}\n`);
    emu.clearRequests();
    const res = await ws.preview([], { timeoutMs: 180_000 });
    expect(res.code, describeResult(res)).toBe(0);
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
