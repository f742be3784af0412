import { isIP } from "node:net";
import type { TemplateContext } from "../jsonnet/engine";
import { parseBody, type JsonObject } from "../jsonnet/body";
import { clientIpString, headersMap } from "../jsonnet/globals";
import { goJSON } from "./go-json";
import { parseFastJSON, type FastValue } from "./fastjson";
import { goMarshal, toPlainObject, type JObject } from "./json-node";
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
  private json?: { ok: true; value: FastValue } | { ok: false; error: string };
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

  /**
   * The body parsed as path columns over a JSON body read it (fastjson), once per record: every
   * column of every sink reads this one value, and reading it can change what is printed later
   * (fastjson.ts). Throws the service's text.
   */
  jsonValue(): FastValue {
    // Stryker disable next-line ConditionalExpression: equivalent: a cache; parsing the same body again gives the same answer
    if (!this.json) {
      try {
        this.json = { ok: true, value: parseFastJSON(this.body) };
      } catch (e) {
        // An OTLP record's text is always valid JSON (recordctx/otlp.go has its own prefix for the impossible case).
        this.json = { ok: false, error: `cannot parse request json:\n- ${e instanceof Error ? e.message : String(e)}` };
      }
    }
    if (!this.json.ok) throw new Error(this.json.error);
    return this.json.value;
  }

  /**
   * The body as a map (recordctx BodyMap): an HTTP body parsed by its Content-Type, an OTLP
   * record as it is whatever the Content-Type (recordctx/otlp.go BodyMap). Throws the service's text.
   */
  bodyMap(): JsonObject {
    // Stryker disable next-line ConditionalExpression: equivalent: a cache; parsing the same body again gives the same answer
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
// Stryker disable next-line ArrayDeclaration: equivalent: a header name has no spaces, so a default naming "Stryker was here" skips nothing, as [] does
export function headersOf(raw: Record<string, string | readonly string[] | undefined>, skip: string[] = []): Record<string, string> {
  const headers = headersMap(raw);
  for (const key of skip) delete headers[key];
  return headers;
}

/** Go's net.IP.String() of a socket address ("::ffff:1.2.3.4" -> "1.2.3.4"). */
export function ipString(address: string | undefined): string {
  return address ? clientIpString(address) : "<nil>";
}

/** Go's net.ParseIP: a dotted IPv4 address (no leading zeros) or an IPv6 one, without a zone. */
function parsesAsIP(s: string): boolean {
  return isIP(s) !== 0 && !s.includes("%");
}

/**
 * The host of Go's net.SplitHostPort ("1.2.3.4:80" -> "1.2.3.4", "[::1]:80" -> "::1"), or
 * undefined where Go answers an error (no port, a bare IPv6 address, a bracket out of place). Go
 * does not check that the port is a number.
 */
function hostOf(hostport: string): string | undefined {
  const colon = hostport.lastIndexOf(":");
  if (colon < 0) return undefined;
  if (hostport.startsWith("[")) return hostport.indexOf("]") === colon - 1 ? hostport.slice(1, colon - 1) : undefined;
  const host = hostport.slice(0, colon);
  return host.includes(":") ? undefined : host;
}

/**
 * The service's client IP (keboola-as-code internal/pkg/utils/ip/ip.go From): X-Real-IP when it
 * parses as an address; else the first part of X-Forwarded-For (split at commas and not trimmed,
 * so " 2.2.2.2" after a comma is no address) that parses, with or without a port; else the socket
 * address.
 */
export function clientIp(headers: Record<string, string>, remoteAddress: string | undefined): string {
  const real = headers["X-Real-Ip"];
  if (real !== undefined && parsesAsIP(real)) return ipString(real);
  for (const part of (headers["X-Forwarded-For"] ?? "").split(",")) {
    const ip = hostOf(part) ?? part;
    if (parsesAsIP(ip)) return ipString(ip);
  }
  return ipString(remoteAddress);
}
