import type { TemplateContext } from "../jsonnet/engine";
import { parseBody, type JsonObject } from "../jsonnet/body";
import { clientIpString, headersMap } from "../jsonnet/globals";
import { parseJSON, type JNode } from "./json-node";

// One record of a Stream source as the service's column renderer sees it (keboola-as-code
// internal/pkg/service/stream/mapping/recordctx): when it arrived, the client's IP, the headers,
// the body, and the body parsed once for all the columns (and all the sinks) of the record.
// Written once for the emulator's ingestion and test endpoint and the provider's example checks.

export interface RecordInput {
  /** Receive time, epoch milliseconds. */
  receivedAt: number;
  /** Client IP as Go prints it ("1.2.3.4", "::1"). */
  ip: string;
  /** Canonical header names ("Content-Type") -> first value, sorted by name. */
  headers: Record<string, string>;
  /** The body as the columns see it (raw request body; for OTLP the record's compact JSON). */
  body: string;
  /** OTLP signal ("logs", "metrics", "traces"), "" for HTTP records. */
  signal: string;
}

/** Per-record parsed values shared by all columns (and all sinks) of one record. */
export class MappedRecord {
  private json?: { ok: true; node: JNode } | { ok: false; error: string };
  private bodyMapCache?: { ok: true; value: JsonObject } | { ok: false; error: string };
  readonly template: TemplateContext;

  constructor(readonly input: RecordInput) {
    this.template = { ip: input.ip, body: input.body, headers: input.headers, now: new Date(input.receivedAt) };
  }

  get contentType(): string {
    return this.input.headers["Content-Type"] ?? "";
  }

  jsonValue(): JNode {
    if (!this.json) {
      try {
        this.json = { ok: true, node: parseJSON(this.input.body) };
      } catch (e) {
        this.json = { ok: false, error: `cannot parse request json:\n- cannot parse JSON: ${(e instanceof Error ? e.message : String(e))}` };
      }
    }
    if (!this.json.ok) throw new Error(this.json.error);
    return this.json.node;
  }

  bodyMap(): JsonObject {
    if (!this.bodyMapCache) {
      try {
        this.bodyMapCache = { ok: true, value: parseBody(this.contentType, this.input.body) };
      } catch (e) {
        this.bodyMapCache = { ok: false, error: (e instanceof Error ? e.message : String(e)) };
      }
    }
    if (!this.bodyMapCache.ok) throw new Error(this.bodyMapCache.error);
    return this.bodyMapCache.value;
  }
}

/** Canonical name -> first value, sorted (as the template globals see them); `skip` are canonical names left out. */
export function headersOf(raw: Record<string, string | string[] | undefined>, skip: string[] = []): Record<string, string> {
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
