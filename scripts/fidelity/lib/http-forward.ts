import * as http from "node:http";
import type * as net from "node:net";
import type { Readable } from "node:stream";

// Plain HTTP/1.1 forwarding to an emulator, shared by the Storage front and the S3 bridge. Bodies
// are buffered: the fronts may rewrite them, and the bridge must hash them for SigV4.

export type Headers = Record<string, string | string[]>;

export interface Upstream {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** Hop-by-hop headers and HTTP/2 pseudo-headers, which must not be forwarded. */
const HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te", "http2-settings", "host"]);

export function plainHeaders(h: http.IncomingHttpHeaders | NodeJS.Dict<string | string[]>): Headers {
  const out: Headers = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined && !k.startsWith(":") && !HOP.has(k.toLowerCase())) out[k] = v;
  return out;
}

/** The TCP port a listening server is bound to (Node.js answers a string for a pipe, null before listening). */
export function listeningPort(server: net.Server): number {
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error(`fidelity: the server listens on ${address ?? "nothing"}, not a TCP port`);
  return address.port;
}

export function readBody(stream: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    stream.on("data", (d: Buffer) => parts.push(d));
    stream.on("end", () => resolve(Buffer.concat(parts)));
    stream.on("error", reject);
  });
}

export function forward(target: URL, method: string, pathAndQuery: string, headers: Headers, body: Buffer): Promise<Upstream> {
  return new Promise((resolve, reject) => {
    const r = http.request(
      { host: target.hostname, port: target.port, method, path: pathAndQuery, headers: { ...headers, host: target.host, "content-length": String(body.length) } },
      (res) => {
        readBody(res).then((buf) => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: buf }), reject);
      },
    );
    r.on("error", reject);
    r.end(body);
  });
}

/** Ends an answer with a body, or with none (204, HEAD). */
export function endWith(res: { end(data?: string | Uint8Array): unknown }, body: string | Buffer | undefined): void {
  if (body === undefined) res.end();
  else res.end(body);
}
