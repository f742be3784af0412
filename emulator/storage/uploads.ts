import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { EmulatorContext } from "../core/context";
import type { NodeBindings } from "../core/http";
import type { TokenRecord } from "../core/tokens";
import { readBody } from "./body";
import { exceptionId } from "./errors";
import { createFile, fileJson, newFileFromBody, putObject } from "./files";

// The two services a file's content travels through besides the Storage API (files.ts): the
// upload helper ("importer", the `import` service of the Storage index) and the emulated object
// store (S3) that `uploadParams` and file URLs point at.

class ImportHttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
  ) {
    super(message);
  }
}

export interface ImportEnv {
  Bindings: NodeBindings;
  Variables: { token: TokenRecord };
}

/**
 * The upload helper: `POST /upload-file` (multipart, file in `data`) stores and registers a file
 * in one call. Errors come in the common Keboola service shape
 * `{error, code: <HTTP status>, status: "error", exceptionId}`; a missing token is 400
 * "X-StorageApi-Token header is required" (Keboola changelog, January 2022).
 */
export function importApp(ctx: EmulatorContext): Hono<ImportEnv> {
  const api = new Hono<ImportEnv>();

  const authenticated = createMiddleware<ImportEnv>(async (c, next) => {
    if (!c.req.header("X-StorageApi-Token")) throw new ImportHttpError(400, "X-StorageApi-Token header is required");
    const token = ctx.tokenOf(c);
    if (!token) throw new ImportHttpError(401, "Invalid access token");
    c.set("token", token);
    await next();
  });

  api.post("/upload-file", authenticated, async (c) => {
    const { body, files } = await readBody(c);
    const data = files.data;
    if (!data) throw new ImportHttpError(400, 'Missing file in the "data" field of the multipart request.');
    const opts = newFileFromBody(body, data.name || "upload");
    opts.sizeBytes = data.data.length;
    const file = createFile(ctx, c.var.token, ctx.state.project.defaultBranchId, opts);
    putObject(ctx, file.bucket, file.key, data.data, data.type || "application/octet-stream");
    return c.json(await fileJson(ctx, file));
  });
  api.all("*", () => {
    throw new ImportHttpError(404, "Not found");
  });

  api.onError((err, c) => {
    if (err instanceof ImportHttpError) {
      return c.json({ error: err.message, code: err.status, status: "error", exceptionId: exceptionId(ctx) }, err.status);
    }
    throw err;
  });
  return api;
}

// The object store lives in s3.ts.
export { objectStoreApp } from "./s3";
