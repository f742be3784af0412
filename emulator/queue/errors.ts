import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { EmulatorContext } from "../core/context";
import { exceptionId } from "../storage/errors";

// Job Queue API errors, in the shape of Keboola's api-error-control (ExceptionMessage):
// `{error, code: <HTTP status as a number>, exceptionId, status: "error", context}` (the SDK's
// QueueError decodes `code` as an int). Authentication failures come from keboola/api-bundle:
// a missing token is 401 "Authentication token is missing", an invalid one passes Storage's
// 401 "Invalid access token" through.

export class QueueHttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
  ) {
    super(message);
  }
}

export function queueErrorResponse(c: Context, ctx: EmulatorContext, err: QueueHttpError): Response {
  return c.json({ error: err.message, code: err.status, exceptionId: exceptionId(ctx), status: "error", context: [] }, err.status);
}
