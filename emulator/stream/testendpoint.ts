import type { Context } from "hono";
import type { EmulatorContext } from "../core/context";
import type { NodeBindings } from "../core/http";
import { apiError, badRequest } from "./errors";
import { asSentence } from "./gofmt";
import { asDecodedObject, Float64RangeError, JSONSyntaxError, parseJSON, type JObject } from "../../keboola/json-node";
import { ColumnError, mapRow } from "../../keboola/stream-mapping";
import { clientIp, headersOf, ipString, MappedRecord } from "../../keboola/stream-record";
import { signalAccepted, STREAM_SIGNALS, type StreamTestResult } from "../../keboola/stream";
import { isOneOf } from "../../keboola/json";
import { decode, endpoint, inBranch } from "./request";
import { jsonResponse } from "./respond";
import { mustGetSource } from "./sources";
import { sinksOf } from "./store";
import { validateIdParam } from "./validation";

// POST /v1/branches/{b}/sources/{s}/test[?signal=]: the body mapped through every sink of the
// source (disabled sinks too, as the real endpoint lists all active sinks), nothing is stored.
// For an OTLP source the body is one flattened record and sinks whose allowedSignals reject the
// signal (default "logs") are left out.

/** The peer's address, from the Node request. */
export function remoteAddress(env: NodeBindings): string | undefined {
  return env.incoming.socket.remoteAddress;
}

export function rawHeaders(c: Context): Record<string, string> {
  const out: Record<string, string> = {};
  c.req.raw.headers.forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

/**
 * The flattened OTLP record of a test request (recordctx/otlp.go FromOTLPTestRequest): a JSON
 * object decoded as Go decodes it (an empty body is an empty record).
 */
function otlpTestRecord(text: string): JObject {
  if (text === "") return { t: "obj", entries: [] };
  const fail = (msg: string): never => {
    throw badRequest(`request body must be a JSON object representing a flat OTLP record:\n- ${asSentence(msg)}`);
  };
  try {
    const node = parseJSON(text);
    if (node.t !== "obj") return fail(`cannot unmarshal ${node.t === "arr" ? "array" : "value"} into an object`);
    return asDecodedObject(node);
  } catch (e) {
    // The service's texts come from json-iterator; these are chosen here (same prefix).
    if (e instanceof JSONSyntaxError || e instanceof Float64RangeError) return fail(e.message);
    throw e;
  }
}

export const testSource = (ctx: EmulatorContext) =>
  endpoint.createHandlers(
    decode((c, errs) => {
      const sourceId = c.req.param("sourceId") ?? "";
      validateIdParam(errs, "sourceId", sourceId);
      const signal = c.req.query("signal") ?? "";
      if (signal !== "" && !isOneOf(STREAM_SIGNALS, signal)) errs.invalidEnum("signal", signal, STREAM_SIGNALS);
      return { sourceId, signal };
    }),
    inBranch(ctx, "read"),
    async (c) => {
      const { input, scope } = c.var;
      const { sourceId } = input;
      const source = mustGetSource(ctx, scope.branchId, sourceId);
      const text = await c.req.text();

      // The service's own header (and Go's Host) are not part of the record.
      const headers = headersOf(rawHeaders(c), ["X-Storageapi-Token", "Host"]);
      const receivedAt = ctx.now();
      // An OTLP test request is one record of the signal asked for ("logs" by default), its IP the peer's.
      const record = new MappedRecord(
        source.type === "otlp"
          ? { source: "otlp", receivedAt, ip: ipString(remoteAddress(c.env)), headers, signal: isOneOf(STREAM_SIGNALS, input.signal) ? input.signal : "logs", record: otlpTestRecord(text) }
          : { source: "http", receivedAt, ip: clientIp(headers, remoteAddress(c.env)), headers, body: text },
      );
      const signal = record.signal;

      const tables: StreamTestResult["tables"] = [];
      const sinks = sinksOf(ctx, scope.branchId, sourceId)
        .filter((s) => signalAccepted(s.allowedSignals, signal))
        .sort((a, b) => (a.sinkId < b.sinkId ? -1 : 1));
      for (const sink of sinks) {
        let values: string[];
        try {
          values = mapRow(sink.table.mapping.columns, record);
        } catch (e) {
          if (!(e instanceof ColumnError)) throw e;
          throw apiError(422, "unprocessableContent", `Invalid value for column "${e.column.name}": ${e.message}`);
        }
        const columns = sink.table.mapping.columns.map((col, i) => ({ name: col.name, value: values[i] ?? "" }));
        tables.push({ sinkId: sink.sinkId, tableId: sink.table.tableId, rows: [{ columns }] });
      }
      const result: StreamTestResult = { projectId: scope.projectId, branchId: scope.branchId, sourceId, tables };
      return jsonResponse(200, result);
    },
  );
