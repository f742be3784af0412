import { KeboolaApiError, KeboolaNetworkError, KeboolaProtocolError, KeboolaTaskError, KeboolaTimeoutError, ProjectGuardError, redact } from "../api/errors";
import { ConfigurationError } from "../config";
import type { Method } from "./types";

// What a user reads when an operation fails. The dynamic provider host prints `${err}: ${err.stack}`
// for check, read and delete failures, which is a JavaScript stack trace of our internals; the
// errors below have no trace: their text is the message, which names the resource, the operation
// and what to do.


const OPERATION: Record<Method, string> = {
  check: "checking the inputs",
  diff: "comparing with the state",
  create: "creating",
  read: "reading (refresh)",
  update: "updating",
  delete: "deleting",
};

export class ProviderError extends Error {
  override readonly name = "ProviderError";
  constructor(message: string) {
    super(message);
    // No stack: the host prints it verbatim next to the message.
    this.stack = message;
  }
  override toString(): string {
    return "error";
  }
}

/**
 * What works after a token rotation depends on the command. `pulumi refresh` and `pulumi destroy`
 * do not run the program: the provider gets the configuration stored with the stack's last
 * deployment, so a `pulumi config set` made since does not reach them unless they run the program
 * too (`--run-program`). KBC_TOKEN does not help there: configured settings win over the
 * environment (config.ts). Preview and up run the program with the current config.
 */
function tokenRefused(method: Method): string {
  if (method === "read" || method === "delete") {
    return (
      "The token was refused. `pulumi refresh` and `pulumi destroy` use the token stored with the stack's last deployment, not the current `pulumi config`: " +
      "set the valid one with `pulumi config set --secret keboola:token <token>`, then run them with --run-program (`pulumi refresh --run-program`, `pulumi destroy --run-program`), which runs the program with the current config; the next `pulumi up` stores it."
    );
  }
  return "The token was refused: set a valid one with `pulumi config set --secret keboola:token <token>` (or the explicit provider's token; KBC_TOKEN counts only where neither is set).";
}

/** What to do about a failure of this kind, or undefined when the message already says it. */
function fixFor(err: unknown, method: Method): string | undefined {
  if (err instanceof KeboolaApiError) {
    if (err.status === 401) return tokenRefused(method);
    if (err.status === 403) return "The token may not do this: Stream writes need a master token of a project admin; configurations need access to the component.";
    if (err.status === 429 || err.status >= 500) return "The service is failing or overloaded; nothing is left half-done that a rerun cannot finish: run the same `pulumi up` (or destroy) again.";
    return undefined;
  }
  if (err instanceof KeboolaNetworkError) {
    return "No answer from the API: check keboola:host and the network, or raise keboola:requestTimeout (KBC_REQUEST_TIMEOUT). A rerun is safe: creates are recognised by their owner marker, never repeated blindly.";
  }
  if (err instanceof KeboolaTaskError) return "The service reported the task's failure above; fix the cause and run `pulumi up` again.";
  return undefined;
}

/** A failure of `method` of the resource named `name` of the kind whose class is `cls`, as its user reads it. */
export function userFacingError(cls: string, method: Method, name: string, err: unknown): Error {
  const raw = err instanceof Error ? err.message : String(err);
  // Our own messages already name the resource (`Sink "a/b" (resource "x")`, `VariableConfig "x"`).
  const named = raw.includes(`resource "${name}"`) || raw.startsWith(`${cls} "${name}"`);
  let message = named ? raw : `${cls} "${name}": ${OPERATION[method]} failed: ${raw}`;
  const known =
    err instanceof KeboolaApiError ||
    err instanceof KeboolaNetworkError ||
    err instanceof KeboolaProtocolError ||
    err instanceof KeboolaTaskError ||
    err instanceof KeboolaTimeoutError ||
    err instanceof ProjectGuardError ||
    err instanceof ConfigurationError;
  const fix = fixFor(err, method);
  if (fix) message += ` ${fix}`;
  if (!known && !(err instanceof Error)) message += " (unexpected failure of keboola-pulumi; please report it)";
  return new ProviderError(redact(message));
}
