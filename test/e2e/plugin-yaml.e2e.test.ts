// A Pulumi YAML program with every kind, served by the provider plugin under the real Pulumi CLI and
// its YAML language host (built by scripts/ensure-pulumi.sh), against the emulator. Resources refer
// to each other by `${resource.output}`, so at preview a resource sees unknown values wherever the
// object it references is not created yet, and no program facts: the plugin's checks rely on
// the resource, the stack and the service alone. The program is test/e2e/plugin-yaml.program.yaml
// (the reference pages show parts of it), its second revision made here from it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator/server";
import { parseDocument } from "yaml";
import { KeboolaClient } from "../../provider/api/client";
import { initEmulatorStack, makePulumiWorkspace, ok, REPO_ROOT, type PulumiWorkspace } from "./helpers/pulumi";

const TOKEN = "plugin-yaml-token-81e2";

interface Variant {
  /** 1, then 2: every kind's updatable fields take the revision's values. */
  rev: 1 | 2;
  /** Text appended to the program: one more resource under `resources`, which comes last in the file. */
  extra?: string;
}

/** Every kind, each referring to the others as a YAML program does: revision 1 as the file has it. */
const PROGRAM_FILE = path.join(REPO_ROOT, "test", "e2e", "plugin-yaml.program.yaml");

/** What revision 2 changes, by path under `resources`: one updatable field of every kind. */
const REVISION_2: Array<[string[], string | number]> = [
  [["dev", "properties", "description"], "Where changes are tried before production, revision 2"],
  [["ref", "properties", "description"], "Reference data, revision 2"],
  [["countries", "properties", "data"], "countries-2.csv"],
  [["events", "properties", "description"], "Events, revision 2"],
  [["eventsSettings", "properties", "targetImportTrigger", "count"], 10000],
  [["raw", "properties", "name"], "Raw events 2"],
  [["rawSettings", "properties", "stagingUploadTrigger", "interval"], "20s"],
  [["vars", "properties", "defaultValues", "endpoint"], "users-2"],
  [["extractor", "properties", "configuration", "parameters", "api", "baseUrl"], "https://api.example.com/v2/"],
  [["firstRun", "properties", "timeoutSeconds"], 600],
  [["nightly", "properties", "description"], "Extracts the users every night, revision 2"],
  [["nightlySchedule", "properties", "cron"], "20 3 * * *"],
];

/** The program of a revision. The file stays the deployed text of revision 1 (the reference pages show parts of it). */
function program(v: Variant): string {
  const text = fs.readFileSync(PROGRAM_FILE, "utf8");
  if (v.rev === 1) return `${text}${v.extra ?? ""}`;
  const doc = parseDocument(text);
  for (const [at, value] of REVISION_2) {
    const where = ["resources", ...at];
    // setIn would add a path the file lacks: a renamed resource must fail here, not deploy a revision that changes nothing.
    if (!doc.hasIn(where)) throw new Error(`${PROGRAM_FILE} has no ${where.join(".")}`);
    doc.setIn(where, value);
  }
  return `${doc.toString()}${v.extra ?? ""}`;
}

