import * as http from "node:http";
import type { AddressInfo } from "node:net";

// A stand-in of a forge's JSON API (GitHub's, GitLab's) for the pipeline tests: each request is
// read whole and answered by `handle` with a status and a JSON body.

export interface JsonRequest {
  method: string;
  url: URL;
  headers: http.IncomingHttpHeaders;
  /** The request's JSON body, undefined when it has none. */
  body: Record<string, unknown> | undefined;
}

export interface JsonServer {
  url: string;
  close(): Promise<void>;
}

export async function startJsonServer(handle: (req: JsonRequest) => { status: number; body: unknown }): Promise<JsonServer> {
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (d: Buffer) => (raw += d.toString()));
    req.on("end", () => {
      const { status, body } = handle({ method: req.method ?? "GET", url: new URL(req.url ?? "/", "http://x"), headers: req.headers, body: raw ? (JSON.parse(raw) as Record<string, unknown>) : undefined });
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}
