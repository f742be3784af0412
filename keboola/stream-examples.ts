import { isIP } from "node:net";
import { z } from "zod";
import { failingGlobalCalls } from "../jsonnet/calls";
import { invalidColumnValueMessage, templateInvalidMessage } from "../jsonnet/column";
import { getJsonnetEngine, parseJsonnetLocation, type JsonnetLocation } from "../jsonnet/engine";
import { isRecord, type JsonValue } from "./json";
import { fromPlain } from "./json-node";
import { signalAccepted, STREAM_SIGNALS, type StreamSignal, type StreamTestResult, type STREAM_SOURCE_TYPES } from "./stream";
import { columnValue, ColumnError, type MappingColumn } from "./stream-mapping";
import { clientIp, headersOf, ipString, MappedRecord, type RecordInput } from "./stream-record";

// Examples of a sink: sample events with the row each must produce, checked by mapping the event
// locally with the service's own rules (stream-record.ts, stream-mapping.ts: the code the
// emulator's ingestion and test endpoint run). The schema here is the one the provider's Sink
// input and the manifest use.
//
// A column's value is what the service writes into the table: the text of a CSV cell. Some
// values cannot be known in advance (a uuid, the ingestion time, the client's IP, and a template
// that reads Now() or Ip()): an example asserts their shape, or leaves the column out of `expect`.

/** The shapes an expectation may assert instead of a value. */
export const EXAMPLE_SHAPES = ["uuid", "datetime", "ip"] as const;
export type ExampleShape = (typeof EXAMPLE_SHAPES)[number];

const shapeList = EXAMPLE_SHAPES.map((s) => `"${s}"`).join(" | ");

/** What one column of an example must hold. */
export const expectedValueSchema = z.union(
  [
    z.string().describe("The exact text the service writes (a path or template column holds JSON: a string keeps its quotes unless rawString)."),
    z
      .object({ json: z.json().describe("The column's JSON text must parse to this value (key order and number spelling aside).") })
      .strict(),
    z.object({ shape: z.enum(EXAMPLE_SHAPES).describe("The value is not known in advance; it must have this shape.") }).strict(),
  ],
  { error: `must be the exact text of the column (a string), { json: <value> } (its JSON, compared as data) or { shape: ${shapeList} }` },
);
export type ExpectedValue = z.output<typeof expectedValueSchema>;

const expectSchema = z
  // The record's error names an empty key too (zod reports it as the record's invalid_key, not the key schema's message).
  .record(z.string().min(1), expectedValueSchema, {
    error: (issue) => (issue.code === "invalid_key" ? "must be a column name, not empty" : "must be an object of column name to expected value"),
  })
  .describe("Column name -> expected value; a column left out is not compared.");

const headersSchema = z
  .record(z.string().min(1), z.string({ error: "must be a string: the header's value" }), {
    error: (issue) => (issue.code === "invalid_key" ? "must be a header name, not empty" : "must be an object of header name to value"),
  })
  // The test endpoint drops it from the record (api/service/source.go TestSource), and it is the API token.
  .refine((h) => !Object.keys(h).some((k) => k.toLowerCase() === "x-storageapi-token"), { error: "must not name X-StorageApi-Token: the service's test endpoint drops it, and it would put a token in the program" })
  .describe("The request's headers (any case; the service sees canonical names).");

/** An event of an HTTP source. */
export const httpExampleSchema = z
  .object({
    payload: z
      .union([z.record(z.string(), z.json()), z.string()], {
        error: "must be an object (sent as its JSON, with Content-Type: application/json unless headers set another) or a string (the raw body)",
      })
      .describe("The request body: an object is sent as its compact JSON, a string as it is."),
    headers: headersSchema.optional(),
    expect: expectSchema,
  })
  .strict();
export type HttpExample = z.output<typeof httpExampleSchema>;

/** A flattened record of an OTLP source (one log record, metric data point or span). */
export const otlpExampleSchema = z
  .object({
    signal: z.enum(STREAM_SIGNALS).describe("The record's signal: logs, metrics or traces."),
    record: z
      .record(z.string(), z.json(), { error: "must be an object: the flattened OTLP record, e.g. { severity_text: \"WARN\", body: \"...\", attributes: { ... } }" })
      .describe("The flattened record, as the service's Body() sees it."),
    headers: headersSchema.optional(),
    expect: z
      .union([expectSchema, z.literal("omitted")], { error: 'must be an object of column name to expected value, or "omitted" (the sink does not take this signal)' })
      .describe('Column name -> expected value, or "omitted" when the sink\'s allowedSignals leave the signal out.'),
  })
  .strict();
