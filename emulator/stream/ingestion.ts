import { Hono, type Context } from "hono";
import type { EmulatorContext } from "../core/context";
import type { ServiceEnv } from "../core/http";
import { appendRows, getTable } from "../storage/tables";
import { StreamError } from "./errors";
import { asSentence, goQuote } from "./gofmt";
import { ColumnError, mapRow } from "../../keboola/stream-mapping";
import { clientIp, headersOf, MappedRecord } from "../../keboola/stream-record";
import { signalAccepted } from "../../keboola/stream";
import { prettyJSONResponse } from "./respond";
import { writingFile } from "./files";
import { effectiveSetting } from "./settings";
import { countRecord } from "./stats";
import { sinksOf } from "./store";
import { streamState, type ColumnRecord, type SinkRecord, type SourceRecord } from "./state";
import { rawHeaders, remoteAddress } from "./testendpoint";

// The ingestion endpoint (stream-in): POST <streamIn>/stream/<projectId>/<sourceId>/<secret>.
//
// The real service writes each record to a local CSV slice, uploads slices to a staging file and
// imports files into the table when the trigger settings say so. The emulator skips the local and
// staging levels: the settings are stored and validated, but every accepted record is appended to
// the destination table at once, so a test can read it right after the POST; the sink's
// statistics count it at the target level of its open file (stats.ts).

const SERVER_HEADER = "Keboola/Stream/HTTPSource";
const INGEST = "/stream/:projectId/:sourceId/:secret";

function inError(status: number, code: string, message: string): StreamError {
  return new StreamError(status, `stream.in.${code}`, asSentence(message));
}

interface SinkResult {
  sinkId: string;
  statusCode: number;
  error?: string;
  message: string;
}

/** Go's `%q` of a column definition struct, as the real error message prints it. */
function goColumnStruct(col: ColumnRecord): string {
  const q = (b: boolean) => `%!q(bool=${b})`;
  switch (col.type) {
    case "path":
      return `{${goQuote(col.name)} ${q(false)} ${goQuote(col.path ?? "")} ${q(col.rawString ?? false)} ${
        col.defaultValue === undefined ? "%!q(*string=<nil>)" : "%!q(*string=0xc0001a2b30)"
      }}`;
    case "template":
      return `{${goQuote(col.name)} ${q(false)} ${q(col.rawString ?? false)} {${goQuote(col.template?.language ?? "")} ${goQuote(col.template?.content ?? "")}}}`;
    default:
      return `{${goQuote(col.name)} ${q(false)}}`;
  }
}

function writeToSink(ctx: EmulatorContext, source: SourceRecord, sink: SinkRecord, record: MappedRecord): SinkResult {
  let values: string[];
  try {
    values = mapRow(sink.table.mapping.columns, record);
  } catch (e) {
    if (!(e instanceof ColumnError)) throw e;
    const col = e.column;
    return {
      sinkId: sink.sinkId,
      statusCode: 500,
      error: "stream.in.genericError",
      message: `${asSentence(`cannot convert column ${goColumnStruct(col)} to CSV value`).replace(/\.$/, "")}:\n- ${asSentence(e.message)}`,
    };
  }
  // The data lands in the table at once (see the note at the top). A table deleted meanwhile
  // would make the real import fail later; the record is then lost here.
  const table = getTable(ctx, sink.branchId, sink.table.tableId);
  if (table) {
    const row: Record<string, string> = {};
    sink.table.mapping.columns.forEach((col, i) => (row[col.name] = values[i]));
    appendRows(table, [row], record.input.receivedAt);
    const file = writingFile(ctx, sink);
    if (file) countRecord(ctx, file, record.input.receivedAt, Buffer.byteLength(csvLine(values)));
  }
  const wait = effectiveSetting("storage.level.local.encoding.sync.wait", source.config, sink.config) !== false;
  return wait
    ? { sinkId: sink.sinkId, statusCode: 200, message: "processed" }
    : { sinkId: sink.sinkId, statusCode: 202, message: "accepted" };
}

/** The record as a CSV line (every value quoted), the size the statistics count. */
const csvLine = (values: string[]): string => `${values.map((v) => `"${v.replace(/"/g, '""')}"`).join(",")}\n`;

function summary(all: number, ok: number): string {
  if (all === 0) return "No enabled sink found.";
  return ok === all ? `Successfully written to ${all}/${all} sinks.` : `Written to ${ok}/${all} sinks.`;
}

