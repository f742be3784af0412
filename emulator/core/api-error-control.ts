// Errors of Keboola's Symfony services (the Job Queue API, the Encryption API), rendered by
// keboola/api-error-control (`src/Message/ExceptionMessage.php` getSafeArray, `ErrorResponse`):
// `{error, code, exceptionId, status: "error", context}`. `code` is a number (keboola-sdk-go
// `QueueError`/`EncryptionError` decode it as an int; for HTTP exceptions it is the status, and
// the services' user exceptions carry their status as code). `context` is kept for user and HTTP
// exceptions only, and is `[]` when empty (a PHP empty array).

export interface ApiErrorControlBody {
  error: string;
  code: number;
  exceptionId: string;
  status: "error";
  context: [];
}

export function apiErrorControlBody(message: string, status: number, exceptionId: string): ApiErrorControlBody {
  return { error: message, code: status, exceptionId, status: "error", context: [] };
}

/**
 * Symfony's message for a request no route matches (`RouterListener`): the method and the URL
 * without its query, and for a known path with another method, the methods it allows.
 */
export function noRouteMessage(method: string, url: string, allowed?: string[]): string {
  const u = new URL(url);
  const base = `No route found for "${method} ${u.origin}${u.pathname}"`;
  return allowed ? `${base}: Method Not Allowed (Allow: ${allowed.join(", ")})` : base;
}