export type OtlpExample = z.output<typeof otlpExampleSchema>;

const EXAMPLE_FORMS = "an example is { payload, headers?, expect } for an HTTP source or { signal, record, headers?, expect } for an OTLP source";

/** Which form an example input means, by its keys (for a failure that names the right one). */
function formOf(input: unknown): 0 | 1 | undefined {
  if (!isRecord(input)) return undefined;
  if ("signal" in input || "record" in input) return 1;
  if ("payload" in input) return 0;
  return undefined;
}

/**
 * One example. A union keeps the JSON Schema exact; its failure names the form the example's
 * keys mean and that form's first problem, with its path.
 */
export const sinkExampleSchema = z.union([httpExampleSchema, otlpExampleSchema], {
  error: (issue) => {
    if (issue.code !== "invalid_union") return undefined;
    const form = formOf(issue.input);
    const first = form === undefined ? undefined : issue.errors[form]?.[0];
    if (!first) return `${EXAMPLE_FORMS}`;
    const where = first.path.map((p) => (typeof p === "number" ? `[${p}]` : p === "" ? '[""]' : `.${String(p)}`)).join("").replace(/^\./, "");
    return `${where ? `${where}: ` : ""}${first.message}`;
  },
});
export type SinkExample = z.output<typeof sinkExampleSchema>;

export const sinkExamplesSchema = z.array(sinkExampleSchema).describe("Sample events with the row each must produce, checked at preview.");

/** A sink as its examples are evaluated: its source's type, its mapping and its signal filter. */
export interface ExampleSink {
  sourceType: (typeof STREAM_SOURCE_TYPES)[number];
  columns: readonly MappingColumn[];
  /** OTLP sources only; empty or unset: every signal. */
  allowedSignals?: readonly string[];
}

/** What the unknown parts of a record are taken to be: when it arrived, the peer's address, the headers the client adds. */
export interface ExampleEnvironment {
  /** Epoch milliseconds. */
  receivedAt: number;
  /** The socket address of the client (the IP when no X-Real-IP or X-Forwarded-For header names one). */
  remoteAddress: string;
  /**
   * Headers the sending client adds to those the example gives (its User-Agent, Accept,
   * Content-Length, a proxy's X-Forwarded-For): an example's own header of the same name wins.
   */
  extraHeaders?: Record<string, string>;
}

/**
 * Headers a client adds to a request (its User-Agent, Accept, Content-Length; a proxy's
 * X-Forwarded-For) and one no client sends, standing for any other (chosen here): the second
 * environment has them, so a value that reads them, or all the headers (the headers column,
 * Header(), HeaderStr()), differs between the two evaluations and cannot be asserted exactly. An
 * example that gives such a header itself asserts on its own value.
 */
const CLIENT_HEADERS: Record<string, string> = {
  Accept: "*/*",
  "Accept-Encoding": "gzip",
  "Content-Length": "1",
  "User-Agent": "example-client/1.0",
  "X-Forwarded-For": "198.51.100.99",
  "X-Example-Client-Header": "1",
};

/**
 * The second environment of an evaluation: every part of the time differs (year to millisecond),
 * the address too, and the client adds its headers, so a value that depends on them differs between
 * the two evaluations. Chosen here (documentation addresses, RFC 5737).
 */
export function otherEnvironment(env: ExampleEnvironment): ExampleEnvironment {
  const t = new Date(env.receivedAt);
  const receivedAt = Date.UTC(
    t.getUTCFullYear() + 1,
    (t.getUTCMonth() + 1) % 12,
    (t.getUTCDate() % 27) + 1,
    (t.getUTCHours() + 1) % 24,
    (t.getUTCMinutes() + 1) % 60,
    (t.getUTCSeconds() + 1) % 60,
    (t.getUTCMilliseconds() + 1) % 1000,
  );
  // Each client header present in one environment and absent (or different) in the other.
  const extraHeaders = Object.fromEntries(Object.entries(CLIENT_HEADERS).map(([k, v]) => [k, env.extraHeaders?.[k] === v ? `${v}0` : v]));
  return { receivedAt, remoteAddress: env.remoteAddress === "198.51.100.23" ? "203.0.113.7" : "198.51.100.23", extraHeaders };
}

