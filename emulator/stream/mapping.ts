import { getJsonnetEngine, type TemplateContext } from "../../jsonnet/engine";
import { getNested, isContentTypeJSON, parseBody, pathFromStr, type JsonObject } from "../../jsonnet/body";
import { clientIpString, headersMap } from "../../jsonnet/globals";
import { uuidV7 } from "../core/random";
import { goJSON } from "./respond";
import { lookup, parseJSON, serialize, type JNode } from "./jsonvalue";
import type { ColumnRecord } from "./state";

// One record (an HTTP request or a flattened OTLP record) mapped to the values of a sink's
// columns, as the strings the real service writes to the CSV and shows in the test endpoint.

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

/** A column could not be mapped; `message` is the real service's error text for the column. */
export class ColumnError extends Error {
  constructor(
    readonly column: ColumnRecord,
    message: string,
  ) {
    super(message);
  }
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

/** Path column over a JSON body (Content-Type is JSON): the value's JSON text, as in the body. */
function jsonPathValue(col: ColumnRecord, rec: MappedRecord): string {
  let node = rec.jsonValue();
  const path = col.path ?? "";
  if (path !== "") {
    const steps = pathFromStr(path).map((s) => ("key" in s ? s.key : s.index));
    const found = lookup(node, steps);
    if (!found) {
      if (col.defaultValue !== undefined) return col.rawString ? col.defaultValue : goJSON(col.defaultValue);
      throw new Error(`path "${path}" not found in the body`);
    }
    node = found;
  }
  if (col.rawString && node.t === "str") return node.v;
  return serialize(node);
}

/** Path column over a form (or otherwise parsed) body. */
function mapPathValue(col: ColumnRecord, rec: MappedRecord): string {
  const body = rec.bodyMap();
  const path = col.path ?? "";
  let value: unknown = body;
  if (path !== "") {
    const found = getNested(body, path);
    if (found.ok) value = found.value;
    else if (col.defaultValue !== undefined) value = col.defaultValue;
    else throw new Error(`path "${path}" not found in the body`);
  }
  if (col.rawString && typeof value === "string") return value;
  return goJSON(value);
}

function templateValue(col: ColumnRecord, rec: MappedRecord): string {
  const template = col.template ?? { language: "jsonnet", content: "" };
  if (template.language !== "jsonnet") {
    throw new Error(`unsupported language "${template.language}", only "jsonnet" is supported`);
  }
  const res = getJsonnetEngine().evaluate(template.content, rec.template);
  if (!res.ok) throw new Error(res.error);
  const json = res.json.replace(/\n+$/, "");
  if (col.rawString && json.startsWith('"')) {
    try {
      const decoded: unknown = JSON.parse(json);
      if (typeof decoded === "string") return decoded;
    } catch {
      // keep the JSON text, as the service does when it does not decode
    }
  }
  return json;
}

/** The CSV value of one column for one record; throws ColumnError. */
export function columnValue(col: ColumnRecord, rec: MappedRecord): string {
  try {
    switch (col.type) {
      case "uuid":
        return uuidV7(Date.now());
      case "datetime":
        return new Date(rec.input.receivedAt).toISOString();
      case "ip":
        return rec.input.ip;
      case "body":
        return rec.input.body;
      case "headers":
        return goJSON(rec.input.headers);
      case "path":
        return isContentTypeJSON(rec.contentType) ? jsonPathValue(col, rec) : mapPathValue(col, rec);
      case "template":
        return templateValue(col, rec);
    }
  } catch (e) {
    throw new ColumnError(col, e instanceof Error ? e.message : String(e));
  }
}

/** Values of all columns, in the mapping order; throws ColumnError at the first failing column. */
export function mapRow(columns: ColumnRecord[], rec: MappedRecord): string[] {
  return columns.map((col) => columnValue(col, rec));
}

/** Static check of a template at sink create/update: the engine's error text, or undefined. */
export function templateCompileError(content: string): string | undefined {
  const res = getJsonnetEngine().compile(content);
  return res.ok ? undefined : res.error;
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
