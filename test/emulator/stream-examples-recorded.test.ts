// The shared evaluation of a sink's examples (keboola/stream-examples.ts) against the emulator's
// test endpoint, on the cases recorded against the real Stream service in keboola-as-code:
//   test/stream/api/source/test-mapping       (HTTP: a template, a path, the headers, the body, a refusal)
//   test/stream/api/source/otlp-test-mapping  (OTLP logs: templates over the flattened record, a refusal)
// Each recorded request (its step's request.json, sent as the Go harness sends it:
// scripts/lib/go-request.ts) goes to the emulator's endpoint, whose answer must match the step's
// expected-http-code and expected-response.json (go-utils wildcards, as the harness compares);
// then the same event, evaluated as an example with the headers and time the endpoint saw, must
// give the endpoint's row or its refusal, and the answer read as the provider reads it after a
// deploy (answeredOutcome) must confirm an example written from the recorded row. Beyond the
// recorded cases, raw strings, Header() and each OTLP signal are compared the same way.
import { beforeAll, describe, expect, it } from "vitest";
import { goMarshal, goRequest } from "../../scripts/lib/go-request";
import { wildcardsMatch } from "../../scripts/lib/go-wildcards";
import {
  answeredOutcome,
  compareExample,
  evaluateExample,
  parseRefusal,
  type ExampleSink,
  type ExpectedValue,
  type SinkExample,
} from "../../keboola/stream-examples";
import type { MappingColumn } from "../../keboola/stream-mapping";
import type { StreamTestResult } from "../../keboola/stream";
import { useStreamEmulator } from "./stream-harness";

const { emulator, api, task } = useStreamEmulator();

/** The emulator's project and default branch: the harness's %%TEST_KBC_PROJECT_ID%% and %%TEST_DEFAULT_BRANCH_ID%%. */
const PROJECT = 4242;
const BRANCH = 101;

const tpl = (name: string, content: string, rawString = false): MappingColumn => ({ type: "template", name, ...(rawString ? { rawString } : {}), template: { language: "jsonnet", content } });
const sinkBody = (name: string, tableId: string, columns: MappingColumn[], allowedSignals?: string[]) => ({
  name,
  type: "table",
  ...(allowedSignals ? { allowedSignals } : {}),
  table: { type: "keboola", tableId, mapping: { columns } },
});

type Row = Record<string, string>;
type Recorded = { status: 200; tableId: string; columns: Array<{ name: string; value: string }> } | { status: 422; error: string; message: string };

interface RecordedCase {
  dir: string;
  source: { name: string; type: "http" | "otlp" };
  sourceId: string;
  /** 003-create-sink/request.json: the sink "my-sink". */
  columns: MappingColumn[];
  tableId: string;
  steps: Array<{ step: string; body: Record<string, unknown>; recorded: Recorded }>;
}

