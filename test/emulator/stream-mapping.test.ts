// The stream emulator's record mapping: the test endpoint (every column type, OTLP signals,
// mapping errors) and ingestion into the destination tables.
import { beforeAll, describe, expect, it } from "vitest";
import { getTable } from "../../emulator/storage/tables";
import { call } from "./helpers";
import { useStreamEmulator } from "./stream-harness";

const { emulator, api, task: run } = useStreamEmulator();

const sink = (name: string, tableId: string, columns: unknown[], extra: Record<string, unknown> = {}) => ({
  name,
  type: "table",
  ...extra,
  table: { type: "keboola", tableId, mapping: { columns } },
});

const ALL_COLUMNS = [
  { type: "uuid", name: "id" },
  { type: "datetime", name: "datetime" },
  { type: "ip", name: "ip" },
  { type: "body", name: "body" },
  { type: "headers", name: "headers" },
  { type: "path", name: "path", path: "key" },
  { type: "path", name: "raw", path: "key", rawString: true },
  { type: "path", name: "nested", path: "my.list[1]" },
  { type: "path", name: "fallback", path: "missing", defaultValue: "unknown" },
  { type: "path", name: "fallbackRaw", path: "missing", defaultValue: "unknown", rawString: true },
  { type: "template", name: "jsonnet", template: { language: "jsonnet", content: "Body('my.value')" } },
  { type: "template", name: "jsonnetRaw", rawString: true, template: { language: "jsonnet", content: 'Body("key") + "-" + Header("X-Test")' } },
];

const SOURCE = "/v1/branches/default/sources/events";

