import type { KeboolaClient } from "../api/client";
import { KeboolaApiError } from "../api/errors";
import type { StreamTestResult } from "../api/stream";
import { streamObjectId } from "../validation/ids";
import type { Manifest } from "./schema";
import { isOneOf, isRecord, parseJson as parseJsonValue, type JsonValue } from "../../keboola/json";
import { STREAM_SIGNALS, type StreamSignal } from "../../keboola/stream";
import { evaluateExample, exampleRequest, sinkExampleSchema, type ExampleOutcome, type SinkExample } from "../../keboola/stream-examples";

// `keboola-pulumi try`: what an event becomes in each sink of a source of the manifest, as a row
// per sink. Offline, the manifest's mappings are evaluated with the shared rules (the ones preview
// checks examples with); with `remote`, the deployed source's test endpoint answers (the source
// found by the id the manifest derives, as `up` derives it), so `try --remote` works on an
// exported project too and shows what the service writes.

export interface TryInput {
  /** The manifest key of the source. */
  source: string;
  /** The event: an HTTP request body as it is, or for an OTLP source one flattened record (a JSON object). */
  payload: string;
  /** Request headers; for a JSON payload without a Content-Type, application/json is added. */
  headers: Record<string, string>;
  /** OTLP sources: the record's signal (default logs, as the service's test endpoint). */
  signal?: StreamSignal;
}

/** One sink's result: its row, or that it leaves the record out (its signals), or refuses it. */
export interface TriedSink {
  /** The manifest key, or the sink id when the manifest does not declare the sink (remote). */
  sink: string;
  sinkId: string;
  tableId: string;
  row?: Record<string, string>;
  omitted?: { signal: StreamSignal; allowedSignals: string[] };
  /** The service's message for each column that refuses the record (with the template's line where known). */
  refused?: string[];
}

export interface TryResult {
  source: string;
  sourceId: string;
  type: "http" | "otlp";
  signal?: StreamSignal;
  remote: boolean;
  sinks: TriedSink[];
  /** Remote: the service refused the whole record (its test endpoint answers for all sinks at once). */
  refused?: string;
}

/** A user error of `try` (bad source key, payload): the CLI prints the message alone. */
export class TryError extends Error {
  override readonly name = "TryError";
}

/** The event as an example of the source's kind (the one form the shared evaluation and the test endpoint take). */
function eventOf(type: "http" | "otlp", input: TryInput): SinkExample {
  const parsed = parseJson(input.payload);
  if (type === "otlp") {
    if (!parsed.ok || !isRecord(parsed.value)) {
      throw new TryError("an OTLP source takes one flattened record: the payload must be a JSON object, e.g. {\"severity_text\": \"WARN\", \"body\": \"disk low\"}");
    }
    return checked({ signal: input.signal ?? "logs", record: parsed.value, headers: input.headers, expect: {} });
  }
  if (input.signal) throw new TryError(`--signal is for OTLP sources; source "${input.source}" is an HTTP source`);
  const hasType = Object.keys(input.headers).some((k) => k.toLowerCase() === "content-type");
  // A JSON document is sent as JSON, as a client posting JSON says (an example's object payload too).
  const headers = parsed.ok && !hasType ? { ...input.headers, "Content-Type": "application/json" } : input.headers;
  return checked({ payload: input.payload, headers, expect: {} });
}

function checked(example: unknown): SinkExample {
  const res = sinkExampleSchema.safeParse(example);
  if (!res.success) throw new TryError(res.error.issues.map((i) => i.message).join("; "));
  return res.data;
}

function parseJson(text: string): { ok: true; value: JsonValue } | { ok: false } {
  try {
    return { ok: true, value: parseJsonValue(text) };
  } catch {
    return { ok: false };
  }
}

function sourceOf(manifest: Manifest, key: string) {
  const entry = manifest.sources?.[key];
  if (!entry) {
    const keys = Object.keys(manifest.sources ?? {});
    throw new TryError(`"${key}" is not a key under sources (${keys.length ? `one of: ${keys.join(", ")}` : "the manifest declares no source"})`);
  }
  return { entry, sourceId: streamObjectId(entry.sourceId, entry.name), branchId: entry.branchId ?? "default", type: entry.type ?? "http" };
}

function sinksOf(manifest: Manifest, key: string) {
  return Object.entries(manifest.sinks ?? {})
    .filter(([, s]) => s.source === key)
    .map(([sinkKey, s]) => ({ key: sinkKey, entry: s, sinkId: streamObjectId(s.sinkId, s.name) }));
}

