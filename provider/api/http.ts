import { Agent, request as undiciRequest, errors as undiciErrors } from "undici";
import { KeboolaApiError, KeboolaNetworkError, KeboolaProtocolError, redact, registerSecret, type RequestInfo, type Service } from "./errors";
import { isRecord } from "../../keboola/json";
import { keepWasmOnBaselineCompiler } from "./v8-memory";

// One HTTP layer for all Keboola services: token header, timeouts, and retries that are safe.
// A request is retried on 429 (honouring Retry-After), on 5xx and on network errors only when
// repeating it cannot do harm (`retry: "idempotent"`). A create (`retry: "rejected-only"`)
// is retried only when the server certainly did not process it (429, connection refused);
// the caller resolves any other failure by reading the object back.
//
// Every logical request has a deadline (`requestTimeoutMs`, default 30 s, across its retries), so
// a host that accepts connections and never answers fails a preview in about that time instead of
// hanging it for minutes. Answers that are not JSON (an HTML page, a proxy's text) are named as
// such: they mean the host is not a Keboola API.

export type RetryPolicy = "idempotent" | "rejected-only";

export interface HttpOptions {
  token: string;
  /** Deadline of one logical request including its retries, in milliseconds. */
  requestTimeoutMs?: number;
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  maxAttempts?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** Upper bound for an honoured Retry-After, in seconds. */
  retryAfterCapSeconds?: number;
  userAgent?: string;
}

export interface HttpRequest {
  service: Service;
  baseUrl: string;
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  json?: unknown;
  form?: Record<string, string>;
  /** Raw body (for ingestion). */
  body?: string;
  headers?: Record<string, string>;
  retry?: RetryPolicy;
  /** What a successful answer is: JSON (default) or any text (CSV previews, health checks). */
  expect?: "json" | "text";
  /** A public endpoint (the Encryption API): the Storage token is not sent where it is not needed. */
  anonymous?: boolean;
  /** The project guard's own request (tokens/verify): sent without waiting for the guard's verdict. */
  unguarded?: boolean;
}

export interface HttpResponse<T> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | undefined>;
}

export class HttpClient {
  private readonly agent: Agent;
  private readonly opts: Required<Omit<HttpOptions, "userAgent">> & { userAgent: string };

  /**
   * `guard`: awaited before every request but an `unguarded` one, so that nothing is read or
   * written before the token's project is verified (client.ts verifyProject; absent: no guard).
   */
  constructor(
    options: HttpOptions,
    private readonly guard?: () => Promise<void>,
  ) {
    registerSecret(options.token);
    // Before undici compiles its parser (WebAssembly) for the first request: see v8-memory.ts.
    keepWasmOnBaselineCompiler();
    const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.opts = {
      requestTimeoutMs,
      connectTimeoutMs: Math.min(10_000, requestTimeoutMs),
      headersTimeoutMs: requestTimeoutMs,
      bodyTimeoutMs: requestTimeoutMs,
      maxAttempts: 8,
      retryBaseMs: 200,
      retryMaxMs: 5_000,
      retryAfterCapSeconds: 60,
      userAgent: "keboola-pulumi",
      ...options,
    };
    this.agent = new Agent({
      connect: { timeout: this.opts.connectTimeoutMs },
      headersTimeout: this.opts.headersTimeoutMs,
      bodyTimeout: this.opts.bodyTimeoutMs,
    });
  }