describe("test endpoint", () => {
  beforeAll(async () => {
    await run("POST", "/v1/branches/default/sources", { name: "Events", type: "http" });
    await run("POST", `${SOURCE}/sinks`, sink("All Columns", "in.c-events.all", ALL_COLUMNS));
  });

  it("maps a payload through every column type", async () => {
    const body = '{"my":{"value":42,"list":[1,{"b":2}]},"key":"value"}';
    const res = await api("POST", `${SOURCE}/test`, { body, headers: { "Content-Type": "application/json", "X-Test": "t" } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.projectId).toBe(4242);
    expect(res.body.branchId).toBe(101);
    expect(res.body.sourceId).toBe("events");
    expect(res.body.tables).toHaveLength(1);
    const table = res.body.tables[0];
    expect(table.sinkId).toBe("all-columns");
    expect(table.tableId).toBe("in.c-events.all");
    expect(table.rows).toHaveLength(1);
    const values = Object.fromEntries(table.rows[0].columns.map((c: any) => [c.name, c.value]));
    expect(table.rows[0].columns.map((c: any) => c.name)).toEqual(ALL_COLUMNS.map((c) => c.name));
    expect(values.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(values.datetime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(values.ip).toBe("127.0.0.1");
    expect(values.body).toBe(body);
    const headers = JSON.parse(values.headers);
    expect(Object.keys(headers)).toEqual([...Object.keys(headers)].sort());
    expect(headers["Content-Type"]).toBe("application/json");
    expect(headers["X-Test"]).toBe("t");
    // The service's own token and Go's Host are not part of the record.
    expect(headers).not.toHaveProperty("X-Storageapi-Token");
    expect(headers).not.toHaveProperty("Host");
    expect(values.path).toBe('"value"');
    expect(values.raw).toBe("value");
    expect(values.nested).toBe('{"b":2}');
    expect(values.fallback).toBe('"unknown"');
    expect(values.fallbackRaw).toBe("unknown");
    expect(values.jsonnet).toBe("42");
    expect(values.jsonnetRaw).toBe("value-t");
  });

  it("answers 422 when a column cannot be mapped", async () => {
    const res = await api("POST", `${SOURCE}/test`, { json: { my: { value: 42, list: [1, 2] } } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      statusCode: 422,
      error: "stream.api.unprocessableContent",
      message: 'Invalid value for column "path": path "key" not found in the body.',
    });
    // A JSON body sent with another content type is not parsed as JSON.
    const text = await api("POST", `${SOURCE}/test`, { body: '{"key":"value"}', headers: { "Content-Type": "text/plain" } });
    expect(text.status).toBe(422);
    expect(text.body.message).toBe(
      'Invalid value for column "path": cannot parse request body:\n- unsupported content type "text/plain", supported types: application/json and application/x-www-form-urlencoded.',
    );
  });

  it("maps form bodies, includes disabled sinks and needs an existing source", async () => {
    await run("POST", "/v1/branches/default/sources", { name: "Forms", type: "http" });
    await run("POST", "/v1/branches/default/sources/forms/sinks", sink("Form Sink", "in.c-forms.t", [{ type: "path", name: "a", path: "a" }]));
    await run("PUT", "/v1/branches/default/sources/forms/sinks/form-sink/disable");
    const res = await api("POST", "/v1/branches/default/sources/forms/test", { form: { a: "1", b: "2" } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.tables[0].rows[0].columns).toEqual([{ name: "a", value: '"1"' }]);

    const missing = await api("POST", "/v1/branches/default/sources/nope/test", { json: {} });
    expect(missing.body).toEqual({ statusCode: 404, error: "stream.api.sourceNotFound", message: 'Source "nope" not found in the branch.' });
  });

  it("maps an OTLP record through the sinks that accept its signal", async () => {
    await run("POST", "/v1/branches/default/sources", { name: "My OTLP Source", type: "otlp" });
    const otlp = "/v1/branches/default/sources/my-otlp-source";
    await run("POST", `${otlp}/sinks`, sink("Logs", "in.c-otlp.logs", [
      { type: "template", name: "severity", template: { language: "jsonnet", content: "Body('severity_text')" } },
      { type: "template", name: "service", template: { language: "jsonnet", content: "Body('resource')['service.name']" } },
    ], { allowedSignals: ["logs"] }));
    await run("POST", `${otlp}/sinks`, sink("Metrics", "in.c-otlp.metrics", [{ type: "body", name: "body" }], { allowedSignals: ["metrics"] }));
    await run("POST", `${otlp}/sinks`, sink("Everything", "in.c-otlp.all", [{ type: "path", name: "name", path: "name", defaultValue: "", rawString: true }]));

    const record = { severity_text: "WARN", body: "disk space low", resource: { "service.name": "storage-service" } };
    const logs = await api("POST", `${otlp}/test`, { json: record });
    expect(logs.status, logs.text).toBe(200);
    expect(logs.body.tables.map((t: any) => t.sinkId)).toEqual(["everything", "logs"]);
    expect(logs.body.tables[1].rows[0].columns).toEqual([
      { name: "severity", value: '"WARN"' },
      { name: "service", value: '"storage-service"' },
    ]);

    const metrics = await api("POST", `${otlp}/test?signal=metrics`, { json: { name: "cpu" } });
    expect(metrics.body.tables.map((t: any) => t.sinkId)).toEqual(["everything", "metrics"]);
    // The record's text is json-iterator's marshal of its orderedmap, a newline after each key and
    // value (keboola-as-code recordctx/otlp.go bodyBytesWithoutLock; keboola/go-utils
    // pkg/orderedmap/json.go; json-iterator/go reflect_marshaler.go).
    expect(metrics.body.tables[1].rows[0].columns).toEqual([{ name: "body", value: '{"name"\n:"cpu"\n}' }]);

    // Numbers are Go's float64 and a repeated key keeps its last value, at its last place (the record
    // is decoded into an orderedmap); the map is the body whatever the Content-Type (recordctx/otlp.go BodyMap).
    const decoded = await api("POST", `${otlp}/test?signal=metrics`, { body: '{"name":"cpu","v":1.50,"name":"mem"}', headers: { "Content-Type": "text/plain" } });
    expect(decoded.status, decoded.text).toBe(200);
    expect(decoded.body.tables[0].rows[0].columns).toEqual([{ name: "name", value: "mem" }]);
    expect(decoded.body.tables[1].rows[0].columns).toEqual([{ name: "body", value: '{"v"\n:1.5\n,"name"\n:"mem"\n}' }]);
    const logsAsText = await api("POST", `${otlp}/test`, { body: JSON.stringify(record), headers: { "Content-Type": "text/plain" } });
    expect(logsAsText.body.tables[1].rows[0].columns).toEqual([
      { name: "severity", value: '"WARN"' },
      { name: "service", value: '"storage-service"' },
    ]);

    const missing = await api("POST", `${otlp}/test`, { json: { severity_text: "ERROR" } });
    expect(missing.status).toBe(422);
    expect(missing.body.message).toBe('Invalid value for column "service": path "resource" not found in the body.');

    const invalid = await api("POST", `${otlp}/test?signal=events`, { json: {} });
    expect(invalid.body).toEqual({
      statusCode: 400,
      error: "stream.api.invalidEnumValue",
      message: 'Value of signal must be one of "logs", "metrics", "traces" but got value "events".',
    });
  });
});

describe("ingestion", () => {
  let url: string;
  beforeAll(async () => {
    await run("POST", "/v1/branches/default/sources", { name: "Ingest", type: "http" });
    await run("POST", "/v1/branches/default/sources/ingest/sinks", sink("Raw", "in.c-ingest.raw", [
      { type: "datetime", name: "received" },
      { type: "path", name: "user", path: "user.name", rawString: true },
      { type: "body", name: "body" },
    ]));
    url = (await api("GET", "/v1/branches/default/sources/ingest")).body.http.url;
  });

  it("appends each accepted record to the table at once and answers OK", async () => {
    const res = await call(url, "POST", "", { json: { user: { name: "Ann" } } });
    expect(res.status).toBe(200);
    expect(res.text).toBe("OK");
    expect(res.headers.get("Server")).toBe("Keboola/Stream/HTTPSource");
    const table = getTable(emulator().context, 101, "in.c-ingest.raw");
    expect(table?.columns).toEqual(["received", "user", "body"]);
    expect(table?.rows.at(-1)).toEqual([expect.stringMatching(/Z$/), "Ann", '{"user":{"name":"Ann"}}']);

    const verbose = await call(url + "?verbose=true", "POST", "", { json: { user: { name: "Bob" } } });
    expect(verbose.status).toBe(200);
    expect(verbose.body).toEqual({
      statusCode: 200,
      message: "Successfully written to 1/1 sinks.",
      sources: [
        {
          projectId: 4242,
          sourceId: "ingest",
          branchId: 101,
          statusCode: 200,
          message: "Successfully written to 1/1 sinks.",
          sinks: [{ sinkId: "raw", statusCode: 200, message: "processed" }],
        },
      ],
    });
    expect(table?.rows).toHaveLength(2);
  });

  it("reports a record that cannot be mapped", async () => {
    const res = await call(url, "POST", "", { json: { other: 1 } });
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({
      statusCode: 500,
      error: "stream.in.writeFailed",
      message: "Written to 0/1 sinks.",
      sources: [{ statusCode: 500, error: "stream.in.writeFailed", sinks: [{ sinkId: "raw", statusCode: 500, error: "stream.in.genericError" }] }],
    });
    expect(res.body.sources[0].sinks[0].message).toMatch(/^Cannot convert column .* to CSV value:\n- Path "user\.name" not found in the body\.$/);
    expect(getTable(emulator().context, 101, "in.c-ingest.raw")?.rows).toHaveLength(2);
  });

  it("refuses wrong secrets, other methods and disabled sources", async () => {
    const wrong = await call(url.replace(/[^/]+$/, "x".repeat(48)), "POST", "", { json: {} });
    expect(wrong.status).toBe(404);
    expect(wrong.body).toEqual({
      statusCode: 404,
      error: "stream.in.noSourceFound",
      message: "The specified combination of projectID, sourceID and secret was not found.",
    });
    const get = await call(url, "GET", "");
    expect(get.status).toBe(405);
    expect(get.headers.get("Allow")).toBe("OPTIONS, POST");
    const other = await call(emulator().urls.streamIn, "GET", "/foo");
    expect(other.body).toEqual({
      statusCode: 404,
      error: "stream.in.routeNotFound",
      message: "Not found, please send data using POST /stream/<projectID>/<sourceID>/<secret>",
    });

    await run("PUT", "/v1/branches/default/sources/ingest/disable");
    const disabled = await call(url, "POST", "", { json: { user: { name: "Cid" } } });
    expect(disabled.status).toBe(404);
    expect(disabled.body).toEqual({ statusCode: 404, error: "stream.in.disabledSource", message: "The specified source is disabled in all branches." });
    await run("PUT", "/v1/branches/default/sources/ingest/enable");
  });

  it("answers 202 when the records are not waited for, and skips disabled sinks", async () => {
    await run("PATCH", "/v1/branches/default/sources/ingest/settings", { settings: [{ key: "storage.level.local.encoding.sync.wait", value: false }] });
    const accepted = await call(url + "?verbose=true", "POST", "", { json: { user: { name: "Dan" } } });
    expect(accepted.status).toBe(202);
    expect(accepted.body.sources[0].sinks).toEqual([{ sinkId: "raw", statusCode: 202, message: "accepted" }]);

    await run("PUT", "/v1/branches/default/sources/ingest/sinks/raw/disable");
    const none = await call(url + "?verbose=true", "POST", "", { json: { user: { name: "Eve" } } });
    expect(none.status).toBe(200);
    expect(none.body.message).toBe("No enabled sink found.");
    expect(getTable(emulator().context, 101, "in.c-ingest.raw")?.rows.map((r) => r[1])).toEqual(["Ann", "Bob", "Dan"]);
  });
});
