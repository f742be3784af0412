import * as http2 from "node:http2";
import type { TlsMaterial } from "./certs";
import { endWith, forward, listeningPort, plainHeaders, readBody } from "./http-forward";
import type { RequestLog } from "./request-log";
import type { IssuedCredentials } from "./s3-credentials";

// The TLS + HTTP/2 front of one emulator. kbc's HTTP client is HTTP/2-only over TLS
// (keboola-as-code httpclient.New, forcedHTTP2), keboola-sdk-go's accepts either, and both expect
// `https://<host>/…` URIs; the emulator serves plain HTTP/1.1. Answers pass through unchanged,
// except that the emulator's own base URL (http://127.0.0.1:<port>) is replaced by the front's
// public URL in text bodies and Location, as a real stack's answers carry its public https URL
// (service index, bucket and table `uri`, `url` fields). Suites add hooks (harness shim, what-ifs);
// whatever a hook answers or changes is tagged in the request log.

/** A request as the hooks see it. */
export interface FrontRequest {
  slot: number;
  method: string;
  /** Path and query, as received. */
  url: string;
  userAgent: string;
  contentType: string;
  body: Buffer;
}

/** An answer a hook gives instead of the emulator. */
export interface CannedAnswer {
  status: number;
  /** JSON text, or none (e.g. 204). */
  body?: string;
  /** What answered, for the request log (`shim`). */
  tag: string;
}

export interface FrontHook {
  /** Answers before the emulator is asked, or leaves the request to it. */
  before?(req: FrontRequest, publicBase: string): CannedAnswer | undefined;
  /** Changes the text of the emulator's answer (still with the emulator's own base URL). */
  rewrite?(req: FrontRequest, status: number, text: string, publicBase: string): { text: string; tag: string } | undefined;
}

export interface FrontListen {
  host: string;
  port: number;
  /** The URL clients know the front by; default `https://localhost:<port>`. */
  publicBase?: string;
}

export interface StorageFront {
  server: http2.Http2SecureServer;
  /** `host:port` as a projects file names it. */
  host: string;
  publicBase: string;
}

export interface StorageFrontOptions {
  slot: number;
  emulatorUrl: string;
  tls: TlsMaterial;
  log: RequestLog;
  credentials: IssuedCredentials;
  hooks: FrontHook[];
  listen?: FrontListen;
}

const json = { "content-type": "application/json" };

export function startStorageFront(o: StorageFrontOptions): Promise<StorageFront> {
  const target = new URL(o.emulatorUrl);
  const listen = o.listen ?? { host: "127.0.0.1", port: 0 };
  let publicBase = listen.publicBase ?? "";
  const server = http2.createSecureServer({ key: o.tls.key, cert: o.tls.cert, allowHTTP1: true }, async (req, res) => {
    const t0 = Date.now();
    const method = req.method;
    const url = req.url;
    const ua = String(req.headers["user-agent"] ?? "");
    let status = 0;
    let errText: string | undefined;
    let tag: string | undefined;
    try {
      const fr: FrontRequest = { slot: o.slot, method, url, userAgent: ua, contentType: String(req.headers["content-type"] ?? ""), body: await readBody(req) };
      for (const hook of o.hooks) {
        const canned = hook.before?.(fr, publicBase);
        if (!canned) continue;
        status = canned.status;
        tag = canned.tag;
        res.writeHead(status, json);
        endWith(res, canned.body);
        o.log.write({ t: t0, ms: Date.now() - t0, emu: o.slot, ua: ua.slice(0, 60), method, url, status, shim: tag });
        return;
      }
      const headers = plainHeaders(req.headers);
      // Identity encoding, so that text answers can be rewritten.
      delete headers["accept-encoding"];
      const up = await forward(target, method, url, headers, fr.body);
      status = up.status;
      let out = up.body;
      const ct = String(up.headers["content-type"] ?? "");
      if (!up.headers["content-encoding"] && /json|text|xml/.test(ct)) {
        let text = out.toString("utf8");
        for (const hook of o.hooks) {
          const changed = hook.rewrite?.(fr, status, text, publicBase);
          if (changed) {
            text = changed.text;
            tag = changed.tag;
          }
        }
        if (text.includes("AccessKeyId")) {
          try {
            o.credentials.snoop(JSON.parse(text), o.slot);
          } catch {
            // Not JSON: nothing to pick up.
          }
        }
        text = text.split(target.origin).join(publicBase);
        out = Buffer.from(text, "utf8");
        if (status >= 400) errText = text.slice(0, 400);
      }
      const hdrs = plainHeaders(up.headers);
      // HEAD keeps the length of what a GET would send.
      if (method !== "HEAD") hdrs["content-length"] = String(out.length);
      if (typeof hdrs.location === "string") hdrs.location = hdrs.location.split(target.origin).join(publicBase);
      res.writeHead(status, hdrs);
      endWith(res, method === "HEAD" ? undefined : out);
    } catch (e) {
      status = 502;
      errText = `fidelity front: ${e instanceof Error ? e.message : String(e)}`;
      try {
        res.writeHead(502, { "content-type": "text/plain" });
        res.end(errText);
      } catch {
        // The client is gone.
      }
    }
    o.log.write({ t: t0, ms: Date.now() - t0, emu: o.slot, ua: ua.slice(0, 60), method, url, status, ...(tag ? { shim: tag } : {}), ...(errText ? { err: errText } : {}) });
  });
  return new Promise((resolve, reject) => {
    server.on("error", reject);
    server.listen(listen.port, listen.host, () => {
      const port = listeningPort(server);
      if (!listen.publicBase) publicBase = `https://localhost:${port}`;
      resolve({ server, host: listen.publicBase ? new URL(publicBase).host : `localhost:${port}`, publicBase });
    });
  });
}
