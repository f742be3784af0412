// One implementation of the Stream mapping: the emulator's ingestion and test endpoint write the
// rows that a sink's examples are checked against (keboola/stream-examples.ts). The same event is
// sent to the test endpoint and to the ingestion URL, and evaluated as an example with the headers
// and the time each endpoint saw (read back from its headers and datetime columns): every column
// but the uuid is the same text.
import { beforeAll, describe, expect, it } from "vitest";
import { getTable } from "../../emulator/storage/tables";
import { evaluateExample, type ExampleSink, type SinkExample } from "../../keboola/stream-examples";
import type { MappingColumn } from "../../keboola/stream-mapping";
import { call } from "./helpers";
import { useStreamEmulator } from "./stream-harness";

const { emulator, api, task: run } = useStreamEmulator();

const tpl = (name: string, content: string, rawString = false): MappingColumn => ({ type: "template", name, ...(rawString ? { rawString } : {}), template: { language: "jsonnet", content } });

const COLUMNS: MappingColumn[] = [
  { type: "uuid", name: "id" },
  { type: "datetime", name: "at" },
  { type: "ip", name: "ip" },
  { type: "body", name: "body" },
  { type: "headers", name: "headers" },
  { type: "path", name: "user", path: "user.name" },
  { type: "path", name: "userRaw", path: "user.name", rawString: true },
  { type: "path", name: "second", path: "list[1]" },
  { type: "path", name: "fallback", path: "missing", defaultValue: "none" },
  tpl("tags", "Body('tags')"),
  tpl("header", "Header('X-Test') + '/' + Ip()", true),
  tpl("now", "Now()", true),
  tpl("all", "{ body: Body(), n: std.length(HeaderStr()) > 0 }"),
];

const sinkBody = (name: string, tableId: string, columns: MappingColumn[], allowedSignals?: string[]) => ({
  name,
  type: "table",
  ...(allowedSignals ? { allowedSignals } : {}),
  table: { type: "keboola", tableId, mapping: { columns } },
});

type Row = Record<string, string>;

/** What the shared evaluation writes for an event, given the headers and time an endpoint saw. */
function evaluated(sink: ExampleSink, example: SinkExample, seen: Row): Row {
  const example2 = { ...example, headers: JSON.parse(seen.headers ?? "{}") as Record<string, string> };
  const outcome = evaluateExample(sink, example2, { receivedAt: Date.parse(seen.at ?? ""), remoteAddress: "127.0.0.1" });
  if (outcome.kind !== "row") throw new Error(`expected a row: ${JSON.stringify(outcome)}`);
  return outcome.row;
}

const withoutId = ({ id, ...rest }: Row): Row => {
  expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  return rest;
};

