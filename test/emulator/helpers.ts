// Generic helpers for tests that talk HTTP to an in-process emulator.

export interface CallOptions {
  token?: string | null;
  json?: unknown;
  form?: Record<string, string>;
  body?: NonNullable<RequestInit["body"]>;
  headers?: Record<string, string>;
}

export interface CallResult<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

/** Calls `baseUrl + path`; the body is parsed as JSON when it is JSON. `token: null` sends no token. */
export async function call<T = any>(baseUrl: string, method: string, path: string, opts: CallOptions = {}): Promise<CallResult<T>> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token) headers["X-StorageApi-Token"] = opts.token;
  let body: NonNullable<RequestInit["body"]> | undefined = opts.body;
  if (opts.json !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(opts.json);
  } else if (opts.form) {
    headers["Content-Type"] = "application/x-www-form-urlencoded";
    body = new URLSearchParams(opts.form).toString();
  }
  const res = await fetch(baseUrl + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  if ((res.headers.get("Content-Type") ?? "").includes("json") && text) parsed = JSON.parse(text);
  return { status: res.status, body: parsed as T, text, headers: res.headers };
}

/** Polls `fn` until `done` holds (no fixed sleeps: a short pause between polls only). */
export async function pollUntil<T>(fn: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`pollUntil: condition not met within ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
