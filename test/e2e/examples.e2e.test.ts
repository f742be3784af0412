// End to end with the real Pulumi CLI through the repository's root Pulumi project: a manifest
// whose sinks carry examples (issue 27). It deploys, each example posted once to its source's test
// endpoint after the create and none on an `up` with nothing changed; a mapping edit that breaks
// an example fails at preview with zero writes, naming the example, the column, the expected and
// the actual value; an OTLP sink's examples per signal; a mapping change posts each example of the
// changed sink once, an examples-only change writes nothing to the sink and posts the new example;
// a create whose examples the service does not confirm fails, and the next `up` checks them again; and
// `keboola-pulumi try` prints the rows for a payload, offline and with --remote, also on an
// exported project. Requests are counted from the emulator's request log.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator/server";
import { describeResult, runProcess } from "./helpers/pulumi";
import { makeRootProject, type RootProject } from "../../scripts/lib/root-project";
import { KEBOOLA_PULUMI } from "../helpers/cli";

const TOKEN = "master-token-examples";


// The sink, a raw sink, and OTLP sinks with examples per signal.
const ACTIONS_SUMMARY = "Body('user.id') + ' did ' + Body('action', 'nothing')";
const manifestText = (o: { userPath?: string; summary?: string; logsExamples?: string } = {}) => `
sources:
  events:
    name: Events
  otel:
    name: Otel
    type: otlp
sinks:
  actions:
    source: events
    name: User actions
    tableId: in.c-app.actions
    columns:
      - { type: uuid, name: id }
      - { type: path, name: user, path: ${o.userPath ?? "user.id"}, rawString: true }
      - { type: template, name: summary, rawString: true,
          template: { content: "${o.summary ?? ACTIONS_SUMMARY}" } }
    examples:
      - payload: { user: { id: u-1 }, action: signup }
        expect: { user: u-1, summary: u-1 did signup }
      - payload: { user: { id: u-2 } }
        headers: { X-Client: web }
        expect: { id: { shape: uuid }, summary: u-2 did nothing }
  logs:
    source: otel
    name: Logs
    tableId: in.c-app.logs
    allowedSignals: [logs]
    columns:
      - { type: datetime, name: at }
      - { type: template, name: message, rawString: true, template: { content: "Body('body')" } }
    examples:
      - signal: logs
        record: { severity_text: WARN, body: disk space low }
        expect: { at: { shape: datetime }, message: disk space low }
      - signal: metrics
        record: { metric_name: cpu, value: 0.5 }
        expect: omitted
${o.logsExamples ?? ""}
  metrics:
    source: otel
    name: Metrics
    tableId: in.c-app.metrics
    allowedSignals: [metrics, traces]
    columns:
      - { type: template, name: what, rawString: true, template: { content: "std.get(Body(), 'metric_name', std.get(Body(), 'name', '?'))" } }
      - { type: path, name: value, path: value, defaultValue: "" }
    examples:
      - signal: metrics
        record: { metric_name: cpu, value: 0.5 }
        expect: { what: cpu, value: "0.5" }
      - signal: traces
        record: { name: GET /, kind: Server }
        expect: { what: GET /, value: '""' }
      - signal: logs
        record: { body: hello }
        expect: omitted
`;

/** The manifest after its second deploy: the actions mapping changed, an example added to logs. */
const CHANGED = manifestText({
  summary: "Body('user.id') + ' did ' + Body('action', 'nothing') + ''",
  logsExamples: `      - signal: logs
        record: { body: second }
        expect: { message: second }`,
});

