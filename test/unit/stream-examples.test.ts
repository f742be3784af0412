// A sink's examples evaluated with the Stream service's mapping rules (keboola/stream-examples.ts),
// against what the real service answered: the recorded cases of keboola-as-code's test endpoint
// (test/stream/api/source/test-mapping and test/stream/api/source/otlp-test-mapping: the sink of
// 003-create-sink, the request bodies of 005/006 and their expected-response.json, whose "%s"
// and "%x" are go-utils wildcards) and its column renderer's unit tests
// (internal/pkg/service/stream/mapping/table/column/renderer_test.go).
import { describe, expect, it } from "vitest";
import { wildcardsMatch } from "../../scripts/lib/go-wildcards";
import {
  answeredOutcome,
  checkExamples,
  compareExample,
  evaluateExample,
  exampleMessage,
  exampleRequest,
  exampleRowsBeforeAfter,
  otherEnvironment,
  parseRefusal,
  sinkExampleSchema,
  sinkExamplesSchema,
  type ExampleEnvironment,
  type ExampleOutcome,
  type ExampleSink,
  type SinkExample,
} from "../../keboola/stream-examples";
import type { MappingColumn } from "../../keboola/stream-mapping";
import { signalAccepted } from "../../keboola/stream";

const ENV: ExampleEnvironment = { receivedAt: Date.UTC(2024, 5, 1, 12, 0, 0, 0), remoteAddress: "10.1.2.3" };

const http = (columns: MappingColumn[]): ExampleSink => ({ sourceType: "http", columns });
const template = (name: string, content: string, rawString = false): MappingColumn => ({ type: "template", name, ...(rawString ? { rawString } : {}), template: { language: "jsonnet", content } });

function row(outcome: ExampleOutcome): Record<string, string> {
  if (outcome.kind !== "row") throw new Error(`expected a row, got ${JSON.stringify(outcome)}`);
  return outcome.row;
}

/** The recorded answer's columns, matched as the Go harness matches them (wildcards). */
function expectRecordedRow(actual: Record<string, string>, recorded: Array<{ name: string; value: string }>): void {
  expect(Object.keys(actual)).toEqual(recorded.map((c) => c.name));
  for (const c of recorded) expect({ column: c.name, matches: wildcardsMatch(c.value, actual[c.name] ?? "") }).toEqual({ column: c.name, matches: true });
}

describe("recorded: test/stream/api/source/test-mapping", () => {
  // 003-create-sink/request.json
  const sink = http([
    { type: "datetime", name: "datetime" },
    { type: "headers", name: "headers" },
    { type: "body", name: "body" },
    { type: "path", name: "path", path: "key" },
    template("jsonnet", "Body('my.value')"),
  ]);
  // What the Go harness sends (go-resty: Go's JSON of the body map, keys sorted; its own headers);
  // the endpoint drops X-StorageApi-Token (api/service/source.go TestSource).
  const headers = (body: string) => ({
    Accept: "application/json",
    "Accept-Encoding": "gzip",
    "Content-Length": String(body.length),
    "Content-Type": "application/json",
    "User-Agent": "go-resty/2.16.5 (https://github.com/go-resty/resty)",
  });

  it("005-test-mapping: a missing path refuses the record with the service's 422 message", () => {
    const payload = '{"my":{"value":42}}';
    const outcome = evaluateExample(sink, { payload, headers: headers(payload), expect: {} }, ENV);
    expect(outcome.kind).toBe("refused");
    if (outcome.kind !== "refused") return;
    // 005-test-mapping/expected-response.json (422 stream.api.unprocessableContent)
    expect(outcome.failures[0]?.message).toBe('Invalid value for column "path": path "key" not found in the body.');
    expect(outcome.failures.map((f) => f.column)).toEqual(["path"]);
    expect(outcome.row.jsonnet).toBe("42");
  });

  it("006-test-mapping: every column as the service wrote it", () => {
    const payload = '{"key":"value","my":{"value":42}}';
    const actual = row(evaluateExample(sink, { payload, headers: headers(payload), expect: {} }, ENV));
    // 006-test-mapping/expected-response.json
    expectRecordedRow(actual, [
      { name: "datetime", value: "%s" },
      {
        name: "headers",
        value: '{"Accept":"application/json","Accept-Encoding":"gzip","Content-Length":"%x","Content-Type":"application/json","User-Agent":"go-resty/%x.%x.%x (https://github.com/go-resty/resty)"}',
      },
      { name: "body", value: '{"key":"value","my":{"value":42}}' },
      { name: "path", value: '"value"' },
      { name: "jsonnet", value: "42" },
    ]);
    expect(actual.datetime).toBe("2024-06-01T12:00:00.000Z");
  });

  it("an object payload is sent as its JSON with Content-Type: application/json", () => {
    const actual = row(evaluateExample(sink, { payload: { key: "value", my: { value: 42 } }, expect: {} }, ENV));
    expect(actual).toMatchObject({ headers: '{"Content-Type":"application/json"}', body: '{"key":"value","my":{"value":42}}', path: '"value"', jsonnet: "42" });
  });
});

