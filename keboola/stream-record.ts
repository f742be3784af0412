import type { TemplateContext } from "../jsonnet/engine";
import { parseBody, type JsonObject } from "../jsonnet/body";
import { clientIpString, headersMap } from "../jsonnet/globals";
import { goJSON } from "./go-json";
import { goMarshal, parseJSON, toPlainObject, type JNode, type JObject } from "./json-node";
import type { StreamSignal } from "./stream";

// One record of a Stream source as the service's column renderer sees it (keboola-as-code
// internal/pkg/service/stream/mapping/recordctx): when it arrived, the client's IP, the headers,
// the body, and the body parsed once for all the columns (and all the sinks) of the record.
// Written once for the emulator's ingestion and test endpoint and the provider's example checks.

interface RecordBase {
  /** Receive time, epoch milliseconds. */
  receivedAt: number;
  /** Client IP as Go prints it ("1.2.3.4", "::1"). */
  ip: string;
  /** Canonical header names ("Content-Type") -> first value, sorted by name (headersOf). */
  headers: Record<string, string>;
}

/** A request to an HTTP source (recordctx/http.go): its body is the raw request body. */
export interface HttpRecordInput extends RecordBase {
  source: "http";
  body: string;
}

/**
 * One flattened OTLP record (recordctx/otlp.go FromOTLP): a log record, a metric data point or
 * a span, as an ordered map of the values Go decoded (json-node.ts asDecodedByGo). The headers
 * are those of the HTTP request that carried it.
 */
export interface OtlpRecordInput extends RecordBase {
  source: "otlp";
  signal: StreamSignal;
  record: JObject;
}

export type RecordInput = HttpRecordInput | OtlpRecordInput;

/**
 * The body text of an OTLP record (recordctx/otlp.go bodyBytesWithoutLock): json.Marshal of its
 * orderedmap with json-iterator's standard-library configuration (recordctx/utils.go). The map's
 * MarshalJSON (keboola/go-utils v1.4.0 pkg/orderedmap/json.go) writes each key and each value
 * with encoding/json's Encoder, which ends every one with a newline, and json-iterator v1.1.12
 * (reflect_marshaler.go marshalerEncoder) trims only a final newline; nested maps are compacted
 * by encoding/json. So `{"a":1,"b":{"c":2}}` is `{"a"\n:1\n,"b"\n:{"c":2}\n}` (observed with those
 * versions, the ones keboola-as-code's go.mod pins).
 */
export function otlpBodyText(record: JObject): string {
  return "{" + record.entries.map(([k, v]) => `${goJSON(k)}\n:${goMarshal(v)}\n`).join(",") + "}";
}

/** Per-record parsed values shared by all columns (and all sinks) of one record. */
export class MappedRecord {
  private json?: { ok: true; node: JNode } | { ok: false; error: string };
  private bodyMapCache?: { ok: true; value: JsonObject } | { ok: false; error: string };
  /** The body as the body column, BodyStr() and the JSON path lookups see it. */
  readonly body: string;
  readonly template: TemplateContext;

  constructor(readonly input: RecordInput) {
    this.body = input.source === "http" ? input.body : otlpBodyText(input.record);
    const now = new Date(input.receivedAt);
    this.template = { ip: input.ip, body: this.body, headers: input.headers, now, ...(input.source === "otlp" ? { bodyMap: this.bodyMap() } : {}) };
  }

  /** The OTLP signal; "" for a record of an HTTP source. */
  get signal(): StreamSignal | "" {
    return this.input.source === "otlp" ? this.input.signal : "";
  }

  get contentType(): string {
    return this.input.headers["Content-Type"] ?? "";
  }

  /** The body parsed as path columns over a JSON body read it (fastjson); throws the service's text. */
  jsonValue(): JNode {
    if (!this.json) {
      try {
        this.json = { ok: true, node: parseJSON(this.body) };
      } catch (e) {
        // An OTLP record's text is always valid JSON (recordctx/otlp.go has its own prefix for the impossible case).
        this.json = { ok: false, error: `cannot parse request json:\n- cannot parse JSON: ${e instanceof Error ? e.message : String(e)}` };
      }
    }
    if (!this.json.ok) throw new Error(this.json.error);
    return this.json.node;
  }

  /**
   * The body as a map (recordctx BodyMap): an HTTP body parsed by its Content-Type, an OTLP
   * record as it is whatever the Content-Type (recordctx/otlp.go BodyMap). Throws the service's text.
   */
  bodyMap(): JsonObject {
    if (!this.bodyMapCache) {
      const input = this.input;
      if (input.source === "otlp") {
        this.bodyMapCache = { ok: true, value: toPlainObject(input.record) };
      } else {
        try {
          this.bodyMapCache = { ok: true, value: parseBody(this.contentType, input.body) };
        } catch (e) {
          this.bodyMapCache = { ok: false, error: e instanceof Error ? e.message : String(e) };
        }
      }
    }
    if (!this.bodyMapCache.ok) throw new Error(this.bodyMapCache.error);
    return this.bodyMapCache.value;
  }
}

/** Canonical name -> first value, sorted (as the template globals see them); `skip` are canonical names left out. */
export function headersOf(raw: Record<string, string | readonly string[] | undefined>, skip: string[] = []): Record<string, string> {
  const headers = headersMap(raw);
  for (const key of skip) delete headers[key];
  return headers;
}

/** Go's net.IP.String() of a socket address ("::ffff:1.2.3.4" -> "1.2.3.4"). */
export function ipString(address: string | undefined): string {
  return address ? clientIpString(address) : "<nil>";
}

function isIP(s: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(s) || (s.includes(":") && /^[0-9a-fA-F:.]+$/.test(s));
}

/** The service's client IP: X-Real-IP, else the first IP of X-Forwarded-For, else the socket address. */
export function clientIp(headers: Record<string, string>, remoteAddress: string | undefined): string {
  const real = headers["X-Real-Ip"];
  if (real && isIP(real.trim())) return ipString(real.trim());
  const forwarded = headers["X-Forwarded-For"];
  if (forwarded) {
    for (const part of forwarded.split(",")) {
      let candidate = part.trim();
      const hostPort = /^\[?([^\]]+)\]?:\d+$/.exec(candidate);
      if (hostPort && (isIP(hostPort[1]) && !hostPort[1].includes(":") || candidate.startsWith("["))) candidate = hostPort[1];
      if (isIP(candidate)) return ipString(candidate);
    }
  }
  return ipString(remoteAddress);
}
