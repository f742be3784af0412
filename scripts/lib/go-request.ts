import * as http from "node:http";
import { gunzipSync } from "node:zlib";
import { isRecord } from "../../keboola/json";

// One HTTP exchange as keboola-as-code's Go harness makes it (resty v2.17 on Go's net/http): the
// headers Go and resty add (User-Agent, Accept copied from a JSON Content-Type, Accept-Encoding:
// gzip, Content-Length), a map body encoded as Go's encoding/json encodes a map (keys sorted,
// HTML-safe escapes), a string body sent as it is, redirects followed (Go follows a 301 of a GET
// with a GET). The Stream API's test endpoint echoes request headers, so they must be the same.

const USER_AGENT = "go-resty/2.17.2 (https://github.com/go-resty/resty)";
const MAX_REDIRECTS = 10;

const GO_ESCAPES: Record<string, string> = { "<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029" };

/** encoding/json.Marshal of a decoded JSON value: object keys sorted, HTML-safe escapes. */
export function goMarshal(value: unknown): string {
  const sortKeys = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sortKeys);
    if (isRecord(v)) {
      const entries = Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return Object.fromEntries(entries.map(([k, x]) => [k, sortKeys(x)]));
    }
    return v;
  };
  return JSON.stringify(sortKeys(value)).replace(/[<>&\u2028\u2029]/g, (ch) => GO_ESCAPES[ch] ?? ch);
}

export interface GoResponse {
  status: number;
  body: string;
}

// resty's IsJSONType.
const isJsonType = (ct: string) => /(application|text)\/(.*json.*)(;|$)/i.test(ct);

function once(url: URL, method: string, headers: Record<string, string>, body: string | undefined): Promise<{ status: number; location?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        let raw = Buffer.concat(chunks);
        if (res.headers["content-encoding"] === "gzip") raw = gunzipSync(raw);
        resolve({ status: res.statusCode ?? 0, location: res.headers.location, body: raw.toString("utf8") });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    // Go's client sends no Connection header (HTTP/1.1 keeps the connection by default).
    req.removeHeader("Connection");
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** Sends `method baseUrl+path` with the given headers and body (a string, or a JSON object). */
export async function goRequest(baseUrl: string, method: string, path: string, headers: Record<string, string>, body: unknown): Promise<GoResponse> {
  const out: Record<string, string> = { "User-Agent": USER_AGENT, ...headers };
  const contentType = Object.entries(headers).find(([k]) => k.toLowerCase() === "content-type")?.[1];
  if (contentType !== undefined && isJsonType(contentType) && !Object.keys(headers).some((k) => k.toLowerCase() === "accept")) out.Accept = contentType;
  out["Accept-Encoding"] = "gzip";
  let payload: string | undefined;
  if (typeof body === "string") payload = body;
  else if (body !== undefined && body !== null) payload = goMarshal(body);
  if (payload !== undefined) out["Content-Length"] = String(Buffer.byteLength(payload));

  let url = new URL(baseUrl + path);
  let m = method;
  for (let hops = 0; ; hops++) {
    const res = await once(url, m, out, m === method ? payload : undefined);
    const location = [301, 302, 303, 307, 308].includes(res.status) ? res.location : undefined;
    if (location === undefined || hops >= MAX_REDIRECTS) return { status: res.status, body: res.body };
    url = new URL(location, url);
    // Go keeps the method and body for 307/308, turns other redirects of non-GET/HEAD into a GET.
    if (![307, 308].includes(res.status) && m !== "GET" && m !== "HEAD") {
      m = "GET";
      payload = undefined;
      delete out["Content-Length"];
    }
  }
}