describe("e2e: sink examples through the root Pulumi project", () => {
  let emu: Emulator;
  let root: RootProject;
  let dir: string;
  let manifest: string;

  beforeAll(async () => {
    emu = await startEmulator({ token: TOKEN, taskDurationMs: 20 });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "examples-e2e-"));
    manifest = path.join(dir, "keboola.yaml");
    fs.writeFileSync(manifest, manifestText());
    root = await makeRootProject({ prefix: "examples-e2e", host: emu.url, token: TOKEN, manifest });
  }, 300_000);

  afterAll(async () => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    await root?.cleanup();
    await emu?.close();
  });

  /** The test endpoint requests since the last clear, as "source?query". */
  const testCalls = () =>
    emu
      .requests()
      .filter((r) => r.method === "POST" && /\/sources\/[^/]+\/test(\?|$)/.test(r.path))
      .map((r) => r.path.replace(/^.*\/sources\//, "").replace("/test", ""));
  const sinkWrites = () => emu.writes().filter((w) => /\/sinks(\/|$)/.test(w.path)).map((w) => `${w.method} ${w.path.replace(/^.*\/sources\//, "")}`);
  const up = () => root.pulumi(["up", "--yes", "--skip-preview"], { timeoutMs: 300_000 });
  const tryCli = (args: string[], env: NodeJS.ProcessEnv = {}, input?: string) =>
    runProcess(process.execPath, [KEBOOLA_PULUMI, "try", ...args], { cwd: dir, env: { ...process.env, KBC_HOST: "", KBC_TOKEN: "", ...env }, ...(input !== undefined ? { input } : {}) });

  it("deploys: each example posted once after the create; an up with nothing changed posts none", async () => {
    emu.clearRequests();
    const res = await up();
    expect(res.code, describeResult(res)).toBe(0);
    // actions: 2 examples; logs: 2 (a logs record, an omitted metrics one); metrics: 3 (each signal).
    expect(testCalls().sort()).toEqual(["events", "events", "otel?signal=logs", "otel?signal=logs", "otel?signal=metrics", "otel?signal=metrics", "otel?signal=traces"].sort());

    emu.clearRequests();
    const again = await up();
    expect(again.code, describeResult(again)).toBe(0);
    expect(again.stdout).not.toMatch(/~ +\d+ updated/);
    expect(testCalls()).toEqual([]);
    expect(emu.writes()).toEqual([]);
  }, 600_000);

  it("a mapping edit that breaks an example fails at preview with zero writes, naming the example, the column and both values", async () => {
    fs.writeFileSync(manifest, manifestText({ summary: "Body('user.id') + ' did ' + Body('action', 'something')" }));
    emu.clearRequests();
    const res = await root.pulumi(["preview"], { timeoutMs: 300_000 });
    expect(res.code).not.toBe(0);
    expect(res.stdout).toContain(`keboola:Sink resource 'actions' has a problem: examples[1]: column "summary": the mapping writes "u-2 did something", expected "u-2 did nothing"`);
    expect(emu.writes()).toEqual([]);

    fs.writeFileSync(manifest, manifestText({ userPath: "userId" }));
    const refused = await root.pulumi(["preview"], { timeoutMs: 300_000 });
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toContain(`examples[0]: column "user": the service refuses the record: Invalid value for column "user": path "userId" not found in the body.`);
    expect(emu.writes()).toEqual([]);
  }, 600_000);

  it("a mapping change posts each example of the changed sink once; an examples-only change writes nothing to its sink and posts the new one", async () => {
    fs.writeFileSync(manifest, CHANGED);
    emu.clearRequests();
    const res = await up();
    expect(res.code, describeResult(res)).toBe(0);
    expect(testCalls().sort()).toEqual(["events", "events", "otel?signal=logs"]);
    // The changed mapping is written once; the logs sink is not written at all.
    expect(sinkWrites()).toEqual(["PATCH events/sinks/user-actions"]);

    emu.clearRequests();
    const again = await up();
    expect(again.code, describeResult(again)).toBe(0);
    expect(testCalls()).toEqual([]);
  }, 600_000);

  it("try: the rows for a payload, offline and from the deployed source, on the manifest and on an exported project", async () => {
    fs.writeFileSync(path.join(dir, "payload.json"), '{"user":{"id":"u-7"},"action":"login"}');
    const offline = await tryCli([manifest, "--source", "events", "payload.json", "--json"]);
    expect(offline.code, describeResult(offline)).toBe(0);
    expect(JSON.parse(offline.stdout).sinks).toEqual([{ sink: "actions", sinkId: "user-actions", tableId: "in.c-app.actions", row: { id: expect.stringMatching(/^[0-9a-f-]{36}$/), user: "u-7", summary: "u-7 did login" } }]);

    const table = await tryCli([manifest, "--source", "otel", "-", "--signal", "metrics"], {}, '{"metric_name":"mem","value":3}');
    expect(table.code, describeResult(table)).toBe(0);
    expect(table.stdout).toContain("sink logs -> in.c-app.logs: omitted (it takes logs records only)");
    expect(table.stdout).toContain("sink metrics -> in.c-app.metrics\n  what   mem\n  value  3\n");

    emu.clearRequests();
    const remote = await tryCli([manifest, "--source", "events", "payload.json", "--json", "--remote"], { KBC_HOST: emu.url, KBC_TOKEN: TOKEN });
    expect(remote.code, describeResult(remote)).toBe(0);
    expect(JSON.parse(remote.stdout)).toMatchObject({ remote: true, sinks: [{ sink: "actions", sinkId: "user-actions", tableId: "in.c-app.actions", row: { user: "u-7", summary: "u-7 did login" } }] });
    expect(emu.writes().map((w) => w.path)).toEqual(["/stream/v1/branches/default/sources/events/test"]);
    expect(remote.stdout + remote.stderr).not.toContain(TOKEN);

    // An exported project: its keys are the ids; no examples are exported.
    const exported = await runProcess(process.execPath, [KEBOOLA_PULUMI, "export", "--host", emu.url], { cwd: dir, env: { ...process.env, KBC_TOKEN: TOKEN } });
    expect(exported.code, describeResult(exported)).toBe(0);
    expect(exported.stdout).not.toContain("examples");
    fs.writeFileSync(path.join(dir, "exported.yaml"), exported.stdout);
    const fromExport = await tryCli(["exported.yaml", "--source", "otel", "-", "--remote", "--signal", "traces"], { KBC_HOST: emu.url, KBC_TOKEN: TOKEN }, '{"name":"GET /x"}');
    expect(fromExport.code, describeResult(fromExport)).toBe(0);
    expect(fromExport.stdout).toContain("source otel (otel, otlp, traces record): the service's test endpoint");
    expect(fromExport.stdout).toContain("sink metrics -> in.c-app.metrics\n  what   GET /x\n  value  \"\"\n");
    expect(fromExport.stdout).not.toContain("sink logs");
  }, 600_000);

  it("a create whose examples the service does not confirm fails with the sink kept; the next up checks them again, writing nothing to the sink", async () => {
    const late = `
  late:
    source: events
    name: Late
    tableId: in.c-app.late
    columns:
      - { type: body, name: body }
    examples:
      # An object payload reaches the provider with its keys sorted (Pulumi passes objects so):
      # the body is compared as JSON data.
      - payload: { user: { id: u-5 }, late: true }
        expect: { body: { json: { user: { id: u-5 }, late: true } } }
`;
    fs.writeFileSync(manifest, CHANGED + late);
    // The test endpoint fails every attempt (the client retries a 5xx of it, as of a read, and gives up).
    emu.clearRequests();
    emu.setFaults({ rate5xx: 1, methods: ["POST"], pathPrefixes: ["/stream/v1/branches/default/sources/events/test"] });
    let failed;
    try {
      failed = await up();
    } finally {
      emu.setFaults({});
    }
    expect(failed.code).not.toBe(0);
    expect(failed.stdout).toMatch(/Sink "events\/late" \(resource "late"\): the deployed sink does not confirm an example \(the next `pulumi up` checks again\):/);
    expect(failed.stdout).toContain("examples[0]: the service's test endpoint could not be asked:");
    const faulted = emu.requests().filter((r) => r.path.endsWith("/events/test"));
    expect(faulted.length).toBeGreaterThan(0);
    expect(faulted.every((r) => r.fault === "5xx")).toBe(true);
    expect(emu.faultCounts().byMethod.POST?.["5xx"]).toBe(faulted.length);
    expect(Object.values(emu.state.stream.sinks).some((s) => s.sinkId === "late" && !s.deleted)).toBe(true);

    // Nothing changed in the manifest: the next up finishes the check, one request, no write to the sink.
    emu.clearRequests();
    const retried = await up();
    expect(retried.code, describeResult(retried)).toBe(0);
    expect(testCalls()).toEqual(["events"]);
    expect(sinkWrites()).toEqual([]);
    emu.clearRequests();
    const settled = await up();
    expect(settled.code, describeResult(settled)).toBe(0);
    expect(testCalls()).toEqual([]);
  }, 900_000);
});
