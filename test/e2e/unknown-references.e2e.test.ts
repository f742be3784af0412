// Issue 25 through the real CLI: a check of every kind refuses at preview, with zero writes, what
// `up` would fail on, while the resources it references are declared in the same program and not
// created yet (their outputs unknown at a first preview). Through the repository's root project
// and a manifest (the README's main path: every reference in a manifest is an output), and for the
// cases the manifest cannot express (settings whose values its own schema refuses) or the issue
// names (a table's CSV, a schedule of a flow), as a TypeScript program.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator/server";
import { describeResult, initEmulatorStack, makePulumiWorkspace, type PulumiWorkspace } from "./helpers/pulumi";
import { makeRootProject, type RootProject } from "../../scripts/lib/root-project";
import { call } from "../emulator/helpers";

const TOKEN = "e2e-unknown-refs-token-4d1c";
const EXTRACTOR = `{ parameters: { api: { baseUrl: "https://api.example.com/" }, config: { outputBucket: in.c-users, jobs: [{ endpoint: users }] } } }`;

// One refused resource per preview; each names the resource, the property path and the fix.
const MANIFEST_CASES: Array<[string, string, RegExp]> = [
  [
    "Bucket: its id taken by a bucket this stack did not create",
    `buckets:\n  taken: { name: taken }\n`,
    /keboola:Bucket resource 'taken': property name .*bucket "in\.c-taken" already exists and belongs to nobody recorded.*choose another name, or set adoptExisting: true/,
  ],
  [
    "Table: a CSV wider than its header, in a bucket of the manifest",
    `buckets:\n  ref: { name: ref }\ntables:\n  countries: { bucket: ref, name: countries, columns: [id, name], data: wide.csv }\n`,
    /keboola:Table resource 'countries': property data .*wide\.csv\\?" is not a valid CSV \(RFC 4180\): line 2: 3 fields, but the header has 2: fix the file/,
  ],
  [
    "Table: a header that differs from the columns, in a bucket of the manifest",
    `buckets:\n  ref: { name: ref }\ntables:\n  countries: { bucket: ref, name: countries, columns: [id, name], data: header.csv }\n`,
    /keboola:Table resource 'countries': property data .*header\.csv\\?": .*\[id, wrong\].*\[id, name\]/,
  ],
  [
    "Source: a name with no letter to derive its id from",
    `sources:\n  odd: { name: "!!!" }\n`,
    /keboola:Source resource 'odd': property name .*has no Latin letter or digit to derive the source id from.*set sourceId/,
  ],
  [
    "Sink: a mapping that does not fit its Table of the manifest, of its Source of the manifest",
    `sources:\n  events: { name: Events }\nbuckets:\n  app: { name: app }\ntables:\n  events: { bucket: app, name: events, columns: [id, payload] }\nsinks:\n  raw: { source: events, name: Raw, tableId: in.c-app.events, columns: [{ type: uuid, name: id }, { type: body, name: body }] }\n`,
    /keboola:Sink resource 'raw': property columns .*declared by keboola:Table "events" in this program/,
  ],
  [
    "ComponentConfig: a placeholder its variables of the manifest do not declare",
    `variables:\n  vars: { name: Vars, variables: [{ name: limit, type: int }], defaultValues: { limit: "5" } }\nconfigurations:\n  users:\n    componentId: keboola.ex-generic-v2\n    name: Users\n    variables: vars\n    configuration: { parameters: { api: { baseUrl: "https://api.example.com/" }, config: { outputBucket: in.c-users, jobs: [{ endpoint: users, params: { limit: "{{ limt }}" } }] } } }\n`,
    /keboola:ComponentConfig resource 'users' has a problem: configuration\.parameters\.config\.jobs\[0\]\.params\.limit: placeholder \{\{ limt \}\} refers to variable \\?"limt\\?", which the bound variables do not declare \(declared: limit\): declare it in the VariableConfig's variables, or fix the placeholder/,
  ],
  [
    "VariableConfig: a default value of a variable it does not declare",
    `variables:\n  vars: { name: Vars, variables: [{ name: limit, type: int }], defaultValues: { limt: "5" } }\n`,
    // Refused when the manifest is read, by the same rule, at the entry's path and position.
    /keboola\.yaml:2:\d+: variables\.vars\.defaultValues\.limt: \\?"limt\\?" is not a declared variable \(declared: limit\): declare it in variables/,
  ],
  [
    "Flow: a dependency on a phase it does not have, its task a configuration of the manifest",
    `configurations:\n  users: { componentId: keboola.ex-generic-v2, name: Users, configuration: ${EXTRACTOR} }\nflows:\n  nightly:\n    name: Nightly\n    phases:\n      - { name: extract, dependsOn: [prepare], tasks: [{ configuration: users }] }\n`,
    // Refused when the manifest is read, by the same rule, at the entry's path and position.
    /keboola\.yaml:7:\d+: flows\.nightly\.phases\[0\]\.dependsOn\[0\]: missing phase \\?"prepare\\?", referenced from \\?"extract\\?": name an existing phase/,
  ],
  [
    "Schedule: variable values for a flow of the manifest",
    `configurations:\n  users: { componentId: keboola.ex-generic-v2, name: Users, configuration: ${EXTRACTOR} }\nflows:\n  nightly: { name: Nightly, phases: [{ name: extract, tasks: [{ configuration: users }] }] }\nschedules:\n  nightly: { flow: nightly, cron: "0 3 * * *", variableValuesData: { limit: "5" } }\n`,
    /keboola:Schedule resource 'nightly' has a problem: target\.variableValuesData: Flow "nightly" of this program has no variables bound \(no variables_id\), so the values would be ignored: a Flow takes no variable values, or remove variableValuesData/,
  ],
  [
    "JobRun: a run of a disabled configuration of the manifest",
    `configurations:\n  users: { componentId: keboola.ex-generic-v2, name: Users, isDisabled: true, configuration: ${EXTRACTOR} }\njobs:\n  once: { configuration: users }\n`,
    /keboola:JobRun resource 'once': property configId .*ComponentConfig "users" of this program is disabled, so its job would fail: set isDisabled: false on ComponentConfig "users"/,
  ],
];

