import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { EmulatorContext } from "../core/context";
import { randomString } from "../core/random";
import { rng } from "./format";

// Storage API errors: `{error: <message>, code: <string code>, exceptionId, status: "error"}`
// (keboola-sdk-go StorageError decodes `error`, `code`, `exceptionId`). A missing token is the
// one answer without a code (keboola-sdk-go TestVerifyTokenEmpty: message "Access token must
// be set", ErrCode "", 401).

export class StorageHttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string | undefined,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** `exception-<32 hex>`, the shape Keboola services use for exception ids. */
export function exceptionId(ctx: EmulatorContext): string {
  return `exception-${randomString(rng(ctx), 32, "0123456789abcdef")}`;
}

export function storageErrorResponse(c: Context, ctx: EmulatorContext, err: StorageHttpError): Response {
  const body: Record<string, unknown> = { error: err.message };
  if (err.code !== undefined) body.code = err.code;
  body.exceptionId = exceptionId(ctx);
  body.status = "error";
  Object.assign(body, err.extra);
  return c.json(body, err.status);
}

// Frequently used errors, with the real codes and messages.

export const errors = {
  tokenMissing: () => new StorageHttpError(401, undefined, "Access token must be set"),
  tokenInvalid: () => new StorageHttpError(401, "storage.tokenInvalid", "Invalid access token"),
  accessDenied: () => new StorageHttpError(403, "accessDenied", "You don't have access to the resource."),
  routeNotFound: () => new StorageHttpError(404, "notFound", "The requested resource not found"),
  branchNotFound: (id: string) => new StorageHttpError(404, "devBranch.notFound", `Branch id:"${id}" was not found.`),
  bucketNotFound: (id: string, projectId: number) =>
    new StorageHttpError(404, "storage.buckets.notFound", `The bucket "${id}" was not found in the project "${projectId}"`),
  tableNotFound: (name: string, bucketId: string, projectId: number) =>
    new StorageHttpError(
      404,
      "storage.tables.notFound",
      `The table "${name}" was not found in the bucket "${bucketId}" in the project "${projectId}"`,
    ),
  fileNotFound: () => new StorageHttpError(404, "storage.files.notFound", "File not found."),
  tokenNotFound: (id: string) => new StorageHttpError(404, "storage.tokens.notFound", `Token ${id} not found`),
  jobNotFound: (id: string) => new StorageHttpError(404, "storage.jobs.notFound", `Job "${id}" not found.`),
  configNotFound: (id: string) => new StorageHttpError(404, "storage.configuration.notFound", `Configuration "${id}" not found`),
  rowNotFound: (id: string) => new StorageHttpError(404, "notFound", `Row ${id} not found`),
  componentsValidation: (field: string, problem: string) =>
    new StorageHttpError(400, "storage.components.validation", `Invalid parameters - ${field}: ${problem}`),
};