describe("the emulator and a sink's examples map an event alike", () => {
  const SOURCE = "/v1/branches/default/sources/same";
  const sink: ExampleSink = { sourceType: "http", columns: COLUMNS };
  let url = "";

  beforeAll(async () => {
    await run("POST", "/v1/branches/default/sources", { name: "Same", type: "http" });
    await run("POST", `${SOURCE}/sinks`, sinkBody("Rows", "in.c-same.rows", COLUMNS));
    url = (await api("GET", SOURCE)).body.http.url;
  });

  const testEndpointRow = async (body: string, headers: Record<string, string>): Promise<Row> => {
    const res = await api("POST", `${SOURCE}/test`, { body, headers });
    expect(res.status, res.text).toBe(200);
    return Object.fromEntries(res.body.tables[0].rows[0].columns.map((c: { name: string; value: string }) => [c.name, c.value]));
  };

  const ingestedRow = async (body: string, headers: Record<string, string>): Promise<Row> => {
    const res = await call(url, "POST", "", { body, headers });
    expect(res.status, res.text).toBe(200);
    const table = getTable(emulator().context, 101, "in.c-same.rows");
    const values = table?.rows.at(-1) ?? [];
    return Object.fromEntries((table?.columns ?? []).map((name, i) => [name, String(values[i])]));
  };

  it.each([
    ["a JSON body", '{"user":{"name":"Ann <a&b>"},"list":[1,{"x":2.50}],"tags":["a","b"]}', { "Content-Type": "application/json", "X-Test": "t" }],
    ["a form body", "user[name]=Ann&list[]=1&list[]=2&tags[]=a", { "Content-Type": "application/x-www-form-urlencoded", "X-Test": "f" }],
  ])("%s, through the test endpoint and through ingestion", async (_what, body, headers) => {
    const example: SinkExample = { payload: body, expect: {} };
    const tested = await testEndpointRow(body, headers);
    expect(withoutId(evaluated(sink, example, tested))).toEqual(withoutId(tested));
    const ingested = await ingestedRow(body, headers);
    expect(withoutId(evaluated(sink, example, ingested))).toEqual(withoutId(ingested));
    // Both endpoints saw the same event (only their own headers and times differ).
    expect(tested.body).toBe(body);
    expect(ingested.body).toBe(body);
  });

  it("a record the mapping refuses is refused alike, with the service's message", async () => {
    const body = '{"list":[1]}';
    const res = await api("POST", `${SOURCE}/test`, { body, headers: { "Content-Type": "application/json" } });
    expect(res.status).toBe(422);
    const outcome = evaluateExample(sink, { payload: body, headers: { "Content-Type": "application/json" }, expect: {} });
    if (outcome.kind !== "refused") throw new Error(`expected a refusal: ${JSON.stringify(outcome)}`);
    expect(outcome.failures[0]?.message).toBe(res.body.message);
    expect(outcome.failures[0]?.error).toBe('path "user.name" not found in the body');
    const ingested = await call(url + "?verbose=true", "POST", "", { body, headers: { "Content-Type": "application/json" } });
    expect(ingested.status).toBe(500);
    expect(ingested.body.sources[0].sinks[0].message).toMatch(/^Cannot convert column .* to CSV value:\n- Path "user\.name" not found in the body\.$/);
  });
});

describe("the emulator's OTLP test endpoint and an OTLP example map a record alike", () => {
  const OTLP = "/v1/branches/default/sources/same-otlp";
  const columns: MappingColumn[] = [
    { type: "datetime", name: "at" },
    { type: "headers", name: "headers" },
    { type: "body", name: "body" },
    { type: "path", name: "value", path: "value" },
    tpl("name", "Body('metric_name')", true),
    tpl("host", "Body('attributes').host + ' ' + BodyStr()", true),
  ];

  beforeAll(async () => {
    await run("POST", "/v1/branches/default/sources", { name: "Same OTLP", type: "otlp" });
    await run("POST", `${OTLP}/sinks`, sinkBody("Metrics", "in.c-same.metrics", columns, ["metrics"]));
    await run("POST", `${OTLP}/sinks`, sinkBody("Logs", "in.c-same.logs", [{ type: "body", name: "body" }], ["logs"]));
  });

  it("the sinks that take the signal write the same row; the others leave it out", async () => {
    const record = { metric_name: "cpu", value: 0.5, attributes: { host: "a<b" } };
    const res = await api("POST", `${OTLP}/test?signal=metrics`, { json: record });
    expect(res.status, res.text).toBe(200);
    expect(res.body.tables.map((t: { sinkId: string }) => t.sinkId)).toEqual(["metrics"]);
    const tested: Row = Object.fromEntries(res.body.tables[0].rows[0].columns.map((c: { name: string; value: string }) => [c.name, c.value]));
    const metrics: ExampleSink = { sourceType: "otlp", columns, allowedSignals: ["metrics"] };
    expect(evaluated(metrics, { signal: "metrics", record, expect: {} }, tested)).toEqual(tested);
    const logs: ExampleSink = { sourceType: "otlp", columns: [{ type: "body", name: "body" }], allowedSignals: ["logs"] };
    expect(evaluateExample(logs, { signal: "metrics", record, expect: {} }).kind).toBe("omitted");
  });
});
