import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { processIo } from "../../provider/cli/command";
import { main } from "../../provider/cli/main";
import { parseManifest } from "../../provider/manifest/parse";
import { formatTry, tryLocally, tryRemotely } from "../../provider/manifest/try";
import { startEmulator, type Emulator } from "../../emulator/server";
import { KeboolaClient } from "../../provider/api/client";

// `keboola-pulumi try`: the rows an event becomes in each sink of a source, from the manifest's
// mappings (offline, the shared evaluation) or from the deployed source's test endpoint (--remote).
// The end-to-end runs through the built CLI are in test/e2e/examples.e2e.test.ts.

// The manifest of issue 27, as written there.
const MANIFEST = `
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
      - { type: path, name: user, path: user.id, rawString: true }
      - { type: template, name: summary, rawString: true,
          template: { content: "Body('user.id') + ' did ' + Body('action', 'nothing')" } }
    examples:
      - payload: { user: { id: u-1 }, action: signup }
        expect: { user: u-1, summary: u-1 did signup }
  errors:
    source: events
    name: Errors
    tableId: in.c-app.errors
    columns:
      - { type: path, name: code, path: error.code }
  logs:
    source: otel
    name: Logs
    tableId: in.c-app.logs
    allowedSignals: [logs]
    columns:
      - { type: template, name: message, rawString: true, template: { content: "Body('body')" } }
  metrics:
    source: otel
    name: Metrics
    tableId: in.c-app.metrics
    allowedSignals: [metrics]
    columns:
      - { type: template, name: metric, rawString: true, template: { content: "Body('metric_name') + '=' + Body('value')" } }
`;

const manifest = parseManifest(MANIFEST);
const SIGNUP = '{"user":{"id":"u-1"},"action":"signup"}';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "try-"));
  fs.writeFileSync(path.join(dir, "keboola.yaml"), MANIFEST);
  fs.writeFileSync(path.join(dir, "signup.json"), SIGNUP);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Runs the CLI, capturing what it prints; a refusal of its arguments or input is its exit code 1 and message. */
async function cli(args: string[], stdin = ""): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await main(["try", ...args], processIo({ stdin: async () => stdin, write: (t) => (out += t), error: (t) => (err += t) }));
  return { code, out, err };
}

/** What the CLI says when it refuses: exit 1 and the message on standard error. */
const refusal = (message: string | RegExp) => ({ code: 1, out: "", err: typeof message === "string" ? expect.stringContaining(message) : expect.stringMatching(message) });

describe("offline: the manifest's mappings", () => {
  it("the issue's manifest: per sink its table and row, as JSON", async () => {
    const { code, out } = await cli([path.join(dir, "keboola.yaml"), "--source", "events", path.join(dir, "signup.json"), "--json"]);
    const result = JSON.parse(out);
    expect(result).toMatchObject({ source: "events", sourceId: "events", type: "http", remote: false });
    expect(result.sinks).toEqual([
      { sink: "actions", sinkId: "user-actions", tableId: "in.c-app.actions", row: { id: expect.stringMatching(/^[0-9a-f-]{36}$/), user: "u-1", summary: "u-1 did signup" } },
      { sink: "errors", sinkId: "errors", tableId: "in.c-app.errors", refused: ['Invalid value for column "code": path "error.code" not found in the body.'] },
    ]);
    // A sink refuses the event: exit 1, as preview fails on such an example.
    expect(code).toBe(1);
  });

  it("standard input, headers, and a terminal table", async () => {
    const { code, out } = await cli([path.join(dir, "keboola.yaml"), "--source", "events", "-", "--header", "X-Trace: t1"], '{"user":{"id":"u-2"},"error":{"code":"E1"}}');
    expect(code).toBe(0);
    const lines = out.split("\n");
    expect(lines[0]).toBe("source events (events, http): the manifest's mappings, evaluated locally");
    expect(out).toContain("sink actions (user-actions) -> in.c-app.actions\n  id       ");
    expect(out).toContain("\n  user     u-2\n  summary  u-2 did nothing\n");
    expect(out).toContain('sink errors -> in.c-app.errors\n  code  "E1"\n');
  });

  it("an OTLP record per signal: the sink of its signal writes, the other omits it", () => {
    const logs = tryLocally(manifest, { source: "otel", payload: '{"body":"started"}', headers: {} });
    expect(logs.sinks.map((s) => [s.sink, s.row ?? s.omitted])).toEqual([
      ["logs", { message: "started" }],
      ["metrics", { signal: "logs", allowedSignals: ["metrics"] }],
    ]);
    const metrics = tryLocally(manifest, { source: "otel", payload: '{"metric_name":"cpu","value":0.5}', headers: {}, signal: "metrics" });
    expect(metrics.sinks.map((s) => [s.sink, s.row ?? s.omitted])).toEqual([
      ["logs", { signal: "metrics", allowedSignals: ["logs"] }],
      ["metrics", { metric: "cpu=0.5" }],
    ]);
    expect(formatTry(metrics)).toContain("sink logs -> in.c-app.logs: omitted (it takes logs records only)");
  });

  it("refuses what it cannot send, saying how", async () => {
    expect(await cli([path.join(dir, "keboola.yaml"), "--source", "nope", path.join(dir, "signup.json")])).toMatchObject(refusal('"nope" is not a key under sources (one of: events, otel)'));
    expect(await cli([path.join(dir, "keboola.yaml"), "--source", "otel", "-"], "not json")).toMatchObject(refusal(/an OTLP source takes one flattened record: the payload must be a JSON object/));
    expect(await cli([path.join(dir, "keboola.yaml"), "--source", "events", "-", "--signal", "logs"], "{}")).toMatchObject(refusal('--signal is for OTLP sources; source "events" is an HTTP source'));
    expect(await cli([path.join(dir, "keboola.yaml"), "--source", "otel", "-", "--signal", "spans"], "{}")).toMatchObject(refusal("--signal must be one of logs, metrics, traces"));
    expect(await cli([path.join(dir, "keboola.yaml"), path.join(dir, "signup.json")])).toMatchObject(refusal(/name the source: --source <key under sources>/));
    expect(await cli([path.join(dir, "keboola.yaml"), "--source", "events", path.join(dir, "missing.json")])).toMatchObject(refusal(/cannot read the payload/));
    expect(await cli([path.join(dir, "keboola.yaml"), "--source", "events", "-", "--header", "novalue"], "{}")).toMatchObject(refusal('--header must be "Name: value"'));
  });
});