const CASES: RecordedCase[] = [
  {
    dir: "test/stream/api/source/test-mapping",
    source: { name: "My Source", type: "http" },
    sourceId: "my-source",
    tableId: "in.c-my-bucket.my-table",
    columns: [
      { type: "datetime", name: "datetime" },
      { type: "headers", name: "headers" },
      { type: "body", name: "body" },
      { type: "path", name: "path", path: "key" },
      tpl("jsonnet", "Body('my.value')"),
    ],
    steps: [
      {
        step: "005-test-mapping",
        body: { my: { value: 42 } },
        recorded: { status: 422, error: "stream.api.unprocessableContent", message: 'Invalid value for column "path": path "key" not found in the body.' },
      },
      {
        step: "006-test-mapping",
        body: { my: { value: 42 }, key: "value" },
        recorded: {
          status: 200,
          tableId: "in.c-my-bucket.my-table",
          columns: [
            { name: "datetime", value: "%s" },
            {
              name: "headers",
              value: '{"Accept":"application/json","Accept-Encoding":"gzip","Content-Length":"%x","Content-Type":"application/json","User-Agent":"go-resty/%x.%x.%x (https://github.com/go-resty/resty)"}',
            },
            { name: "body", value: '{"key":"value","my":{"value":42}}' },
            { name: "path", value: '"value"' },
            { name: "jsonnet", value: "42" },
          ],
        },
      },
    ],
  },
  {
    dir: "test/stream/api/source/otlp-test-mapping",
    source: { name: "My OTLP Source", type: "otlp" },
    sourceId: "my-otlp-source",
    tableId: "in.c-otlp.logs",
    columns: [
      { type: "datetime", name: "datetime" },
      tpl("severity", "Body('severity_text')"),
      tpl("message", "Body('body')"),
      tpl("service", "Body('resource')['service.name']"),
      tpl("otlp_timestamp", "Body('timestamp')"),
      tpl("user_id", "Body('attributes')['user.id']"),
    ],
    steps: [
      {
        step: "005-test-mapping-logs",
        body: { severity_text: "WARN", body: "disk space low", timestamp: "2024-06-01T12:00:00Z", resource: { "service.name": "storage-service" }, attributes: { "user.id": "u-42" } },
        recorded: {
          status: 200,
          tableId: "in.c-otlp.logs",
          columns: [
            { name: "datetime", value: "%s" },
            { name: "severity", value: '"WARN"' },
            { name: "message", value: '"disk space low"' },
            { name: "service", value: '"storage-service"' },
            { name: "otlp_timestamp", value: '"2024-06-01T12:00:00Z"' },
            { name: "user_id", value: '"u-42"' },
          ],
        },
      },
      {
        step: "006-test-mapping-resource",
        body: { severity_text: "ERROR", body: "disk full", timestamp: "2024-06-01T12:01:00Z", attributes: { "user.id": "u-99" } },
        recorded: { status: 422, error: "stream.api.unprocessableContent", message: 'Invalid value for column "service": path "resource" not found in the body.' },
      },
    ],
  },
];

const rowOf = (result: StreamTestResult, sinkId: string): Row =>
  Object.fromEntries((result.tables.find((t) => t.sinkId === sinkId)?.rows[0]?.columns ?? []).map((c) => [c.name, c.value]));

/**
 * The event as an example of its source's kind, with the headers its endpoint saw (when the answer
 * shows them): the body as the Go harness sent it (Go's JSON of a map: keys sorted).
 */
function exampleOf(type: "http" | "otlp", body: Record<string, unknown>, headers: Row | undefined, expect: Record<string, ExpectedValue> = {}): SinkExample {
  const sent = goMarshal(body);
  const given = headers ? { headers } : {};
  return type === "otlp" ? { signal: "logs", record: JSON.parse(sent) as Record<string, never>, ...given, expect } : { payload: sent, ...given, expect };
}