function tried(base: Omit<TriedSink, "row" | "omitted" | "refused">, outcome: ExampleOutcome): TriedSink {
  switch (outcome.kind) {
    case "row":
      return { ...base, row: outcome.row };
    case "omitted":
      return { ...base, omitted: { signal: outcome.signal, allowedSignals: outcome.allowedSignals } };
    case "refused":
      return { ...base, refused: outcome.failures.map((f) => `${f.message}${f.location ? ` (template line ${f.location.line}, column ${f.location.column})` : ""}`) };
    case "wrong-source":
      return { ...base, refused: ["the event is not of the source's kind"] };
  }
}

/** The event through every sink of the source in the manifest, evaluated here. */
export function tryLocally(manifest: Manifest, input: TryInput): TryResult {
  const source = sourceOf(manifest, input.source);
  const event = eventOf(source.type, input);
  const sinks = sinksOf(manifest, input.source).map(({ key, entry, sinkId }) => {
    const outcome = evaluateExample({ sourceType: source.type, columns: entry.columns, ...(entry.allowedSignals ? { allowedSignals: entry.allowedSignals } : {}) }, event);
    return tried({ sink: key, sinkId, tableId: entry.tableId }, outcome);
  });
  return { source: input.source, sourceId: source.sourceId, type: source.type, ...signalOf(event), remote: false, sinks };
}

const signalOf = (event: SinkExample): { signal?: StreamSignal } => ("signal" in event ? { signal: event.signal } : {});

/** The event through the deployed source's test endpoint: what the service writes. */
export async function tryRemotely(manifest: Manifest, input: TryInput, client: KeboolaClient): Promise<TryResult> {
  const source = sourceOf(manifest, input.source);
  const event = eventOf(source.type, input);
  const keys = new Map(sinksOf(manifest, input.source).map((s) => [s.sinkId, s.key]));
  const base = { source: input.source, sourceId: source.sourceId, type: source.type, ...signalOf(event), remote: true };
  let answer: StreamTestResult;
  try {
    answer = await (await client.stream()).testSource(source.branchId, source.sourceId, exampleRequest(event));
  } catch (err) {
    if (err instanceof KeboolaApiError && err.status === 422) return { ...base, sinks: [], refused: err.apiMessage };
    if (err instanceof KeboolaApiError && err.status === 404) {
      throw new TryError(`source "${source.sourceId}" (sources.${input.source}) is not deployed in branch ${source.branchId}: ${err.apiMessage} Deploy it first (pulumi up), or try it offline (without --remote)`);
    }
    throw err;
  }
  const sinks = answer.tables.map((t) => ({
    sink: keys.get(t.sinkId) ?? t.sinkId,
    sinkId: t.sinkId,
    tableId: t.tableId,
    row: Object.fromEntries((t.rows[0]?.columns ?? []).map((c) => [c.name, c.value])),
  }));
  return { ...base, sinks };
}

/** Whether any sink (or the service) refuses the event: `try` then exits 1, as preview fails. */
export const tryRefused = (r: TryResult): boolean => r.refused !== undefined || r.sinks.some((s) => s.refused !== undefined);

/** The result as a terminal reads it: per sink its table, then the row's columns. */
export function formatTry(r: TryResult): string {
  const lines: string[] = [];
  const where = r.remote ? "the service's test endpoint" : "the manifest's mappings, evaluated locally";
  lines.push(`source ${r.source} (${r.sourceId}, ${r.type}${r.signal ? `, ${r.signal} record` : ""}): ${where}`);
  if (r.refused) lines.push(`  refused: ${r.refused}`);
  if (r.sinks.length === 0 && !r.refused) lines.push("  no sink takes the event");
  for (const s of r.sinks) {
    lines.push("");
    const head = `sink ${s.sink}${s.sink !== s.sinkId ? ` (${s.sinkId})` : ""} -> ${s.tableId}`;
    if (s.omitted) {
      lines.push(`${head}: omitted (it takes ${s.omitted.allowedSignals.join(", ")} records only)`);
      continue;
    }
    if (s.refused) {
      lines.push(`${head}: refused`);
      for (const m of s.refused) lines.push(`  ${m}`);
      continue;
    }
    lines.push(head);
    const width = Math.max(0, ...Object.keys(s.row ?? {}).map((k) => k.length));
    for (const [name, value] of Object.entries(s.row ?? {})) lines.push(`  ${name.padEnd(width)}  ${value.replace(/\n/g, "\\n")}`);
  }
  return `${lines.join("\n")}\n`;
}

/** `--signal`, checked. */
export function signalArg(value: string | undefined): StreamSignal | undefined {
  if (value === undefined) return undefined;
  if (!isOneOf(STREAM_SIGNALS, value)) throw new TryError(`--signal must be one of ${STREAM_SIGNALS.join(", ")}, got "${value}"`);
  return value;
}

/** `--header "Name: value"`, parsed. */
export function headerArg(value: string): [string, string] {
  const i = value.indexOf(":");
  if (i <= 0) throw new TryError(`--header must be "Name: value", got "${value}"`);
  return [value.slice(0, i).trim(), value.slice(i + 1).trim()];
}
