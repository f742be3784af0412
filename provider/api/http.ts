import { Agent, request as undiciRequest, errors as undiciErrors } from "undici";
import { KeboolaApiError, KeboolaNetworkError, redact, registerSecret, type RequestInfo, type Service } from "./errors";

// One HTTP layer for all Keboola services: token header, timeouts, and retries that are safe.
// A request is retried on 429 (honouring Retry-After), on 5xx and on network errors only when
// repeating it cannot do harm (`retry: "idempotent"`). A create (`retry: "rejected-only"`)
// is retried only when the server certainly did not process it (429, connection refused);
// the caller resolves any other failure by reading the object back.

export type RetryPolicy = "idempotent" | "rejected-only";

export interface HttpOptions {
  token: string;
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
}

export interface HttpResponse<T> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | undefined>;
}

export class HttpClient {
  private readonly agent: Agent;
  private readonly opts: Required<Omit<HttpOptions, "userAgent">> & { userAgent: string };

  constructor(options: HttpOptions) {
    registerSecret(options.token);
    this.opts = {
      connectTimeoutMs: 10_000,
      headersTimeoutMs: 60_000,
      bodyTimeoutMs: 60_000,
      maxAttempts: 5,
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
    const url = buildUrl(req);
    const info: RequestInfo = { service: req.service, method: req.method, path: redact(url.pathname + url.search) };
    const policy = req.retry ?? (req.method === "GET" ? "idempotent" : "rejected-only");
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= this.opts.maxAttempts;
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
        if (last || !retryable) throw new KeboolaNetworkError(info, message, ambiguous);
        await delay(this.backoff(attempt));
        continue;
      }
      const text = await res.body.text();
      if (res.statusCode < 400) {
        return { status: res.statusCode, body: parseBody(text) as T, headers: res.headers };
      }
      const retryable = res.statusCode === 429 || (res.statusCode >= 500 && policy === "idempotent");
      if (!last && retryable) {
        await delay(this.retryDelay(attempt, res.headers["retry-after"]));
        continue;
      }
      const { code, message } = parseError(text);
      throw new KeboolaApiError(res.statusCode, code, message, info);
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  private headers(req: HttpRequest): Record<string, string> {
    const h: Record<string, string> = {
      "X-StorageApi-Token": this.opts.token,
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
  if (body && typeof body === "object") {
    const b = body as Record<string, unknown>;
    if (typeof b.message === "string" && typeof b.error === "string") return { code: b.error, message: b.message };
    if (typeof b.error === "string") return { code: typeof b.code === "string" ? b.code : undefined, message: b.error };
    if (typeof b.message === "string") return { code: typeof b.code === "string" ? b.code : undefined, message: b.message };
  }
  return { code: undefined, message: typeof body === "string" && body ? body.slice(0, 500) : "(empty body)" };
}

// A refused connection never reached the server; anything after the request was sent may
// have been processed.
function describeNetworkError(err: unknown): { message: string; ambiguous: boolean } {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  const message = `${code ?? "network error"}: ${e.cause?.message ?? e.message ?? String(err)}`;
  const notSent = code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EAI_AGAIN" || err instanceof undiciErrors.ConnectTimeoutError;
  return { message, ambiguous: !notSent };
}

const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