/** The default environment: now, from a documentation address (chosen here). */
export const defaultEnvironment = (): ExampleEnvironment => ({ receivedAt: Date.now(), remoteAddress: "203.0.113.7" });

/** A column the service cannot map for the example: it refuses the whole record. */
export interface ColumnFailure {
  column: string;
  /** The service's error text for the column, e.g. `path "key" not found in the body`. */
  error: string;
  /**
   * What the service answers: its test endpoint's 422 message (`Invalid value for column "x": ...`),
   * or, for a template that does not compile, the 400 of the sink's create.
   */
  message: string;
  /** Where in the template, when known: a template that does not compile, or a call of a global that cannot succeed. */
  location?: JsonnetLocation;
}

export type ExampleOutcome =
  /** The row written: column name -> value, in the mapping's order; `varying` columns differ from record to record. */
  | { kind: "row"; row: Record<string, string>; varying: string[] }
  /** The sink does not take the record's signal (allowedSignals). */
  | { kind: "omitted"; signal: StreamSignal; allowedSignals: string[] }
  /** Columns the service cannot map: the record is refused (the first failure is what the service reports); `row` holds the others. */
  | { kind: "refused"; failures: ColumnFailure[]; row: Record<string, string>; varying: string[] }
  /** The example is of the other source type (an HTTP payload for an OTLP source, or the reverse). */
  | { kind: "wrong-source"; sourceType: ExampleSink["sourceType"] };

export const isOtlpExample = (example: SinkExample): example is OtlpExample => "signal" in example;

/**
 * What is sent to the service for an example (its test endpoint, or an ingestion URL): the body
 * text, the headers (canonical names) and, for an OTLP record, its signal (the test endpoint's
 * `signal` query parameter). An object payload is its compact JSON with Content-Type:
 * application/json unless the example's headers set another; a string is sent as it is; an OTLP
 * record is its JSON, the one body the OTLP test endpoint takes (api/stream/design.go TestSource,
 * recordctx/otlp.go FromOTLPTestRequest: a JSON object whatever the Content-Type).
 */
export function exampleRequest(example: SinkExample): { body: string; headers: Record<string, string>; signal?: StreamSignal } {
  const given = headersOf(example.headers ?? {});
  if (isOtlpExample(example)) return { body: JSON.stringify(example.record), headers: given, signal: example.signal };
  const object = typeof example.payload !== "string";
  // A client sending JSON says so; the example's own Content-Type wins.
  const headers = object && !("Content-Type" in given) ? headersOf({ ...given, "Content-Type": "application/json" }) : given;
  return { body: typeof example.payload === "string" ? example.payload : JSON.stringify(example.payload), headers };
}

/** The record an example stands for, in an environment. */
export function exampleRecord(example: SinkExample, env: ExampleEnvironment): RecordInput {
  const request = exampleRequest(example);
  // The example's headers win over those the environment's client adds.
  const headers = env.extraHeaders ? headersOf({ ...env.extraHeaders, ...request.headers }) : request.headers;
  if (isOtlpExample(example)) {
    const record = fromPlain(example.record);
    if (record.t !== "obj") throw new Error("an OTLP example's record is an object");
    // OTLP ingestion takes the peer's address as it is (otlpsource/handler.go: c.RemoteIP()).
    return { source: "otlp", receivedAt: env.receivedAt, ip: ipString(env.remoteAddress), headers, signal: example.signal, record };
  }
  return { source: "http", receivedAt: env.receivedAt, ip: clientIp(headers, env.remoteAddress), headers, body: request.body };
}

/** A template that does not compile: the service refuses the sink (sink create/update), with the error's location. */
function compileFailure(col: MappingColumn): ColumnFailure | undefined {
  if (col.type !== "template" || col.template?.language !== "jsonnet") return undefined;
  const res = getJsonnetEngine().compile(col.template.content);
  if (res.ok) return undefined;
  return { column: col.name, error: res.error, message: templateInvalidMessage(col.name, res.error), ...(res.location ? { location: res.location } : {}) };
}

/**
 * Where a template's evaluation error comes from, when the service's text does not say it: a
 * call of a global that fails for every record with that very error (jsonnet/calls.ts).
 */
