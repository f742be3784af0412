import type { EmulatorContext } from "../core/context";
import type { StreamErrorBody } from "../../keboola/stream";
import { randomString } from "../core/random";
import { asSentence, goQuote } from "./gofmt";
import { prettyJSONResponse } from "./respond";

// Errors of the Stream API as its error writer renders them:
// `{statusCode, error: "stream.api.<name>", message, exceptionId?}`, message formatted "as a
// sentence" (capitalised, dot appended unless it ends with a special character).
// Errors of the Storage API (e.g. an invalid token) keep their own dotted name.

const DEFAULT_ERROR_MESSAGE =
  "Application error. Please contact our support support@keboola.com with exception id (%s) attached.";

export class StreamError extends Error {
  constructor(
    readonly status: number,
    /** Full name, e.g. "stream.api.sourceNotFound". */
    readonly errorName: string,
    message: string,
    readonly exceptionId?: string,
  ) {
    super(message);
  }

  body(): StreamErrorBody {
    const body: StreamErrorBody = { statusCode: this.status, error: this.errorName, message: this.message };
    if (this.exceptionId !== undefined) body.exceptionId = this.exceptionId;
    return body;
  }

  response(): Response {
    return prettyJSONResponse(this.status, this.body());
  }
}

/** A service error: `stream.api.<code>` with the message formatted as a sentence. */
export function apiError(status: number, code: string, message: string): StreamError {
  return new StreamError(status, `stream.api.${code}`, asSentence(message));
}

/** What the real service answers for any unexpected failure (5xx hides the cause). */
export function applicationError(ctx: EmulatorContext, code = "internalError"): StreamError {
  const exceptionId = `keboola-stream-api-${randomString(ctx.random, 15)}`;
  return new StreamError(500, `stream.api.${code}`, DEFAULT_ERROR_MESSAGE.replace("%s", exceptionId), exceptionId);
}

/** The error writer's name of an error: `"source version"` -> `"sourceVersion"` (lower camel case). */
const lowerCamel = (words: string): string =>
  words
    .split(" ")
    .map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1)))
    .join("");

/**
 * ResourceNotFoundError (keboola-as-code internal/pkg/service/common/errors/resourcenotfound.go):
 * `stream.api.<what>NotFound`, e.g. "source", "deleted sink", "source version".
 */
export const notFound = (what: string, id: string, where: string): StreamError =>
  apiError(404, `${lowerCamel(what)}NotFound`, `${what} "${id}" not found in the ${where}`);

export const alreadyExists = (what: "source" | "sink", id: string, where: string): StreamError =>
  apiError(409, `${what}AlreadyExists`, `${what} "${id}" already exists in the ${where}`);

/** No route for the path (the router's not-found handler, EndpointNotFoundError). */
export const endpointNotFound = (path: string): StreamError => apiError(404, "endpointNotFound", `no endpoint found for path "${path}"`);

export const badRequest = (message: string): StreamError => apiError(400, "badRequest", message);

export const forbidden = (message: string): StreamError => apiError(403, "forbidden", message);

// ---- Request validation errors of the API framework (Goa) -------------------------------------
// Several problems in one request are merged into one error: the name of the first one and all
// messages joined by "; ".

export interface GoaProblem {
  code: string;
  message: string;
}

export class GoaErrors {
  readonly problems: GoaProblem[] = [];

  missingField(name: string, context: string): void {
    this.problems.push({ code: "missingField", message: `${goQuote(name)} is missing from ${context}` });
  }

  /** `value` is the Go `%#v` rendering of the value (see goQuote). */
  invalidLength(name: string, value: string, length: number, limit: number, min: boolean): void {
    const comp = min ? "greater or equal" : "lesser or equal";
    this.problems.push({
      code: "invalidLength",
      message: `length of ${name} must be ${comp} than ${limit} but got value ${value} (len=${length})`,
    });
  }

  invalidEnum(name: string, value: string, allowed: readonly string[]): void {
    this.problems.push({
      code: "invalidEnumValue",
      message: `value of ${name} must be one of ${allowed.map(goQuote).join(", ")} but got value ${goQuote(value)}`,
    });
  }

  invalidRange(name: string, value: number, limit: number, min: boolean): void {
    const comp = min ? "greater or equal" : "lesser or equal";
    this.problems.push({ code: "invalidRange", message: `${name} must be ${comp} than ${limit} but got value ${value}` });
  }

  invalidFieldType(name: string, raw: string, expected: string): void {
    this.problems.push({
      code: "invalidFieldType",
      message: `invalid value ${goQuote(raw)} for ${goQuote(name)}, must be a ${expected}`,
    });
  }

  get empty(): boolean {
    return this.problems.length === 0;
  }

  error(): StreamError {
    return apiError(400, this.problems[0].code, this.problems.map((p) => p.message).join("; "));
  }
}

export const missingPayload = (): StreamError => apiError(400, "missingPayload", "missing required payload");

export const decodePayload = (message: string): StreamError => apiError(400, "decodePayload", message);