describe("--remote: the deployed source's test endpoint", () => {
  let emu: Emulator;
  let client: KeboolaClient;
  beforeAll(async () => {
    emu = await startEmulator({ token: "master", taskDurationMs: 5 });
    client = new KeboolaClient({ host: emu.url, token: "master", taskTimeoutSeconds: 20 });
    const stream = await client.stream();
    await stream.runTask(await stream.createSource("default", { sourceId: "events", type: "http", name: "Events" }), "source");
    const sink = (sinkId: string, tableId: string, columns: unknown[]) => ({ sinkId, type: "table" as const, name: sinkId, allowedSignals: [], table: { type: "keboola", tableId, mapping: { columns } } });
    await stream.runTask(await stream.createSink("default", "events", sink("user-actions", "in.c-app.actions", manifest.sinks!.actions!.columns)), "sink");
    await stream.runTask(await stream.createSink("default", "events", sink("by-hand", "in.c-app.byhand", [{ type: "body", name: "body" }])), "sink");
  });
  afterAll(async () => {
    await client?.http.close();
    await emu?.close();
  });

  it("answers per deployed sink, named by its manifest key where the manifest declares it", async () => {
    emu.clearRequests();
    const result = await tryRemotely(manifest, { source: "events", payload: SIGNUP, headers: {} }, client);
    expect(result).toMatchObject({ source: "events", sourceId: "events", remote: true });
    expect(result.sinks).toEqual([
      { sink: "by-hand", sinkId: "by-hand", tableId: "in.c-app.byhand", row: { body: SIGNUP } },
      { sink: "actions", sinkId: "user-actions", tableId: "in.c-app.actions", row: { id: expect.stringMatching(/^[0-9a-f-]{36}$/), user: "u-1", summary: "u-1 did signup" } },
    ]);
    expect(emu.writes().map((w) => `${w.method} ${w.path}`)).toEqual(["POST /stream/v1/branches/default/sources/events/test"]);
  });

  it("a record the service refuses: its message, exit 1; an undeployed source: says so", async () => {
    const refused = await tryRemotely(manifest, { source: "events", payload: '{"action":"x"}', headers: {} }, client);
    expect(refused.refused).toBe('Invalid value for column "user": path "user.id" not found in the body.');
    expect(formatTry(refused)).toContain('  refused: Invalid value for column "user": path "user.id" not found in the body.');
    await expect(tryRemotely(manifest, { source: "otel", payload: "{}", headers: {} }, client)).rejects.toThrow(/source "otel" \(sources\.otel\) is not deployed in branch default: .* Deploy it first \(pulumi up\), or try it offline \(without --remote\)/);
  });

  it("through the CLI with KBC_HOST and KBC_TOKEN", async () => {
    const env = { ...process.env };
    process.env.KBC_HOST = emu.url;
    process.env.KBC_TOKEN = "master";
    try {
      const { code, out } = await cli([path.join(dir, "keboola.yaml"), "--source", "events", path.join(dir, "signup.json"), "--remote", "--json"]);
      expect(code).toBe(0);
      expect(JSON.parse(out).sinks.map((s: { sink: string }) => s.sink)).toEqual(["by-hand", "actions"]);
      delete process.env.KBC_TOKEN;
      expect(await cli([path.join(dir, "keboola.yaml"), "--source", "events", "-", "--remote"], "{}")).toMatchObject(refusal("--remote needs a token: set KBC_TOKEN (or pass --token)"));
    } finally {
      process.env = env;
    }
  });
});