describe("recorded: test/stream/api/source/otlp-test-mapping", () => {
  // 003-create-sink/request.json (an OTLP source of 001-create-source; the sink takes every signal)
  const sink: ExampleSink = {
    sourceType: "otlp",
    columns: [
      { type: "datetime", name: "datetime" },
      template("severity", "Body('severity_text')"),
      template("message", "Body('body')"),
      template("service", "Body('resource')['service.name']"),
      template("otlp_timestamp", "Body('timestamp')"),
      template("user_id", "Body('attributes')['user.id']"),
    ],
  };

  it("005-test-mapping-logs: a log record's row", () => {
    const record = { severity_text: "WARN", body: "disk space low", timestamp: "2024-06-01T12:00:00Z", resource: { "service.name": "storage-service" }, attributes: { "user.id": "u-42" } };
    expectRecordedRow(row(evaluateExample(sink, { signal: "logs", record, expect: {} }, ENV)), [
      { name: "datetime", value: "%s" },
      { name: "severity", value: '"WARN"' },
      { name: "message", value: '"disk space low"' },
      { name: "service", value: '"storage-service"' },
      { name: "otlp_timestamp", value: '"2024-06-01T12:00:00Z"' },
      { name: "user_id", value: '"u-42"' },
    ]);
  });

  it("006-test-mapping-resource: a record without resource is refused by the template that reads it", () => {
    const record = { severity_text: "ERROR", body: "disk full", timestamp: "2024-06-01T12:01:00Z", attributes: { "user.id": "u-99" } };
    const outcome = evaluateExample(sink, { signal: "logs", record, expect: {} }, ENV);
    expect(outcome.kind).toBe("refused");
    if (outcome.kind !== "refused") return;
    expect(outcome.failures.map((f) => [f.column, f.message])).toEqual([["service", 'Invalid value for column "service": path "resource" not found in the body.']]);
  });
});

describe("the column renderer's cases (column/renderer_test.go)", () => {
  const json = { "Content-Type": "application/json" };
  const form = { "Content-Type": "application/x-www-form-urlencoded" };
  const one = (col: MappingColumn, payload: string, headers: Record<string, string>) => evaluateExample(http([col]), { payload, headers, expect: {} }, ENV);
  const value = (col: MappingColumn, payload: string, headers: Record<string, string>) => row(one(col, payload, headers))[col.name];

  it("path columns: JSON values, raw strings, defaults", () => {
    const body = '{"key1":[{"key2":"val2"},{"key3":"val3"}]}';
    expect(value({ type: "path", name: "c", path: "key1[1].key3" }, body, json)).toBe('"val3"'); // TestRenderer_Path_Json_ArrayIndex
    expect(value({ type: "path", name: "c", path: "key1[1].key3", rawString: true }, body, json)).toBe("val3"); // ..._RawString
    expect(value({ type: "path", name: "c", path: "key1.invalid", defaultValue: "123" }, body, json)).toBe('"123"'); // ..._UndefinedKey_DefaultValue
    expect(value({ type: "path", name: "c", path: "key1.invalid", defaultValue: "123", rawString: true }, body, json)).toBe("123"); // ..._DefaultValue_RawString
    expect(value({ type: "path", name: "c", path: "key1.key2" }, '{"key1":{"key2":42.1},"key3":"val3"}', json)).toBe("42.1"); // TestRenderer_Path_Json_Float
    expect(value({ type: "path", name: "c", path: "key1" }, "key1=bar1&key2[]=bar2&key2[]=bar3", form)).toBe('"bar1"'); // TestRenderer_Path_FormData_Scalar
    expect(value({ type: "path", name: "c", path: "key1", rawString: true }, "key1=42", form)).toBe("42"); // TestRenderer_Path_FormData_RawString
    const missing = one({ type: "path", name: "c", path: "key1[1]" }, '{"key1":[{"key2":"val2","key3":"val3"}]}', json);
    expect(missing.kind === "refused" && missing.failures[0]?.error).toBe('path "key1[1]" not found in the body'); // ..._UndefinedIndex_Error
  });

  it("template columns: raw strings, headers in any case, defaults", () => {
    const body = '{"key1":[{"key2":"val2"},{"key3":"val3"}]}';
    expect(value(template("c", "Body('key1[1].key3')"), body, json)).toBe('"val3"'); // TestRenderer_Template_Json_ArrayIndex
    expect(value(template("c", "Body('key1[1].key3')", true), body, json)).toBe("val3"); // ..._RawString
    expect(value(template("c", "Body('key1.invalid', 123)"), body, json)).toBe("123"); // ..._UndefinedKey_DefaultValue
    const headers = { ...json, "Content-Encoding": "gzip" };
    expect(value(template("c", "Header('Content-Encoding')"), "", headers)).toBe('"gzip"'); // TestRenderer_Template_Headers
    expect(value(template("c", "Header('CONTENT-ENCODING')"), "", headers)).toBe('"gzip"'); // TestRenderer_Template_Headers_Case
    expect(value({ type: "headers", name: "h" }, "", { Foo1: "bar1", Foo2: "bar2" })).toBe('{"Foo1":"bar1","Foo2":"bar2"}'); // TestRenderer_Headers
    expect(value({ type: "body", name: "b" }, "a,b,c", {})).toBe("a,b,c"); // TestRenderer_Body
  });

  it("uuid, datetime and ip: a version 7 uuid, the receive time in UTC with milliseconds, the client's IP", () => {
    const sink = http([{ type: "uuid", name: "id" }, { type: "datetime", name: "at" }, { type: "ip", name: "ip" }]);
    const actual = row(evaluateExample(sink, { payload: "", expect: {} }, ENV));
    expect(actual.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/); // TestRenderer_UUID
    expect(actual.at).toBe("2024-06-01T12:00:00.000Z"); // TestRenderer_DateTime
    expect(actual.ip).toBe("10.1.2.3"); // TestRenderer_IP
    // internal/pkg/utils/ip/ip.go: X-Real-IP, then X-Forwarded-For, name the client.
    expect(row(evaluateExample(sink, { payload: "", headers: { "x-forwarded-for": "1.1.1.3:53000" }, expect: {} }, ENV)).ip).toBe("1.1.1.3");
  });
});