function runtimeLocation(col: MappingColumn, error: string): JsonnetLocation | undefined {
  if (col.type !== "template" || !col.template) return parseJsonnetLocation(error);
  const call = failingGlobalCalls(getJsonnetEngine(), col.template.content).find((c) => c.error === error);
  if (!call) return parseJsonnetLocation(error);
  const lines = call.call.split("\n");
  const endLine = call.line + lines.length - 1;
  const endColumn = lines.length === 1 ? call.column + call.call.length : (lines.at(-1)?.length ?? 0) + 1;
  return { line: call.line, column: call.column, endLine, endColumn };
}

type Mapped = { values: Map<string, string>; failures: ColumnFailure[] };

/** Every column mapped on its own (the service stops at the first failure; an example reports them all). */
function mapColumns(sink: ExampleSink, input: RecordInput, compileFailures: Map<string, ColumnFailure>): Mapped {
  const record = new MappedRecord(input);
  const values = new Map<string, string>();
  const failures: ColumnFailure[] = [];
  for (const col of sink.columns) {
    const invalid = compileFailures.get(col.name);
    if (invalid) {
      failures.push(invalid);
      continue;
    }
    try {
      values.set(col.name, columnValue(col, record));
    } catch (e) {
      if (!(e instanceof ColumnError)) throw e;
      const location = runtimeLocation(col, e.message);
      failures.push({ column: col.name, error: e.message, message: invalidColumnValueMessage(col.name, e.message), ...(location ? { location } : {}) });
    }
  }
  return { values, failures };
}

/**
 * The outcome of one example: the row the sink writes for it, or that the sink leaves it out
 * (signal), or the columns that refuse it. The record is mapped in `env` and again in
 * otherEnvironment(env); the columns whose values differ are `varying`.
 */
export function evaluateExample(sink: ExampleSink, example: SinkExample, env: ExampleEnvironment = defaultEnvironment()): ExampleOutcome {
  const otlp = isOtlpExample(example);
  if (otlp !== (sink.sourceType === "otlp")) return { kind: "wrong-source", sourceType: sink.sourceType };
  if (otlp && !signalAccepted(sink.allowedSignals, example.signal)) {
    return { kind: "omitted", signal: example.signal, allowedSignals: [...(sink.allowedSignals ?? [])] };
  }
  const compileFailures = new Map<string, ColumnFailure>();
  for (const col of sink.columns) {
    const failure = compileFailure(col);
    if (failure) compileFailures.set(col.name, failure);
  }
  const first = mapColumns(sink, exampleRecord(example, env), compileFailures);
  const second = mapColumns(sink, exampleRecord(example, otherEnvironment(env)), compileFailures);
  const row: Record<string, string> = {};
  const varying: string[] = [];
  for (const col of sink.columns) {
    const value = first.values.get(col.name);
    if (value === undefined) continue;
    Object.defineProperty(row, col.name, { value, enumerable: true, writable: true, configurable: true });
    if (second.values.get(col.name) !== value) varying.push(col.name);
  }
  return first.failures.length > 0 ? { kind: "refused", failures: first.failures, row, varying } : { kind: "row", row, varying };
}

export type MismatchKind =
  /** The column's value is not the expected text. */
  | "value"
  /** The column's value is not JSON, or not the expected JSON value. */
  | "json"
  /** The column's value does not have the expected shape. */
  | "shape"
  /** An exact value or JSON is expected of a column whose value differs from record to record. */
  | "varies"
  /** The service refuses the record because of this column (error, and location when known). */
  | "refused"
  /** A row is expected, but the sink does not take the record's signal. */
  | "omitted"
  /** "omitted" is expected, but the sink takes the record. */
  | "not-omitted"
  /** `expect` names a column the mapping does not have. */
  | "unknown-column"
  /** The example is of the other source type. */
  | "wrong-source";

/** Why an example does not hold. */
export interface ExampleMismatch {
  /** The example's index in the sink's list. */
  example: number;
  kind: MismatchKind;
  column?: string;
  expected?: ExpectedValue | "omitted";
  /** The column's value, or "omitted" (kind "omitted"). */
  actual?: string;
  /** kind "refused": the service's error text, and where in the template when known. */
  error?: string;
  location?: JsonnetLocation;
  /** One sentence for the user, about the example (exampleMessage puts its index in front). */
  message: string;
}

/** A mismatch as one line naming the example: `examples[1]: column "user": ...`. */
export function exampleMessage(m: Pick<ExampleMismatch, "example" | "message">): string {
  return `examples[${m.example}]: ${m.message}`;
}