describe.each(CASES)("recorded: $dir", (c) => {
  const sink: ExampleSink = { sourceType: c.source.type, columns: c.columns };

  beforeAll(async () => {
    // 001-create-source, 003-create-sink
    await task("POST", `/v1/branches/${BRANCH}/sources`, c.source);
    await task("POST", `/v1/branches/${BRANCH}/sources/${c.sourceId}/sinks`, { sinkId: "my-sink", ...sinkBody("My Sink", c.tableId, c.columns) });
  });

  it.each(c.steps)("$step: the endpoint answers as recorded, and the shared evaluation gives its row or its refusal", async ({ body, recorded }) => {
    const res = await goRequest(emulator().urls.stream, "POST", `/v1/branches/${BRANCH}/sources/${c.sourceId}/test`, { "Content-Type": "application/json", "X-StorageApi-Token": "master" }, body);
    expect(res.status, res.body).toBe(recorded.status);
    const answer: unknown = JSON.parse(res.body);
    if (recorded.status === 422) {
      expect(answer).toEqual({ statusCode: 422, error: recorded.error, message: recorded.message });
      // The evaluation refuses the record with the service's very message, and reads the refusal back.
      const outcome = evaluateExample(sink, exampleOf(c.source.type, body, { "Content-Type": "application/json" }));
      expect(outcome.kind === "refused" && outcome.failures[0]?.message).toBe(recorded.message);
      const refusal = parseRefusal(recorded.message);
      expect(refusal).toEqual({ column: outcome.kind === "refused" ? outcome.failures[0]?.column : "", error: outcome.kind === "refused" ? outcome.failures[0]?.error : "" });
      return;
    }
    const result = answer as StreamTestResult;
    expect({ projectId: result.projectId, branchId: result.branchId, sourceId: result.sourceId }).toEqual({ projectId: PROJECT, branchId: BRANCH, sourceId: c.sourceId });
    expect(result.tables.map((t) => [t.sinkId, t.tableId])).toEqual([["my-sink", recorded.tableId]]);
    const got = result.tables[0]!.rows[0]!.columns;
    expect(got.map((col) => col.name)).toEqual(recorded.columns.map((col) => col.name));
    for (const [i, col] of recorded.columns.entries()) expect({ column: col.name, value: got[i]!.value, matches: wildcardsMatch(col.value, got[i]!.value) }).toMatchObject({ column: col.name, matches: true });

    // The same event evaluated locally, with the headers and the time the endpoint saw.
    const answered = rowOf(result, "my-sink");
    const headers = answered.headers !== undefined ? (JSON.parse(answered.headers) as Row) : undefined;
    const outcome = evaluateExample(sink, exampleOf(c.source.type, body, headers), { receivedAt: Date.parse(answered.datetime ?? ""), remoteAddress: "127.0.0.1" });
    expect(outcome.kind === "row" && outcome.row).toEqual(answered);

    // The answer as the provider reads it after a deploy confirms an example written from the
    // recorded row (the time by its shape, the headers left out), and names a column that differs.
    const expectations: Record<string, ExpectedValue> = Object.fromEntries(
      recorded.columns.flatMap((col): Array<[string, ExpectedValue]> => (col.name === "datetime" ? [[col.name, { shape: "datetime" }]] : col.value.includes("%") ? [] : [[col.name, col.value]])),
    );
    const example = exampleOf(c.source.type, body, headers, expectations);
    const varying = outcome.kind === "row" ? outcome.varying : [];
    expect(compareExample(sink, 0, example, answeredOutcome("my-sink", example, result, undefined, varying)!)).toEqual([]);
    const [column, value] = Object.entries(expectations).find(([name]) => name !== "datetime")!;
    const wrong = exampleOf(c.source.type, body, headers, { [column]: `${String(value)}x` });
    expect(compareExample(sink, 0, wrong, answeredOutcome("my-sink", wrong, result, undefined, varying)!).map((m) => [m.kind, m.column, m.actual])).toEqual([["value", column, value]]);
  });
});