describe("OTLP signals and a sink's allowedSignals", () => {
  // Record keys as the service flattens them (source/type/otlpsource/flatten_metrics.go, flatten_traces.go, flatten_logs.go).
  const sink: ExampleSink = {
    sourceType: "otlp",
    allowedSignals: ["metrics", "traces"],
    columns: [
      template("name", "std.get(Body(), 'metric_name', std.get(Body(), 'name', null))", true),
      { type: "path", name: "value", path: "value", defaultValue: "" },
      { type: "body", name: "body" },
    ],
  };
  const metric = { metric_name: "cpu.usage", metric_type: "gauge", value: 0.25, attributes: { host: "a" } };
  const span = { trace_id: "0af7651916cd43dd8448eb211c80319c", name: "GET /", kind: "Server", attributes: {} };

  it("maps a metric data point and a span, and omits a log record", () => {
    const metrics = row(evaluateExample(sink, { signal: "metrics", record: metric, expect: {} }, ENV));
    expect(metrics).toEqual({ name: "cpu.usage", value: "0.25", body: '{"metric_name"\n:"cpu.usage"\n,"metric_type"\n:"gauge"\n,"value"\n:0.25\n,"attributes"\n:{"host":"a"}\n}' });
    const traces = row(evaluateExample(sink, { signal: "traces", record: span, expect: {} }, ENV));
    expect(traces).toMatchObject({ name: "GET /", value: '""' });
    expect(evaluateExample(sink, { signal: "logs", record: { body: "x" }, expect: {} }, ENV)).toEqual({ kind: "omitted", signal: "logs", allowedSignals: ["metrics", "traces"] });
    // No filter: every signal is taken.
    expect(evaluateExample({ ...sink, allowedSignals: [] }, { signal: "logs", record: { name: "x" }, expect: {} }, ENV).kind).toBe("row");
  });

  it("an OTLP record's Body() does not depend on the Content-Type, and the headers reach Header()", () => {
    const withHeaders: ExampleSink = { sourceType: "otlp", columns: [template("ua", "Header('User-Agent')", true), template("b", "Body('a')")] };
    const actual = row(evaluateExample(withHeaders, { signal: "logs", record: { a: 1 }, headers: { "content-type": "application/x-protobuf", "user-agent": "otel-go/1.0" }, expect: {} }, ENV));
    expect(actual).toEqual({ ua: "otel-go/1.0", b: "1" });
  });
});