  async request<T>(req: HttpRequest): Promise<HttpResponse<T>> {
    if (this.guard && !req.unguarded) await this.guard();
    const url = buildUrl(req);
    const info: RequestInfo = { service: req.service, method: req.method, path: redact(url.pathname + url.search) };
    const policy = req.retry ?? (req.method === "GET" ? "idempotent" : "rejected-only");
    const deadline = Date.now() + this.opts.requestTimeoutMs;
    // Another attempt only when its wait still ends before the deadline.
    const lastBefore = (attempt: number, wait: number) => attempt >= this.opts.maxAttempts || Date.now() + wait >= deadline;
    for (let attempt = 1; ; attempt++) {
      let res: Awaited<ReturnType<typeof undiciRequest>>;
      try {
        res = await undiciRequest(url, {
          method: req.method,
          dispatcher: this.agent,
          headers: this.headers(req),
          body: encodeBody(req),
        });
      } catch (err) {
        const { message, ambiguous } = describeNetworkError(err);
        const retryable = policy === "idempotent" || !ambiguous;
        const wait = this.backoff(attempt);
        if (!retryable || lastBefore(attempt, wait)) throw new KeboolaNetworkError(info, message, ambiguous);
        await delay(wait);
        continue;
      }
      let text: string;
      try {
        text = await res.body.text();
      } catch (err) {
        // The answer broke off mid-body: as ambiguous as no answer at all.
        const { message } = describeNetworkError(err);
        const wait = this.backoff(attempt);
        if (policy !== "idempotent" || lastBefore(attempt, wait)) throw new KeboolaNetworkError(info, message, true);
        await delay(wait);
        continue;
      }
      const notJson = foreignAnswer(res.headers["content-type"], text);
      if (res.statusCode < 400) {
        if (notJson && (req.expect ?? "json") === "json") throw new KeboolaProtocolError(info, url.origin, notJson);
        // The answer as the caller's type says the API documents it (keboola/*-answers.ts): the one
        // place an API answer is typed without a check (a schema per answer would restate them all).
        return { status: res.statusCode, body: parseBody(text) as T, headers: res.headers };
      }
      const retryable = res.statusCode === 429 || (res.statusCode >= 500 && policy === "idempotent");
      const wait = this.retryDelay(attempt, res.headers["retry-after"]);
      if (retryable && !lastBefore(attempt, wait)) {
        await delay(wait);
        continue;
      }
      // A 4xx page that is not JSON comes from something that is not the Keboola API (a wrong
      // host or path); a 5xx page is a proxy passing on an outage, reported as the status it is.
      if (notJson && res.statusCode < 500) throw new KeboolaProtocolError(info, url.origin, `${res.statusCode} with ${notJson}`);
      const { code, message } = parseError(text);
      throw new KeboolaApiError(res.statusCode, code, message, info);
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  private headers(req: HttpRequest): Record<string, string> {
    const h: Record<string, string> = {
      ...(req.anonymous ? {} : { "X-StorageApi-Token": this.opts.token }),
      "User-Agent": this.opts.userAgent,
      Accept: "application/json",
      ...req.headers,
    };
    if (req.json !== undefined) h["Content-Type"] = "application/json";
    if (req.form !== undefined) h["Content-Type"] = "application/x-www-form-urlencoded";
    return h;
  }

  private backoff(attempt: number): number {
    const exp = Math.min(this.opts.retryMaxMs, this.opts.retryBaseMs * 2 ** (attempt - 1));
    // Full jitter spreads concurrent retries of parallel resource operations.
    return Math.round(exp / 2 + (Math.random() * exp) / 2);
  }

  private retryDelay(attempt: number, retryAfter: string | string[] | undefined): number {
    const value = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
    if (value !== undefined) {
      const seconds = Number(value);
      if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds, this.opts.retryAfterCapSeconds) * 1000;
      const date = Date.parse(value);
      if (!Number.isNaN(date)) return Math.min(Math.max(0, date - Date.now()), this.opts.retryAfterCapSeconds * 1000);
    }
    return this.backoff(attempt);
  }
}

function buildUrl(req: HttpRequest): URL {
  const url = new URL(req.baseUrl.replace(/\/+$/, "") + req.path);
  for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  return url;
}

function encodeBody(req: HttpRequest): string | undefined {
  if (req.json !== undefined) return JSON.stringify(req.json);
  if (req.form !== undefined) return new URLSearchParams(req.form).toString();
  return req.body;
}

/** Describes an answer that is not JSON (`an HTML page`, `plain text`), or undefined for JSON or an empty body. */
function foreignAnswer(contentType: string | string[] | undefined, text: string): string | undefined {
  const type = (Array.isArray(contentType) ? contentType[0] : contentType ?? "").toLowerCase();
  const body = text.trimStart();
  if (body === "") return undefined;
  if (type.includes("html") || /^<(!doctype|html|head|body)/i.test(body)) return "an HTML page";
  if (type.includes("json")) return undefined;
  try {
    JSON.parse(body);
    return undefined;
  } catch {
    return `non-JSON text (${type || "no content type"})`;
  }
}

function parseBody(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Both error shapes: Stream `{statusCode, error: code, message}`, Storage/Queue `{error: message, code}`. */
export function parseError(text: string): { code: string | undefined; message: string } {
  const body = parseBody(text);
  if (isRecord(body)) {
    if (typeof body.message === "string" && typeof body.error === "string") return { code: body.error, message: body.message };
    if (typeof body.error === "string") return { code: typeof body.code === "string" ? body.code : undefined, message: body.error };
    if (typeof body.message === "string") return { code: typeof body.code === "string" ? body.code : undefined, message: body.message };
  }
  return { code: undefined, message: typeof body === "string" && body ? body.slice(0, 500) : "(empty body)" };
}

// A refused connection never reached the server; anything after the request was sent may
// have been processed.
function describeNetworkError(err: unknown): { message: string; ambiguous: boolean } {
  const e = isRecord(err) ? err : {};
  const cause = isRecord(e.cause) ? e.cause : {};
  const code = e.code ?? cause.code;
  const message = `${code ?? "network error"}: ${cause.message ?? e.message ?? String(err)}`;
  const notSent = code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EAI_AGAIN" || err instanceof undiciErrors.ConnectTimeoutError;
  return { message, ambiguous: !notSent };
}

const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
