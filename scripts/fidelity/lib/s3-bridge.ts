import { Hash } from "@smithy/hash-node";
import { SignatureV4 } from "@smithy/signature-v4";
import * as http from "node:http";
import * as http2 from "node:http2";
import type { Duplex } from "node:stream";
import type { TlsMaterial } from "./certs";
import { endWith, forward, listeningPort, plainHeaders, readBody } from "./http-forward";
import type { RequestLog } from "./request-log";
import type { IssuedCredentials } from "./s3-credentials";

// The S3 bridge, an HTTPS_PROXY for the Go clients. The AWS SDK in keboola-sdk-go (file and table
// transfers, fixture uploads) sends objects to AWS, virtual-hosted style
// (https://<bucket>.s3.<region>.amazonaws.com/<key>), and ignores the emulator-only `s3Endpoint`.
// Nothing there is reachable, and the emulator's object store is path-style under /files. The
// bridge terminates `CONNECT *.amazonaws.com` with the local CA, maps each request to
// `<emulator>/files/<bucket>/<key>` and re-signs it with SigV4 (the signer and settings the
// emulator verifies with), with the credentials the emulator issued, because host and path
// change. The body and the `x-amz-*` headers pass through unchanged. Any other CONNECT, and any
// plain proxied request, is refused: there is no network here.

export interface S3Bridge {
  server: http.Server;
  /** The proxy URL, for HTTPS_PROXY. */
  url: string;
}

const xmlError = (code: string, message: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`;

/** `20240101T120000Z` as a Date; now when malformed (the emulator then rejects the signature). */
function amzDate(value: string): Date {
  const m = /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/.exec(value);
  return m ? new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6])) : new Date();
}

function queryRecord(query: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(query)) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

export function startS3Bridge(tls: TlsMaterial, emulatorUrls: string[], credentials: IssuedCredentials, log: RequestLog): Promise<S3Bridge> {
  const mitm = http2.createSecureServer({ key: tls.key, cert: tls.cert, allowHTTP1: true }, async (r, res) => {
    const t0 = Date.now();
    const host = String(r.headers[":authority"] ?? r.headers.host ?? "").replace(/:443$/, "");
    const rawUrl = r.url;
    const q = rawUrl.indexOf("?");
    const rawPath = q < 0 ? rawUrl : rawUrl.slice(0, q);
    const query = q < 0 ? "" : rawUrl.slice(q + 1);
    let status = 0;
    let errText: string | undefined;
    let slot: number | undefined;
    try {
      const body = await readBody(r);
      const vh = /^(.+)\.s3[.-]/.exec(host);
      const bucketPath = vh ? `/${vh[1]}${rawPath}` : rawPath; // virtual-hosted or path style
      const auth = String(r.headers.authorization ?? "");
      const cm = /Credential=([^/,\s]+)\/\d{8}\/([^/]+)\/s3\/aws4_request/.exec(auth);
      const cred = cm ? credentials.get(cm[1]) : undefined;
      if (!cm || !cred) {
        status = 403;
        errText = `fidelity s3 bridge: unknown or missing credentials (${cm ? cm[1] : "no Authorization header"})`;
        res.writeHead(403, { "content-type": "application/xml" });
        res.end(xmlError("InvalidAccessKeyId", errText));
      } else {
        slot = cred.slot;
        const target = new URL(emulatorUrls[cred.slot]);
        const newPath = `/files${bucketPath}`;
        const headers = plainHeaders(r.headers);
        delete headers.authorization;
        // Sign exactly the headers the client signed, with the new host.
        const signed = new Set((/SignedHeaders=([^,\s]+)/.exec(auth)?.[1] ?? "host").split(";"));
        const toSign: Record<string, string> = {};
        for (const [k, v] of Object.entries(headers)) if (signed.has(k.toLowerCase())) toSign[k] = Array.isArray(v) ? v.join(",") : v;
        toSign.host = target.host;
        if (signed.has("content-length")) toSign["content-length"] = String(body.length);
        const sessionToken = r.headers["x-amz-security-token"];
        const signer = new SignatureV4({
          credentials: { accessKeyId: cm[1], secretAccessKey: cred.secret, ...(typeof sessionToken === "string" ? { sessionToken } : {}) },
          region: cm[2],
          service: "s3",
          sha256: Hash.bind(null, "sha256"),
          uriEscapePath: false,
          applyChecksum: false,
        });
        const out = await signer.sign(
          { method: r.method, protocol: "http:", hostname: target.hostname, port: Number(target.port), path: newPath, query: queryRecord(query), headers: toSign },
          { signingDate: amzDate(String(r.headers["x-amz-date"] ?? "")), signableHeaders: signed },
        );
        const authorization = out.headers.authorization ?? out.headers.Authorization;
        const up = await forward(target, r.method, newPath + (query ? `?${query}` : ""), { ...headers, authorization }, body);
        status = up.status;
        if (status >= 400) errText = up.body.toString("utf8").slice(0, 400);
        const hdrs = plainHeaders(up.headers);
        if (r.method !== "HEAD") hdrs["content-length"] = String(up.body.length); // HEAD keeps the object's length
        res.writeHead(status, hdrs);
        endWith(res, r.method === "HEAD" ? undefined : up.body);
      }
    } catch (e) {
      status = 502;
      errText = `fidelity s3 bridge: ${e instanceof Error ? e.message : String(e)}`;
      try {
        res.writeHead(502, { "content-type": "text/plain" });
        res.end(errText);
      } catch {
        // The client is gone.
      }
    }
    log.write({ t: t0, ms: Date.now() - t0, emu: slot, s3: host, ua: String(r.headers["user-agent"] ?? "").slice(0, 60), method: r.method, url: rawUrl.slice(0, 300), status, ...(errText ? { err: errText } : {}) });
  });

  const refused = "fidelity proxy: no network here";
  const server = http.createServer((r, res) => {
    log.write({ t: Date.now(), proxy: true, method: r.method ?? "", url: r.url ?? "", status: 502, err: refused });
    res.writeHead(502, { "content-type": "text/plain" });
    res.end(`${refused}\n`);
  });
  server.on("connect", (r: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const host = String(r.url).split(":")[0];
    if (!/(^|\.)amazonaws\.com$/.test(host)) {
      log.write({ t: Date.now(), proxy: true, method: "CONNECT", url: r.url ?? "", status: 502, err: refused });
      socket.end("HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n");
      return;
    }
    socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length) socket.unshift(head);
    mitm.emit("connection", socket);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, url: `http://127.0.0.1:${listeningPort(server)}` })));
}
