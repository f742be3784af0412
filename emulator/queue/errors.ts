import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { EmulatorContext } from "../core/context";
import { apiErrorControlBody } from "../core/api-error-control";
import { exceptionId } from "../storage/errors";

// Job Queue API errors, in the shape of Keboola's api-error-control (see core/api-error-control.ts).
// Authentication failures come from keboola/api-bundle: a missing token is 401 "Authentication
// token is missing", an invalid one passes Storage's 401 "Invalid access token" through.

export class QueueHttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
  ) {
    super(message);
  }
}

export function queueErrorResponse(c: Context, ctx: EmulatorContext, err: QueueHttpError): Response {
  return c.json(apiErrorControlBody(err.message, err.status, exceptionId(ctx)), err.status);
}