const SHAPES: Record<ExampleShape, { test: (v: string) => boolean; what: string }> = {
  // gofrs/uuid String(): lowercase hex in 8-4-4-4-12 groups (the uuid column writes version 7).
  uuid: { test: (v) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(v), what: "a UUID" },
  // keboola-as-code internal/pkg/service/stream/mapping/table/column/datetime.go TimeFormat "2006-01-02T15:04:05.000Z".
  datetime: { test: (v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(v), what: "a UTC time like 2006-01-02T15:04:05.000Z" },
  // Go's net.IP.String(): an IPv4 or IPv6 address.
  ip: { test: (v) => isIP(v) !== 0, what: "an IP address" },
};

/** Deep equality of JSON values (object key order aside). */
function sameJson(a: JsonValue, b: JsonValue): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i] ?? null));
  }
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameJson(a[k] ?? null, b[k] ?? null));
  }
  return a === b;
}

function parsedJson(text: string): { ok: true; value: JsonValue } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

const show = (v: unknown): string => JSON.stringify(v);

function compareColumn(example: number, column: string, expected: ExpectedValue, actual: string, varies: boolean): ExampleMismatch | undefined {
  const at = `column "${column}"`;
  if (typeof expected !== "string" && "shape" in expected) {
    const shape = SHAPES[expected.shape];
    return shape.test(actual) ? undefined : { example, kind: "shape", column, expected, actual, message: `${at}: ${show(actual)} is not ${shape.what}` };
  }
  if (varies) {
    return {
      example,
      kind: "varies",
      column,
      expected,
      actual,
      message: `${at}: its value differs from record to record (a uuid, the ingestion time, the client's IP or the headers its client adds, or a template reading them): assert its shape, e.g. { shape: "datetime" }, or leave it out of expect`,
    };
  }
  if (typeof expected === "string") {
    return actual === expected ? undefined : { example, kind: "value", column, expected, actual, message: `${at}: the mapping writes ${show(actual)}, expected ${show(expected)}` };
  }
  const parsed = parsedJson(actual);
  if (!parsed.ok) return { example, kind: "json", column, expected, actual, message: `${at}: the mapping writes ${show(actual)}, which is not JSON; expected the JSON ${show(expected.json)}` };
  return sameJson(parsed.value, expected.json) ? undefined : { example, kind: "json", column, expected, actual, message: `${at}: the mapping writes ${show(actual)}, expected the JSON ${show(expected.json)}` };
}

/** How an outcome differs from what its example expects (empty: the example holds). */
export function compareExample(sink: ExampleSink, index: number, example: SinkExample, outcome: ExampleOutcome): ExampleMismatch[] {
  const expect = example.expect;
  switch (outcome.kind) {
    case "wrong-source":
      return [
        {
          example: index,
          kind: "wrong-source",
          message:
            outcome.sourceType === "otlp"
              ? "the example is an HTTP event (payload), but the sink's source is an OTLP source: give { signal, record, expect }"
              : "the example is an OTLP record (signal, record), but the sink's source is an HTTP source: give { payload, headers?, expect }",
        },
      ];
    case "omitted":
      if (expect === "omitted") return [];
      return [
        {
          example: index,
          kind: "omitted",
          actual: "omitted",
          message: `the sink takes only ${outcome.allowedSignals.join(", ")} records (allowedSignals), so this ${outcome.signal} record is not written; expect "omitted", or allow the signal`,
        },
      ];
    default:
      break;
  }
  if (expect === "omitted") {
    const signal = isOtlpExample(example) ? example.signal : "";
    return [{ example: index, kind: "not-omitted", expected: "omitted", message: `the sink takes ${signal} records (allowedSignals ${show(sink.allowedSignals ?? [])}), so this one is written, not omitted` }];
  }
  const mismatches: ExampleMismatch[] = [];
  const failed = new Map(outcome.kind === "refused" ? outcome.failures.map((f) => [f.column, f]) : []);
  for (const f of failed.values()) {
    const expected = expect[f.column];
    mismatches.push({
      example: index,
      kind: "refused",
      column: f.column,
      ...(expected !== undefined ? { expected } : {}),
      error: f.error,
      ...(f.location ? { location: f.location } : {}),
      message: `column "${f.column}": the service refuses the record: ${f.message}${f.location ? ` (template line ${f.location.line}, column ${f.location.column})` : ""}`,
    });
  }
  const names = new Set(sink.columns.map((c) => c.name));
  for (const [column, expected] of Object.entries(expect)) {
    if (!names.has(column)) {
      mismatches.push({ example: index, kind: "unknown-column", column, expected, message: `column "${column}": the mapping has no such column (its columns: ${[...names].join(", ")})` });
      continue;
    }
    // A refused record's row holds only the columns that were mapped: a failing one is reported above.
    const actual = outcome.row[column];
    if (actual === undefined) continue;
    const mismatch = compareColumn(index, column, expected, actual, outcome.varying.includes(column));
    if (mismatch) mismatches.push(mismatch);
  }
  return mismatches;
}

