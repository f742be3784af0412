// Typed errors for every failure that reaches a user. Messages never contain the token or
// other secrets: everything built from request data passes through `redact` first.

import { maskIngestionSecrets } from "../../keboola/secrets";

export type Service = "storage" | "stream" | "queue" | "streamIn" | "encryption" | "scheduler";

const secrets = new Set<string>();

/** What was thrown, as an Error (a thrown string or other value becomes one with its text). */
export function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/** Remember a value that must never appear in an error message or log line. */
export function registerSecret(value: string | undefined): void {
  if (value && value.length >= 6) secrets.add(value);
}

export function redact(text: string): string {
  let out = text;
  for (const s of secrets) out = out.split(s).join("[secret]");
  return maskIngestionSecrets(out);
}

export interface RequestInfo {
  service: Service;
  method: string;
  /** Path and query, already redacted. */
  path: string;
}

/** The API answered with an error status. */
export class KeboolaApiError extends Error {
  override readonly name = "KeboolaApiError";
  constructor(
    readonly status: number,
    /** Service error code, e.g. `stream.api.sinkNotFound` or `storage.tables.notFound`. */
    readonly code: string | undefined,
    readonly apiMessage: string,
    readonly request: RequestInfo,
  ) {
    super(redact(`${request.method} ${request.path} (${request.service}) failed with ${status}${code ? ` ${code}` : ""}: ${apiMessage}`));
  }
}

/** No usable answer: connection refused/reset, timeout. `ambiguous` when the request may have been processed. */
export class KeboolaNetworkError extends Error {
  override readonly name = "KeboolaNetworkError";
  constructor(
    readonly request: RequestInfo,
    readonly causeMessage: string,
    readonly ambiguous: boolean,
  ) {
    super(redact(`${request.method} ${request.path} (${request.service}) failed: ${causeMessage}`));
  }
}

/** An async task or job ended in anything but success. */
export class KeboolaTaskError extends Error {
  override readonly name = "KeboolaTaskError";
  constructor(
    readonly taskId: string,
    readonly taskMessage: string,
    what: string,
  ) {
    super(redact(`${what}: task ${taskId} failed: ${taskMessage}`));
  }
}

export class KeboolaTimeoutError extends Error {
  override readonly name = "KeboolaTimeoutError";
  constructor(what: string, taskId: string, seconds: number) {
    super(redact(`${what}: task ${taskId} did not finish within ${seconds}s (raise keboola:taskTimeout or KBC_TASK_TIMEOUT)`));
  }
}

/**
 * The host answered, but not as a Keboola API does (HTML, plain text, another service): usually a
 * wrong `keboola:host` or a proxy's error page.
 */
/**
 * The project guard (keboola:projectId, client.ts verifyProject): the token belongs to another
 * project than the settings are guarded to. Both projects named, and both ways out; nothing else
 * was read or written when it is thrown.
 */
export class ProjectGuardError extends Error {
  override readonly name = "ProjectGuardError";
  constructor(
    readonly expected: number,
    readonly actual: { id: number; name: string },
  ) {
    super(
      `this stack is guarded to project ${expected} (keboola:projectId or KBC_PROJECT_ID) but the token belongs to project ${actual.id} (${actual.name}): nothing was read or written. ` +
        `Use a token of project ${expected} (\`pulumi config set --secret keboola:token <token of project ${expected}>\`, or the explicit provider's token), ` +
        `or, if the stack is meant to manage project ${actual.id}, \`pulumi config set keboola:projectId ${actual.id}\`. ` +
        "`pulumi refresh` and `pulumi destroy` use the settings stored with the stack: run them with --run-program to use the changed config.",
    );
  }
}

export class KeboolaProtocolError extends Error {
  override readonly name = "KeboolaProtocolError";
  constructor(
    readonly request: RequestInfo,
    readonly host: string,
    what: string,
  ) {
    super(
      redact(
        `${request.method} ${request.path} (${request.service}): ${host} answered ${what}, not a Keboola API answer. ` +
          "Check keboola:host (e.g. https://connection.keboola.com for the US stack) and the stream/queue URL overrides.",
      ),
    );
  }
}

/**
 * A write whose outcome is unknown: the request may have been processed although no answer came
 * back (reset or timeout after sending, or a 5xx from a proxy or from the service mid-way).
 * The object must be read back before deciding anything.
 */
export function isAmbiguous(err: unknown): boolean {
  if (err instanceof KeboolaNetworkError) return err.ambiguous;
  return err instanceof KeboolaApiError && (err.status >= 500 || err.status === 408);
}

export function isNotFound(err: unknown): boolean {
  return err instanceof KeboolaApiError && err.status === 404;
}

export function isConflict(err: unknown): boolean {
  return err instanceof KeboolaApiError && err.status === 409;
}

/** Resolves to undefined when the call answers 404, so "gone" is a value, not an exception. */
export async function notFoundAsUndefined<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