async function ingest(ctx: EmulatorContext, c: Context<ServiceEnv, typeof INGEST>): Promise<Response> {
  const projectParam = c.req.param("projectId");
  if (!/^[+-]?\d+$/.test(projectParam)) throw inError(400, "badRequest", `invalid project ID ${goQuote(projectParam)}`);
  const projectId = Number(projectParam);
  const sourceId = c.req.param("sourceId");
  const secret = c.req.param("secret");

  // Every branch's source of that id, HTTP type, with the secret.
  const candidates = Object.values(streamState(ctx.state).sources).filter(
    (s) => !s.deleted && s.projectId === projectId && s.sourceId === sourceId && s.type === "http" && s.secret === secret,
  );
  const enabled = candidates.filter((s) => !s.disabled);
  if (enabled.length === 0) {
    throw candidates.length === 0
      ? inError(404, "noSourceFound", "the specified combination of projectID, sourceID and secret was not found")
      : inError(404, "disabledSource", "the specified source is disabled in all branches");
  }

  const text = await c.req.text();
  const headers = headersOf(rawHeaders(c));
  const record = new MappedRecord({ source: "http", receivedAt: ctx.now(), ip: clientIp(headers, remoteAddress(c.env)), headers, body: text });

  const sources = [...enabled]
    .sort((a, b) => (String(a.branchId) < String(b.branchId) ? -1 : 1))
    .map((source) => {
      const sinks = sinksOf(ctx, source.branchId, source.sourceId)
        .filter((s) => !s.disabled && signalAccepted(s.allowedSignals, record.signal))
        .sort((a, b) => (a.sinkId < b.sinkId ? -1 : 1))
        .map((sink) => writeToSink(ctx, source, sink, record));
      const failed = sinks.filter((s) => s.error).length;
      const statusCode = Math.max(200, ...sinks.map((s) => s.statusCode));
      return {
        projectId: source.projectId,
        sourceId: source.sourceId,
        branchId: source.branchId,
        statusCode,
        ...(failed > 0 ? { error: "stream.in.writeFailed" } : {}),
        message: summary(sinks.length, sinks.length - failed),
        ...(sinks.length > 0 ? { sinks } : {}),
        all: sinks.length,
        failed,
      };
    });

  const all = sources.reduce((n, s) => n + s.all, 0);
  const failed = sources.reduce((n, s) => n + s.failed, 0);
  const statusCode = Math.max(200, ...sources.map((s) => s.statusCode));
  if (failed === 0 && c.req.query("verbose") !== "true") {
    return new Response("OK", { status: statusCode, headers: { "Content-Type": "text/plain" } });
  }
  const body = {
    statusCode,
    ...(failed > 0 ? { error: "stream.in.writeFailed" } : {}),
    message: summary(all, all - failed),
    sources: sources.map(({ all: _a, failed: _f, ...rest }) => rest),
  };
  return prettyJSONResponse(statusCode, body);
}

/**
 * The ingestion service, mounted at the path of `ctx.urls().streamIn`. Every answer carries the
 * service's `Server` header; errors are rendered by the app's onError.
 */
export function ingestionApp(ctx: EmulatorContext): Hono<ServiceEnv> {
  const api = new Hono<ServiceEnv>();
  api.use(async (c, next) => {
    await next();
    c.header("Server", SERVER_HEADER);
  });

  api.get("/health-check", (c) => c.body("OK\n", 200, { "Content-Type": "text/plain" }));
  api.post(INGEST, (c) => ingest(ctx, c));
  api.options(INGEST, (c) =>
    c.body(null, 200, {
      Allow: "OPTIONS, POST",
      "Access-Control-Allow-Methods": "OPTIONS, POST",
      "Access-Control-Allow-Headers": "*",
      "Access-Control-Expose-Headers": "*",
      "Access-Control-Allow-Origin": "*",
    }),
  );
  // Other methods on the ingestion path: 405 with Allow (HEAD is served as GET); anything else:
  // the route error.
  api.on(["GET", "PUT", "PATCH", "DELETE"], INGEST, (c) => c.body(null, 405, { Allow: "OPTIONS, POST" }));
  api.all("*", () => {
    throw inError(404, "routeNotFound", "not found, please send data using POST /stream/<projectID>/<sourceID>/<secret>");
  });

  api.onError((err) => {
    if (err instanceof StreamError) return err.response();
    throw err;
  });
  return api;
}