describe("e2e: a Pulumi YAML program on the provider plugin", () => {
  let emu: Emulator;
  let ws: PulumiWorkspace;
  const client = () => new KeboolaClient({ host: emu.url, token: TOKEN, taskTimeoutSeconds: 30 });
  const writes = () => emu.writes().map((w) => `${w.method} ${w.path.replace(/\?.*$/, "")}`);
  const write = (v: Variant) =>
    ws.writeProgram({ "countries-1.csv": "code,name\nCZ,Czechia\nDE,Germany\n", "countries-2.csv": "code,name\nCZ,Czechia\nDE,Germany\nFR,France\n" }, { runtime: "yaml", extraYaml: program(v) });
  const base: Variant = { rev: 1 };
  const changed: Variant = { rev: 2 };

  beforeAll(async () => {
    emu = await startEmulator({ token: TOKEN, taskDurationMs: 10 });
    ws = await makePulumiWorkspace({ prefix: "plugin-yaml-", plugin: true });
    write(base);
    await initEmulatorStack(ws, emu.url, TOKEN);
  }, 120_000);
  afterAll(async () => {
    await ws?.cleanup();
    await emu?.close();
  });

  it("previews every kind without writing, deploys it, and then sees no change", async () => {
    emu.clearRequests();
    const preview = ok(await ws.preview());
    expect(writes()).toEqual([]);
    // Settings of a source and a sink not created yet, whose ids are known (derived from names):
    // warned about, not refused, and checked again before they are written.
    for (const name of ["eventsSettings", "raw", "rawSettings"]) expect(preview.stdout).toMatch(new RegExp(`\\(${name}\\):\\n    warning: not refused yet: `));
    ok(await ws.up());
    const resources = await ws.stackResources();
    const types = resources.filter((r) => r.type.startsWith("keboola:index:")).map((r) => r.type.replace("keboola:index:", ""));
    expect(types.sort()).toEqual(["Branch", "Bucket", "ComponentConfig", "Flow", "JobRun", "Schedule", "Sink", "SinkSettings", "Source", "SourceSettings", "Table", "VariableConfig"]);
    const outputs = await ws.stackOutputs();
    expect(outputs).toMatchObject({ bucketId: "in.c-ref", url: "[secret]" });
    expect((await client().storage.previewRows("default", "in.c-ref.countries")).rows).toHaveLength(2);
    ok(await ws.previewExpectNoChanges());
  });

  it("updates each kind in place", async () => {
    write(changed);
    const up = ok(await ws.up());
    // Every kind: the JobRun only its timeout (no new run), the Table its data (a new file).
    expect(up.stdout).toContain("~ 12 updated");
    ok(await ws.previewExpectNoChanges());
    const bucket = await client().storage.findBucket("default", "in.c-ref");
    expect(bucket?.metadata?.find((m) => m.provider === "user" && m.key === "KBC.description")?.value).toBe("Reference data, revision 2");
    expect((await client().storage.previewRows("default", "in.c-ref.countries")).rows).toHaveLength(3);
    const stream = await client().stream();
    expect((await stream.getSource("default", "app-events")).description).toMatch(/^Events, revision 2/);
  });

  it("imports every object into another stack by its id with `pulumi import`, whose generated code then previews no change", async () => {
    const made = (await ws.stackResources()).filter((r) => r.type.startsWith("keboola:index:"));
    expect(made).toHaveLength(12);
    const importer = await makePulumiWorkspace({ prefix: "plugin-import-", plugin: true, stack: "importer" });
    try {
      importer.writeProgram({}, { runtime: "yaml", project: "importer", extraYaml: "resources: {}\n" });
      await initEmulatorStack(importer, emu.url, TOKEN);
      const file = path.join(importer.root, "import.json");
      const names = new Map(made.map((r) => [r.urn.split("::").pop()!, r]));
      fs.writeFileSync(file, JSON.stringify({ resources: [...names].map(([name, r]) => ({ type: r.type, name, id: r.id })) }));
      emu.clearRequests();
      const out = path.join(importer.root, "imported.yaml");
      const imported = await importer.pulumi(["import", "--file", file, "--yes", "--out", out, "--stack", "importer"]);
      ok(imported);
      expect(writes()).toEqual([]);
      // The code as emitted, as the program: the objects as they are, so no change.
      const code = fs.readFileSync(out, "utf8");
      expect(code).toMatch(/^resources:\n/m);
      importer.writeProgram({}, { runtime: "yaml", project: "importer", extraYaml: code });
      const state = await importer.stackResources();
      const source = state.find((r) => r.type === "keboola:index:Source");
      // Secrets come back as secrets; no bookkeeping in state.
      expect(source?.outputs?.url).toMatchObject({ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270" });
      for (const r of state) expect(Object.keys({ ...r.inputs, ...r.outputs }).filter((k) => k.startsWith("__"))).toEqual([]);
      emu.clearRequests();
      ok(await importer.previewExpectNoChanges());
      expect(writes()).toEqual([]);
      // The importer lets go of them (they stay the first stack's).
      ok(await importer.pulumi(["state", "delete", "--all", "--force", "--yes", "--stack", "importer"]));
    } finally {
      await importer.cleanup();
    }
  });

  // One bad input per kind, each at the property the dynamic resources name, none written.
  // Values of the right type (a YAML program's own type check, from schema.json, refuses the rest
  // before the plugin is asked) that the kinds refuse.
  const BAD: Array<[kind: string, yaml: string, message: RegExp]> = [
    ["Branch", "name: ''", /keboola:index:Branch resource 'bad': property name value \{\} has a problem: /],
    ["Bucket", "stage: in\n      name: 'sales data!'", /keboola:index:Bucket resource 'bad': property name value \{sales data!\} has a problem: /],
    ["Table", "bucketId: in.c-ref\n      name: t\n      columns: [a, a]", /keboola:index:Table resource 'bad' has a problem: columns\[1\]: "a" is already columns\[0\]/],
    ["Source", "name: '!!!'", /keboola:index:Source resource 'bad': property name value \{!!!\} has a problem: .*set sourceId/],
    ["SourceSettings", "sourceId: app-events\n      targetImportTrigger: { interval: 1s }", /keboola:index:SourceSettings resource 'bad' has a problem: targetImportTrigger.interval: "1s" is out of range/],
    ["Sink", "sourceId: app-events\n      name: x\n      tableId: bad\n      columns: [{ type: uuid, name: id }]", /keboola:index:Sink resource 'bad': property tableId value \{bad\} has a problem: .*like "in.c-events.raw"/],
    ["SinkSettings", "sourceId: app-events\n      sinkId: raw-events\n      stagingUploadTrigger: { count: -1 }", /keboola:index:SinkSettings resource 'bad' has a problem: stagingUploadTrigger.count: .*at least 1/],
    ["VariableConfig", "name: v\n      variables: [{ name: a.b }]", /keboola:index:VariableConfig resource 'bad' has a problem: variables\[0\]\.name: .*letters, digits, _ and -/],
    ["ComponentConfig", "componentId: keboola.ex-generic-v2\n      name: x\n      configId: 'a b'", /keboola:index:ComponentConfig resource 'bad': property configId value \{a b\} has a problem: /],
    ["JobRun", "componentId: keboola.ex-generic-v2\n      configId: x\n      variableValuesId: v\n      variableValuesData: { a: b }", /keboola:index:JobRun resource 'bad': property variableValuesId .*set either variableValuesData or variableValuesId, not both/],
    ["Flow", "name: f\n      phases: []", /keboola:index:Flow resource 'bad': property phases/],
    ["Schedule", "name: s\n      cron: every day\n      target: { componentId: keboola.flow, configId: x }", /keboola:index:Schedule resource 'bad': property cron/],
  ];

  it.each(BAD)("refuses a bad %s at preview, writing nothing", async (kind, yaml, message) => {
    write({ ...changed, extra: `  bad:\n    type: keboola:index:${kind}\n    properties:\n      ${yaml}\n` });
    emu.clearRequests();
    const preview = await ws.preview();
    expect(preview.code).not.toBe(0);
    expect(preview.stdout + preview.stderr).toMatch(message);
    expect(writes()).toEqual([]);
  });

  it("refuses at up, before writing it, settings of a source that the program does not create", async () => {
    write({ ...changed, extra: "  orphan:\n    type: keboola:index:SourceSettings\n    properties:\n      sourceId: nowhere\n      syncWait: false\n" });
    ok(await ws.preview());
    emu.clearRequests();
    const up = await ws.up();
    expect(up.code).not.toBe(0);
    expect(up.stdout + up.stderr).toContain('SourceSettings "orphan": not written: sourceId source "nowhere" does not exist in branch default');
    expect(writes()).toEqual([]);
    write(changed);
  });

  it("destroys everything", async () => {
    ok(await ws.destroy());
    expect(await client().storage.findBucket("default", "in.c-ref")).toBeUndefined();
  });
});