/** Every example of a sink evaluated and compared: the outcomes in order, and all mismatches. */
export function checkExamples(
  sink: ExampleSink,
  examples: readonly SinkExample[],
  env: ExampleEnvironment = defaultEnvironment(),
): { outcomes: ExampleOutcome[]; mismatches: ExampleMismatch[] } {
  const outcomes = examples.map((example) => evaluateExample(sink, example, env));
  return { outcomes, mismatches: examples.flatMap((example, i) => compareExample(sink, i, example, outcomes[i]!)) };
}

/**
 * The column and the error text of the service's refusal of a record (the 422 of its test
 * endpoint: api/mapper/source_response.go, `Invalid value for column "<name>": <error>` made a
 * sentence; recorded in test/stream/api/source/test-mapping/005-test-mapping).
 */
export function parseRefusal(message: string): { column: string; error: string } | undefined {
  const m = /^Invalid value for column "((?:[^"\\]|\\.)*)": ([\s\S]*)$/.exec(message);
  if (!m) return undefined;
  // AsSentence appended a "." to an error ending in a letter, digit or quote.
  return { column: m[1]!, error: /[a-zA-Z0-9'"]\.$/.test(m[2]!) ? m[2]!.slice(0, -1) : m[2]! };
}

/**
 * What the service's test endpoint answered about one sink, as an outcome to compare with the
 * example: the sink's row; omitted when an OTLP answer leaves the sink out (its allowedSignals);
 * undefined when an HTTP answer has no table of the sink. `varying` comes from the local
 * evaluation: the columns no example can assert exactly.
 */
export function answeredOutcome(sinkId: string, example: SinkExample, result: StreamTestResult, allowedSignals: readonly string[] | undefined, varying: readonly string[]): ExampleOutcome | undefined {
  const table = result.tables.find((t) => t.sinkId === sinkId);
  if (!table) {
    return isOtlpExample(example) ? { kind: "omitted", signal: example.signal, allowedSignals: [...(allowedSignals ?? [])] } : undefined;
  }
  const row: Record<string, string> = {};
  for (const c of table.rows[0]?.columns ?? []) Object.defineProperty(row, c.name, { value: c.value, enumerable: true, writable: true, configurable: true });
  return { kind: "row", row, varying: [...varying] };
}

/** One example evaluated against a sink's mapping before and after a change. */
export interface ExampleRows {
  index: number;
  example: SinkExample;
  /** Undefined when there was no mapping before (a new sink). */
  before?: ExampleOutcome;
  after: ExampleOutcome;
  /** Whether the outcome differs, its varying columns (a uuid, the time) aside. */
  changed: boolean;
}

/** The row (or omission, or refusal) as compared: the varying columns' values left out. */
function comparable(outcome: ExampleOutcome): unknown {
  switch (outcome.kind) {
    case "row":
    case "refused": {
      const row = Object.entries(outcome.row).map(([k, v]) => [k, outcome.varying.includes(k) ? null : v]);
      return { kind: outcome.kind, row, failures: outcome.kind === "refused" ? outcome.failures.map((f) => f.message) : [] };
    }
    default:
      return outcome;
  }
}

/**
 * Each example's outcome under a sink's mapping before and after a change, in one environment
 * (the review of a change lists them). `changed` ignores the values of varying columns.
 */
export function exampleRowsBeforeAfter(before: ExampleSink | undefined, after: ExampleSink, examples: readonly SinkExample[], env: ExampleEnvironment = defaultEnvironment()): ExampleRows[] {
  return examples.map((example, index) => {
    const next = evaluateExample(after, example, env);
    if (!before) return { index, example, after: next, changed: true };
    const prev = evaluateExample(before, example, env);
    return { index, example, before: prev, after: next, changed: JSON.stringify(comparable(prev)) !== JSON.stringify(comparable(next)) };
  });
}