const PROGRAM_CASES: Array<[string, string, RegExp]> = [
  [
    "SourceSettings: a trigger out of range, of a Source of the program",
    `const events = new keboola.Source("events", { name: "Events" });
new keboola.SourceSettings("events-settings", { sourceId: events.sourceId, stagingUploadTrigger: { count: 0 } });`,
    /keboola:SourceSettings resource 'events-settings' has a problem: stagingUploadTrigger\.count: must be at least 1/,
  ],
  [
    "SinkSettings: a trigger out of range, of a Sink of the program",
    `const events = new keboola.Source("events", { name: "Events" });
const raw = new keboola.Sink("raw", { sourceId: events.sourceId, name: "Raw", tableId: "in.c-e2e.raw", columns: [{ type: "body", name: "body" }] });
new keboola.SinkSettings("raw-settings", { sourceId: events.sourceId, sinkId: raw.sinkId, stagingUploadTrigger: { count: 0 } });`,
    /keboola:SinkSettings resource 'raw-settings' has a problem: stagingUploadTrigger\.count: must be at least 1/,
  ],
  [
    "Table: a CSV wider than its header, in a Bucket of the program",
    `const ref = new keboola.Bucket("ref", { name: "ref" });
new keboola.Table("countries", { bucketId: ref.bucketId, name: "countries", columns: ["id", "name"], data: "wide.csv" });`,
    /keboola:Table resource 'countries': property data .*"wide\.csv" is not a valid CSV \(RFC 4180\).*fix the file/,
  ],
  [
    "Schedule: variable values for a Flow of the program",
    `const users = new keboola.ComponentConfig("users", { componentId: "keboola.ex-generic-v2", name: "Users" });
const nightly = new keboola.Flow("nightly", { name: "Nightly", phases: [{ name: "extract", tasks: [{ componentId: "keboola.ex-generic-v2", configId: users.configId }] }] });
new keboola.Schedule("nightly", { name: "Nightly", cron: "0 3 * * *", target: { ...nightly.target(), variableValuesData: { limit: "5" } } });`,
    /keboola:Schedule resource 'nightly' has a problem: target\.variableValuesData: Flow "nightly" of this program has no variables bound/,
  ],
];

let emu: Emulator;
let root: RootProject;
let manifest: string;
let ws: PulumiWorkspace;

beforeAll(async () => {
  emu = await startEmulator({ token: TOKEN, taskDurationMs: 10 });
  // A bucket no stack created, whose id the Bucket case asks for.
  await call(emu.url, "POST", "/v2/storage/buckets", { token: TOKEN, json: { name: "taken", stage: "in", description: "made by hand" } });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "unknown-refs-e2e-"));
  manifest = path.join(dir, "keboola.yaml");
  for (const d of [dir]) {
    fs.writeFileSync(path.join(d, "wide.csv"), "id,name\n1,a,extra\n");
    fs.writeFileSync(path.join(d, "header.csv"), "id,wrong\n1,a\n");
  }
  root = await makeRootProject({ prefix: "unknown-refs", host: emu.url, token: TOKEN, manifest });
  ws = await makePulumiWorkspace({ project: "unknown-refs" });
  ws.writeProgram({ "index.js": "" }, { linkProjectPackage: true });
  fs.writeFileSync(path.join(ws.programDir, "wide.csv"), "id,name\n1,a,extra\n");
  await initEmulatorStack(ws, emu.url, TOKEN);
}, 240_000);

afterAll(async () => {
  if (manifest) fs.rmSync(path.dirname(manifest), { recursive: true, force: true });
  await ws?.cleanup();
  await root?.cleanup();
  await emu?.close();
});

describe("e2e: preview refuses, with the referenced resources declared and not created, writing nothing", () => {
  it.each(MANIFEST_CASES)("manifest: %s", async (_what, text, expected) => {
    fs.writeFileSync(manifest, text);
    emu.clearRequests();
    const res = await root.pulumi(["preview"], { timeoutMs: 180_000 });
    expect(res.code, describeResult(res)).not.toBe(0);
    expect(res.stdout + res.stderr).toMatch(expected);
    expect(emu.writes()).toEqual([]);
  }, 240_000);

  it.each(PROGRAM_CASES)("program: %s", async (_what, code, expected) => {
    fs.writeFileSync(path.join(ws.programDir, "index.js"), `"use strict";\nconst keboola = require("keboola-pulumi");\n${code}\n`);
    emu.clearRequests();
    const res = await ws.preview([], { timeoutMs: 180_000 });
    expect(res.code, describeResult(res)).not.toBe(0);
    expect(res.stdout + res.stderr).toMatch(expected);
    expect(emu.writes()).toEqual([]);
  }, 240_000);
});