describe("comparing an example with its outcome", () => {
  const sink = http([
    { type: "uuid", name: "id" },
    { type: "datetime", name: "at" },
    { type: "ip", name: "ip" },
    { type: "path", name: "user", path: "user.name" },
    { type: "path", name: "userRaw", path: "user.name", rawString: true },
    template("tags", "Body('tags')"),
    template("day", "Now('%Y-%m-%d')", true),
  ]);
  const payload = { user: { name: "Ann" }, tags: ["a", "b"] };

  it("an example that holds has no mismatch: exact text, JSON, shapes, columns left out", () => {
    const example: SinkExample = {
      payload,
      expect: { id: { shape: "uuid" }, at: { shape: "datetime" }, ip: { shape: "ip" }, user: '"Ann"', userRaw: "Ann", tags: { json: ["a", "b"] }, day: { shape: "datetime" } },
    };
    const { outcomes, mismatches } = checkExamples(sink, [example], ENV);
    expect(outcomes[0]?.kind).toBe("row");
    // Now('%Y-%m-%d') is not the service's time format: only that shape fails.
    expect(mismatches).toEqual([{ example: 0, kind: "shape", column: "day", expected: { shape: "datetime" }, actual: "2024-06-01", message: 'column "day": "2024-06-01" is not a UTC time like 2006-01-02T15:04:05.000Z' }]);
    expect(checkExamples(sink, [{ payload, expect: { user: '"Ann"' } }], ENV).mismatches).toEqual([]);
  });

  it("a mismatch names the example, the column, what was expected and what the service writes", () => {
    const examples: SinkExample[] = [
      { payload, expect: {} },
      { payload, expect: { user: "Ann", tags: { json: ["a"] }, id: { shape: "ip" }, missing: "x" } },
    ];
    const { mismatches } = checkExamples(sink, examples, ENV);
    expect(mismatches.map(({ message: _m, ...m }) => m)).toEqual([
      { example: 1, kind: "value", column: "user", expected: "Ann", actual: '"Ann"' },
      { example: 1, kind: "json", column: "tags", expected: { json: ["a"] }, actual: '["a","b"]' },
      { example: 1, kind: "shape", column: "id", expected: { shape: "ip" }, actual: expect.stringMatching(/^[0-9a-f-]{36}$/) },
      { example: 1, kind: "unknown-column", column: "missing", expected: "x" },
    ]);
    expect(mismatches[0]?.message).toBe('column "user": the mapping writes "\\"Ann\\"", expected "Ann"');
    expect(exampleMessage(mismatches[0]!)).toBe('examples[1]: column "user": the mapping writes "\\"Ann\\"", expected "Ann"');
  });

  it("an exact value of a column that differs from record to record is refused, its shape is not", () => {
    const t = new Date(ENV.receivedAt).toISOString();
    const outcome = evaluateExample(sink, { payload, expect: {} }, ENV);
    expect(outcome.kind === "row" && outcome.varying).toEqual(["id", "at", "ip", "day"]);
    const { mismatches } = checkExamples(sink, [{ payload, expect: { at: t, ip: { json: "10.1.2.3" }, day: "2024-06-01" } }], ENV);
    expect(mismatches.map((m) => [m.column, m.kind])).toEqual([
      ["at", "varies"],
      ["ip", "varies"],
      ["day", "varies"],
    ]);
    // A client IP the headers name is known in advance.
    const forwarded = evaluateExample(sink, { payload, headers: { "X-Real-IP": "1.2.3.4" }, expect: {} }, ENV);
    expect(forwarded.kind === "row" && [forwarded.row.ip, forwarded.varying.includes("ip")]).toEqual(["1.2.3.4", false]);
  });

  it("values that read all the headers vary (a client adds its own); a header the example gives does not", () => {
    const headerSink = http([{ type: "headers", name: "all" }, template("str", "HeaderStr()", true), template("one", "Header('X-Api')", true), template("ua", "Header('User-Agent', 'none')", true)]);
    const outcome = evaluateExample(headerSink, { payload: "x", headers: { "x-api": "k1" }, expect: {} }, ENV);
    expect(outcome).toEqual({ kind: "row", row: { all: '{"X-Api":"k1"}', str: "X-Api: k1\n", one: "k1", ua: "none" }, varying: ["all", "str", "ua"] });
    // The example's own header wins over the one the environment's client adds.
    const given = evaluateExample(headerSink, { payload: "x", headers: { "x-api": "k1", "User-Agent": "app/1" }, expect: {} }, { ...ENV, extraHeaders: { "User-Agent": "node" } });
    expect(given.kind === "row" && [given.row.ua, given.varying.includes("ua")]).toEqual(["app/1", false]);
  });

  it("what is sent for an example: the body text, the headers, the signal", () => {
    expect(exampleRequest({ payload: { a: 1 }, expect: {} })).toEqual({ body: '{"a":1}', headers: { "Content-Type": "application/json" } });
    expect(exampleRequest({ payload: { a: 1 }, headers: { "content-type": "application/vnd+json" }, expect: {} })).toEqual({ body: '{"a":1}', headers: { "Content-Type": "application/vnd+json" } });
    expect(exampleRequest({ payload: "a=1", headers: { "content-type": "application/x-www-form-urlencoded" }, expect: {} })).toEqual({ body: "a=1", headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    expect(exampleRequest({ signal: "traces", record: { name: "GET /" }, expect: {} })).toEqual({ body: '{"name":"GET /"}', headers: {}, signal: "traces" });
  });

  it.each(["2024-06-01T12:00:00.000Z", "2024-01-01T00:00:00.000Z", "2024-12-31T23:59:59.999Z", "2024-02-29T11:30:30.500Z", "2023-11-27T22:58:58.998Z"])(
    "the second environment differs in every part of the time (from %s) and in the address",
    (at) => {
      const env = { ...ENV, receivedAt: Date.parse(at) };
      const other = otherEnvironment(env);
      const [a, b] = [new Date(env.receivedAt), new Date(other.receivedAt)];
      for (const part of ["getUTCFullYear", "getUTCMonth", "getUTCDate", "getUTCHours", "getUTCMinutes", "getUTCSeconds", "getUTCMilliseconds"] as const) {
        expect({ part, same: a[part]() === b[part]() }).toEqual({ part, same: false });
      }
      expect(other.remoteAddress).toBe("198.51.100.23");
      expect(otherEnvironment({ ...env, remoteAddress: "198.51.100.23" }).remoteAddress).toBe("203.0.113.7");
    },
  );

  it("the second environment's client adds each of its headers, changed where the first already had it", () => {
    const other = otherEnvironment({ ...ENV, extraHeaders: { Accept: "*/*" } });
    expect(other.extraHeaders).toEqual({
      Accept: "*/*0",
      "Accept-Encoding": "gzip",
      "Content-Length": "1",
      "User-Agent": "example-client/1.0",
      "X-Forwarded-For": "198.51.100.99",
      "X-Example-Client-Header": "1",
    });
  });

  it("an omitted signal: expected, or not", () => {
    const otlp: ExampleSink = { sourceType: "otlp", allowedSignals: ["logs"], columns: [template("m", "Body('body')")] };
    const { mismatches } = checkExamples(
      otlp,
      [
        { signal: "metrics", record: { value: 1 }, expect: "omitted" },
        { signal: "metrics", record: { value: 1 }, expect: { m: "1" } },
        { signal: "logs", record: { body: "x" }, expect: "omitted" },
        { signal: "logs", record: { body: "x" }, expect: { m: '"x"' } },
      ],
      ENV,
    );
    expect(mismatches.map(({ message: _m, ...m }) => m)).toEqual([
      { example: 1, kind: "omitted", actual: "omitted" },
      { example: 2, kind: "not-omitted", expected: "omitted" },
    ]);
    expect(mismatches[0]?.message).toBe('the sink takes only logs records (allowedSignals), so this metrics record is not written; expect "omitted", or allow the signal');
  });

  it("a template error: the service's text, with the line and column where the template says", () => {
    const broken = http([template("a", "local x = 1;\nBody('a') + Invalid"), template("b", "Body(1)"), template("c", "Body('nope')"), { type: "path", name: "d", path: "a" }]);
    const outcome = evaluateExample(broken, { payload: { a: 1 }, expect: {} }, ENV);
    expect(outcome.kind).toBe("refused");
    const { mismatches } = checkExamples(broken, [{ payload: { a: 1 }, expect: { c: '"x"', d: "1" } }], ENV);
    expect(mismatches.map(({ message: _m, ...m }) => m)).toEqual([
      // Does not compile: the 400 of the sink's create, as recorded in test/stream/api/sink/create-012-invalid-jsonnet-template.
      { example: 0, kind: "refused", column: "a", error: "2:13-20 Unknown variable: Invalid", location: { line: 2, column: 13, endLine: 2, endColumn: 20 } },
      // Fails for every record: go-jsonnet's own text (no location in it); the call is found in the template.
      { example: 0, kind: "refused", column: "b", error: "first parameter must be a string", location: { line: 1, column: 1, endLine: 1, endColumn: 8 } },
      { example: 0, kind: "refused", column: "c", expected: '"x"', error: 'path "nope" not found in the body' },
    ]);
    expect(mismatches[0]?.message).toBe('column "a": the service refuses the record: Column "a" template is invalid: 2:13-20 Unknown variable: Invalid. (template line 2, column 13)');
    expect(mismatches[2]?.message).toBe('column "c": the service refuses the record: Invalid value for column "c": path "nope" not found in the body.');
  });

  it("a failing call over several lines is located from its first character to its last", () => {
    const broken = http([template("b", "local x = 1;\n[Body(\n  1\n)]")]);
    const outcome = evaluateExample(broken, { payload: { a: 1 }, expect: {} }, ENV);
    expect(outcome.kind === "refused" && outcome.failures.map((f) => [f.error, f.location])).toEqual([
      ["first parameter must be a string", { line: 2, column: 2, endLine: 4, endColumn: 2 }],
    ]);
  });

  it("an example of the other source type", () => {
    const { mismatches } = checkExamples(http([{ type: "body", name: "b" }]), [{ signal: "logs", record: {}, expect: {} }], ENV);
    expect(mismatches.map((m) => [m.kind, m.message])).toEqual([["wrong-source", "the example is an OTLP record (signal, record), but the sink's source is an HTTP source: give { payload, headers?, expect }"]]);
    const otlp = compareExample({ sourceType: "otlp", columns: [] }, 3, { payload: "x", expect: {} }, { kind: "wrong-source", sourceType: "otlp" });
    expect(otlp[0]?.message).toBe("the example is an HTTP event (payload), but the sink's source is an OTLP source: give { signal, record, expect }");
  });
});

describe("the example schema", () => {
  it("takes both forms and every expectation", () => {
    const examples = [
      { payload: { a: [1, null, { b: true }] }, headers: { "X-A": "1" }, expect: { a: "1", b: { json: { c: [1] } }, c: { shape: "uuid" } } },
      { payload: "a=1", expect: {} },
      { signal: "traces", record: { name: "GET /" }, expect: "omitted" },
    ];
    expect(sinkExamplesSchema.parse(examples)).toEqual(examples);
  });

  it.each([
    [{ payload: { a: 1 }, expect: { x: 5 } }, 'expect.x: must be the exact text of the column (a string), { json: <value> } (its JSON, compared as data) or { shape: "uuid" | "datetime" | "ip" }'],
    [{ payload: { a: 1 }, expect: { x: { shape: "uid" } } }, 'expect.x: must be the exact text of the column (a string), { json: <value> } (its JSON, compared as data) or { shape: "uuid" | "datetime" | "ip" }'],
    [{ payload: 1, expect: {} }, "payload: must be an object (sent as its JSON, with Content-Type: application/json unless headers set another) or a string (the raw body)"],
    [{ signal: "logs", record: {}, expect: "skip" }, 'expect: must be an object of column name to expected value, or "omitted" (the sink does not take this signal)'],
    [{ signal: "logs", record: [], expect: {} }, 'record: must be an object: the flattened OTLP record, e.g. { severity_text: "WARN", body: "...", attributes: { ... } }'],
    [{ payload: "x", headers: { "x-storageapi-token": "t" }, expect: {} }, "must not name X-StorageApi-Token: the service's test endpoint drops it, and it would put a token in the program"],
    [{ expect: {} }, "an example is { payload, headers?, expect } for an HTTP source or { signal, record, headers?, expect } for an OTLP source"],
    ["x", "an example is { payload, headers?, expect } for an HTTP source or { signal, record, headers?, expect } for an OTLP source"],
    [{ payload: "x", expect: { "": "1" } }, 'expect[""]: must be a column name, not empty'],
    [{ payload: "x", expect: [] }, "expect: must be an object of column name to expected value"],
    [{ payload: "x", headers: { "": "1" }, expect: {} }, 'headers[""]: must be a header name, not empty'],
    [{ payload: "x", headers: { "X-A": 1 }, expect: {} }, "headers.X-A: must be a string: the header's value"],
    [{ payload: "x", headers: "X-A: 1", expect: {} }, "headers: must be an object of header name to value"],
    // the keys say which form is meant: signal alone, or record alone, is the OTLP form
    [{ signal: "logs", expect: {} }, "record: must be an object: the flattened OTLP record, e.g. { severity_text: \"WARN\", body: \"...\", attributes: { ... } }"],
    [{ record: {}, expect: {} }, 'signal: Invalid option: expected one of "logs"|"metrics"|"traces"'],
    [{ payload: "x", expect: { a: "1" }, extra: 1 }, 'Unrecognized key: "extra"'],
    // one option of a union fails on its keys only: zod reports that issue itself (at expect.a), not the union
    [{ payload: "x", expect: { a: { json: 1, x: 2 } } }, 'Unrecognized key: "x"'],
  ])("refuses %j: %s", (input, message) => {
    const res = sinkExampleSchema.safeParse(input);
    expect(res.success).toBe(false);
    expect(res.error?.issues.map((i) => i.message)).toEqual([message]);
  });
});

describe("reading the service's refusal, and rows before and after a change", () => {
  it("parses the test endpoint's 422 message (test/stream/api/source/test-mapping/005-test-mapping)", () => {
    expect(parseRefusal('Invalid value for column "path": path "key" not found in the body.')).toEqual({ column: "path", error: 'path "key" not found in the body' });
    expect(parseRefusal('Invalid value for column "a\\"b": header "X" not found.')).toEqual({ column: 'a\\"b', error: 'header "X" not found' });
    expect(parseRefusal("Something else.")).toBeUndefined();
  });

  it("each example's outcome under the old and the new mapping, changed when more than a varying value differs", () => {
    const before = http([{ type: "uuid", name: "id" }, { type: "path", name: "user", path: "user.id", rawString: true }]);
    const after = http([{ type: "uuid", name: "id" }, { type: "path", name: "user", path: "userId", rawString: true }]);
    const examples: SinkExample[] = [
      { payload: { user: { id: "u-1" } }, expect: {} },
      { payload: { user: { id: "u-2" }, userId: "u-2" }, expect: {} },
    ];
    const rows = exampleRowsBeforeAfter(before, after, examples, ENV);
    expect(rows.map((r) => [r.index, r.before?.kind, r.after.kind, r.changed])).toEqual([
      [0, "row", "refused", true],
      [1, "row", "row", false],
    ]);
    expect(rows[1]?.after.kind === "row" && rows[1].after.row.user).toBe("u-2");
    expect(exampleRowsBeforeAfter(undefined, after, examples.slice(1), ENV).map((r) => [r.before, r.changed])).toEqual([[undefined, true]]);
  });
});

describe("what each mismatch compares (found by `npm run mutate -- keboola`)", () => {
  const sink = http([{ type: "body", name: "doc" }, { type: "uuid", name: "id" }, { type: "datetime", name: "at" }]);
  const rowOf = (doc: string, extra: Record<string, string> = {}): ExampleOutcome => ({ kind: "row", row: { doc, ...extra }, varying: [] });
  const mismatchOf = (json: unknown, doc: string) => compareExample(sink, 0, { payload: {}, expect: { doc: { json } } } as SinkExample, rowOf(doc));

  it("JSON is compared as values: object key order aside, arrays in order, nothing missing or extra", () => {
    expect(mismatchOf({ a: 1, b: [1, { c: null }] }, '{"b":[1,{"c":null}],"a":1}')).toEqual([]);
    for (const [json, doc] of [
      [{ a: 1 }, '{"a":1,"b":2}'],
      [{ a: 1, b: 2 }, '{"a":1}'],
      [{ a: 1, b: 2 }, '{"a":1,"c":2}'],
      [{ a: null }, '{"b":null}'],
      [{ a: { b: 1 } }, '{"a":{"b":2}}'],
      [[1, 2], "[2,1]"],
      [[1, 2], "[1,3]"],
      [[1, 2], "[1,2,3]"],
      [[1], '{"0":1}'],
      [{ "0": 1 }, "[1]"],
      [{}, "null"],
      [1, '"1"'],
    ] as const) {
      const found = mismatchOf(json, doc);
      expect(found.map((m) => [m.kind, m.message]), `${JSON.stringify(json)} vs ${doc}`).toEqual([
        ["json", `column "doc": the mapping writes ${JSON.stringify(doc)}, expected the JSON ${JSON.stringify(json)}`],
      ]);
    }
    expect(mismatchOf({ a: 1 }, "{a")).toEqual([
      expect.objectContaining({ kind: "json", message: 'column "doc": the mapping writes "{a", which is not JSON; expected the JSON {"a":1}' }),
    ]);
  });

  it("shapes match the whole value", () => {
    const shape = (column: string, value: string) =>
      compareExample(sink, 0, { payload: {}, expect: { [column]: { shape: column === "id" ? "uuid" : "datetime" } } } as SinkExample, rowOf("{}", { [column]: value }));
    expect(shape("id", "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")).toEqual([]);
    expect(shape("id", "x0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b").map((m) => m.message)).toEqual(['column "id": "x0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b" is not a UUID']);
    expect(shape("id", "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5bx")).toHaveLength(1);
    expect(shape("at", "2024-06-01T12:00:00.000Z")).toEqual([]);
    expect(shape("at", "x2024-06-01T12:00:00.000Z").map((m) => m.message)).toEqual(['column "at": "x2024-06-01T12:00:00.000Z" is not a UTC time like 2006-01-02T15:04:05.000Z']);
    expect(shape("at", "2024-06-01T12:00:00.000Zx")).toHaveLength(1);
  });

  it("a column the mapping lacks is named with the mapping's columns; one it did not write is passed over", () => {
    const found = compareExample(sink, 2, { payload: {}, expect: { nope: "1", at: "x" } } as SinkExample, rowOf("{}"));
    expect(found).toEqual([{ example: 2, kind: "unknown-column", column: "nope", expected: "1", message: 'column "nope": the mapping has no such column (its columns: doc, id, at)' }]);
  });

  it("a refused record names each failing column once, with what the example expected of it", () => {
    const refused: ExampleOutcome = { kind: "refused", failures: [{ column: "doc", error: "e", message: "boom" }], row: {}, varying: [] };
    expect(compareExample(sink, 0, { payload: {}, expect: { doc: "x" } } as SinkExample, refused)).toEqual([
      { example: 0, kind: "refused", column: "doc", expected: "x", error: "e", message: 'column "doc": the service refuses the record: boom' },
    ]);
    expect(compareExample(sink, 0, { payload: {}, expect: {} } as SinkExample, refused)).toEqual([
      { example: 0, kind: "refused", column: "doc", error: "e", message: 'column "doc": the service refuses the record: boom' },
    ]);
  });

  it("the refusal's text: the whole message, the sentence's period dropped only after a letter, digit or quote", () => {
    expect(parseRefusal('x Invalid value for column "a": b.')).toBeUndefined();
    expect(parseRefusal('Invalid value for column "a": b.\nmore')).toEqual({ column: "a", error: "b.\nmore" });
    expect(parseRefusal('Invalid value for column "a": ends with ).')).toEqual({ column: "a", error: "ends with )." });
    expect(parseRefusal('Invalid value for column "a": ends with 1.')).toEqual({ column: "a", error: "ends with 1" });
  });
});

describe("reading the test endpoint's answer for one sink", () => {
  const answer = (tables: Array<{ sinkId: string; rows: Array<{ columns: Array<{ name: string; value: string }> }> }>) => ({
    projectId: 1,
    branchId: 2,
    sourceId: "s",
    tables: tables.map((t) => ({ ...t, tableId: `in.c-x.${t.sinkId}` })),
  });
  const httpExample: SinkExample = { payload: "x", expect: {} };
  const otlpExample: SinkExample = { signal: "metrics", record: {}, expect: {} };

  it("is the sink's first row, in the answer's column order, with the varying columns given", () => {
    const varying = ["id"];
    const outcome = answeredOutcome("b", httpExample, answer([
      { sinkId: "a", rows: [{ columns: [{ name: "x", value: "no" }] }] },
      { sinkId: "b", rows: [{ columns: [{ name: "z", value: "1" }, { name: "id", value: "u" }] }] },
    ]), undefined, varying);
    expect(outcome).toEqual({ kind: "row", row: { z: "1", id: "u" }, varying: ["id"] });
    expect(outcome?.kind === "row" && Object.keys(outcome.row)).toEqual(["z", "id"]);
    expect(outcome?.kind === "row" && outcome.varying).not.toBe(varying);
    expect(answeredOutcome("b", httpExample, answer([{ sinkId: "b", rows: [] }]), undefined, [])).toEqual({ kind: "row", row: {}, varying: [] });
  });

  it("no table of the sink: an OTLP record omitted (with the sink's allowedSignals), nothing for an HTTP event", () => {
    expect(answeredOutcome("b", otlpExample, answer([]), ["logs"], [])).toEqual({ kind: "omitted", signal: "metrics", allowedSignals: ["logs"] });
    expect(answeredOutcome("b", otlpExample, answer([]), undefined, [])).toEqual({ kind: "omitted", signal: "metrics", allowedSignals: [] });
    expect(answeredOutcome("b", httpExample, answer([]), ["logs"], [])).toBeUndefined();
  });
});

describe("signalAccepted (sink_base.go SignalAccepted)", () => {
  it("takes an HTTP record (no signal) whatever the list, an OTLP record when the list is empty or names it", () => {
    expect(signalAccepted(["logs"], "")).toBe(true);
    expect(signalAccepted(["logs"], "logs")).toBe(true);
    expect(signalAccepted(["logs"], "traces")).toBe(false);
    expect(signalAccepted([], "traces")).toBe(true);
    expect(signalAccepted(undefined, "metrics")).toBe(true);
  });
});
