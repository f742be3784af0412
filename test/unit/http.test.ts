import { afterEach, describe, expect, it } from "vitest";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { HttpClient } from "../../provider/api/http";
import { KeboolaApiError, KeboolaNetworkError } from "../../provider/api/errors";

// The HTTP layer's retry rules, against a scripted local server.

let server: Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

async function serve(answers: Array<(req: IncomingMessage, res: ServerResponse) => void>): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  server = createServer((req, res) => {
    const answer = answers[Math.min(hits, answers.length - 1)];
    hits++;
    req.resume();
    req.on("end", () => answer(req, res));
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, hits: () => hits };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(status, { "Content-Type": "application/json", ...headers });
  res.end(JSON.stringify(body));
};
const reset = (req: IncomingMessage) => req.socket.destroy();

const TOKEN = "secret-token-123456";
const client = () => new HttpClient({ token: TOKEN, retryBaseMs: 1, retryMaxMs: 5 });

describe("HttpClient", () => {
  it("honours Retry-After on 429 before trying again", async () => {
    const s = await serve([json(429, { error: "slow down" }, { "Retry-After": "1" }), json(200, { ok: true })]);
    const started = Date.now();
    const res = await client().request<{ ok: boolean }>({ service: "storage", baseUrl: s.url, method: "GET", path: "/x" });
    expect(res.body.ok).toBe(true);
    expect(s.hits()).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it("retries idempotent requests on 5xx and resets", async () => {
    const s = await serve([json(503, { error: "down" }), reset, json(502, {}), json(200, { ok: 1 })]);
    const res = await client().request({ service: "stream", baseUrl: s.url, method: "PATCH", path: "/x", json: {}, retry: "idempotent" });
    expect(res.status).toBe(200);
    expect(s.hits()).toBe(4);
  });

  it("does not repeat a create after an ambiguous failure, and says it is ambiguous", async () => {
    const s = await serve([reset, json(202, {})]);
    const err = await client()
      .request({ service: "stream", baseUrl: s.url, method: "POST", path: "/v1/branches/default/sources", json: {} })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KeboolaNetworkError);
    expect((err as KeboolaNetworkError).ambiguous).toBe(true);
    expect(s.hits()).toBe(1);

    const s500 = await (async () => {
      await new Promise<void>((r) => server!.close(() => r()));
      return serve([json(500, { statusCode: 500, error: "stream.api.internalError", message: "boom" }), json(202, {})]);
    })();
    const apiErr = await client()
      .request({ service: "stream", baseUrl: s500.url, method: "POST", path: "/v1/x", json: {} })
      .catch((e: unknown) => e);
    expect(apiErr).toBeInstanceOf(KeboolaApiError);
    expect(s500.hits()).toBe(1);
  });

  it("retries a create that was certainly rejected (429)", async () => {
    const s = await serve([json(429, {}, { "Retry-After": "0" }), json(202, { taskId: "t" })]);
    const res = await client().request({ service: "stream", baseUrl: s.url, method: "POST", path: "/x", json: {} });
    expect(res.status).toBe(202);
    expect(s.hits()).toBe(2);
  });

  it("parses both error shapes and never puts the token in the message", async () => {
    const s = await serve([json(404, { statusCode: 404, error: "stream.api.sourceNotFound", message: `Source "x" not found in the branch.` })]);
    const err = (await client()
      .request({ service: "stream", baseUrl: s.url, method: "GET", path: `/v1/x?token=${TOKEN}` })
      .catch((e: unknown) => e)) as KeboolaApiError;
    expect(err.status).toBe(404);
    expect(err.code).toBe("stream.api.sourceNotFound");
    expect(err.message).toContain('Source "x" not found in the branch.');
    expect(err.message).not.toContain(TOKEN);

    await new Promise<void>((r) => server!.close(() => r()));
    const s2 = await serve([json(403, { error: "You don't have access to the resource.", code: "accessDenied", status: "error" })]);
    const err2 = (await client().request({ service: "storage", baseUrl: s2.url, method: "GET", path: "/v2" }).catch((e: unknown) => e)) as KeboolaApiError;
    expect([err2.status, err2.code, err2.apiMessage]).toEqual([403, "accessDenied", "You don't have access to the resource."]);
  });

  // The ingestion URL is a credential (keboola-api.md, "Sources"): an error quoting one, in its
  // path or in the service's message, shows [secret] where its last segment was, for HTTP
  // (`/stream/<project>/<source>/<secret>`) and OTLP (`/otlp/<project>/<source>/<secret>`) sources
  // alike, though nothing registered the secret beforehand.
  it("shows [secret] in place of an ingestion URL's secret in every error message", async () => {
    const secret = "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7dEf0hIj3kLm6n";
    for (const kind of ["stream", "otlp"]) {
      const path = `/${kind}/4242/app-events/${secret}`;
      const s = await serve([json(404, { statusCode: 404, error: "stream.in.noSourceFound", message: `no source at https://stream-in.keboola.com${path}` })]);
      const err = (await client().request({ service: "streamIn", baseUrl: s.url, method: "POST", path, body: "{}" }).catch((e: unknown) => e)) as KeboolaApiError;
      expect(err).toBeInstanceOf(KeboolaApiError);
      expect(err.message).not.toContain(secret);
      expect(err.message).toContain(`POST /${kind}/4242/app-events/[secret]`);
      expect(err.message).toContain(`https://stream-in.keboola.com/${kind}/4242/app-events/[secret]`);
      await new Promise<void>((r) => server!.close(() => r()));
      server = undefined;
    }
  });
});