describe("beyond the recorded cases: raw strings, Header() and each OTLP signal, endpoint and evaluation alike", () => {
  const HTTP = `/v1/branches/${BRANCH}/sources/more-http`;
  const OTLP = `/v1/branches/${BRANCH}/sources/more-otlp`;
  const httpColumns: MappingColumn[] = [
    { type: "datetime", name: "at" },
    { type: "headers", name: "headers" },
    { type: "path", name: "user", path: "user.id", rawString: true },
    { type: "path", name: "count", path: "count", rawString: true },
    { type: "path", name: "missing", path: "nope", defaultValue: "none", rawString: true },
    tpl("summary", "Body('user.id') + ' did ' + Body('action', 'nothing')", true),
    tpl("agent", "Header('X-Client', 'unknown')", true),
    tpl("quoted", "Body('user.id')"),
  ];
  // Record keys as the service flattens each signal (source/type/otlpsource/flatten_logs.go, flatten_metrics.go, flatten_traces.go).
  const signals = {
    logs: { severity_text: "INFO", body: "started", attributes: { "user.id": "u-1" } },
    metrics: { metric_name: "cpu.usage", metric_type: "gauge", value: 0.25, attributes: { host: "a" } },
    traces: { trace_id: "0af7651916cd43dd8448eb211c80319c", span_id: "b7ad6b7169203331", name: "GET /", kind: "Server", attributes: {} },
  } as const;
  const otlpColumns = (signal: keyof typeof signals): MappingColumn[] => [
    { type: "datetime", name: "at" },
    { type: "body", name: "record" },
    tpl("what", signal === "logs" ? "Body('body')" : signal === "metrics" ? "Body('metric_name') + '=' + Body('value')" : "Body('name')", true),
  ];

  beforeAll(async () => {
    await task("POST", `/v1/branches/${BRANCH}/sources`, { sourceId: "more-http", name: "More HTTP", type: "http" });
    await task("POST", `${HTTP}/sinks`, { sinkId: "actions", ...sinkBody("Actions", "in.c-more.actions", httpColumns) });
    await task("POST", `/v1/branches/${BRANCH}/sources`, { sourceId: "more-otlp", name: "More OTLP", type: "otlp" });
    for (const signal of Object.keys(signals) as Array<keyof typeof signals>) {
      await task("POST", `${OTLP}/sinks`, { sinkId: signal, ...sinkBody(signal, `in.c-more.${signal}`, otlpColumns(signal), [signal]) });
    }
  });

  it.each<[string, Row]>([
    ["without the header", { "Content-Type": "application/json" }],
    ["with the header", { "Content-Type": "application/json", "X-Client": "web/1.2" }],
  ])("an HTTP event %s: raw strings of paths and templates, a default, Header()", async (_what, headers) => {
    const payload = { user: { id: "u-1" }, action: "signup", count: 3 };
    const res = await api("POST", `${HTTP}/test`, { body: JSON.stringify(payload), headers });
    expect(res.status, res.text).toBe(200);
    const answered = rowOf(res.body as StreamTestResult, "actions");
    expect(answered).toMatchObject({ user: "u-1", count: "3", missing: "none", summary: "u-1 did signup", agent: headers["X-Client"] ?? "unknown", quoted: '"u-1"' });
    const seen = JSON.parse(answered.headers ?? "{}") as Row;
    const outcome = evaluateExample({ sourceType: "http", columns: httpColumns }, { payload, headers: seen, expect: {} }, { receivedAt: Date.parse(answered.at ?? ""), remoteAddress: "127.0.0.1" });
    expect(outcome.kind === "row" && outcome.row).toEqual(answered);
  });

  it.each(Object.keys(signals) as Array<keyof typeof signals>)("an OTLP %s record: only the sink of its signal writes, as the evaluation does", async (signal) => {
    const record = signals[signal];
    const res = await api("POST", `${OTLP}/test?signal=${signal}`, { json: record });
    expect(res.status, res.text).toBe(200);
    const result = res.body as StreamTestResult;
    expect(result.tables.map((t) => t.sinkId)).toEqual([signal]);
    const answered = rowOf(result, signal);
    for (const other of Object.keys(signals) as Array<keyof typeof signals>) {
      const sink: ExampleSink = { sourceType: "otlp", columns: otlpColumns(other), allowedSignals: [other] };
      const example: SinkExample = { signal, record, expect: {} };
      const outcome = evaluateExample(sink, example, { receivedAt: Date.parse(answered.at ?? ""), remoteAddress: "127.0.0.1" });
      if (other === signal) expect(outcome.kind === "row" && outcome.row).toEqual(answered);
      else {
        expect(outcome).toEqual({ kind: "omitted", signal, allowedSignals: [other] });
        // The provider reads a sink missing from an OTLP answer as omitted.
        expect(answeredOutcome(other, example, result, [other], [])).toEqual({ kind: "omitted", signal, allowedSignals: [other] });
      }
    }
    expect(answered.what).toBe(signal === "logs" ? "started" : signal === "metrics" ? "cpu.usage=0.25" : "GET /");
  });
});
