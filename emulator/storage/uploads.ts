import { Hono, type Context } from "hono";
import { createMiddleware } from "hono/factory";
import { basePath } from "hono/route";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { EmulatorContext } from "../core/context";
import type { NodeBindings, ServiceEnv } from "../core/http";
import { randomString } from "../core/random";
import type { TokenRecord } from "../core/tokens";
import { readBody, str } from "./body";
import { exceptionId } from "./errors";
import { createFile, fileJson, newFileFromBody, objectKey, putObject } from "./files";
import { rng } from "./format";

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
    return c.json(fileJson(ctx, file));
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

class S3Error extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The object store: S3-like PUT/GET of objects at `/<bucket>/<key>`, plus the legacy multipart
 * POST to `/<bucket>` (fields `key` and `file`); no token (the real URLs are presigned). Errors
 * are S3's XML documents; other methods get the server's plain 404.
 */
export function objectStoreApp(ctx: EmulatorContext): Hono<ServiceEnv> {
  const api = new Hono<ServiceEnv>();
  // The bucket and the key from the raw path (each part percent-decoded once).
  const split = (c: Context<ServiceEnv>): { bucket: string; key: string } => {
    const rest = new URL(c.req.url).pathname.slice(basePath(c).length + 1);
    const [bucket, ...parts] = rest.split("/");
    return { bucket: decodeURIComponent(bucket), key: parts.map(decodeURIComponent).join("/") };
  };

  api.put("/*", async (c) => {
    const { bucket, key } = split(c);
    if (!key) throw new S3Error(400, "InvalidRequest", "A key is required.");
    const data = new Uint8Array(await c.req.arrayBuffer());
    putObject(ctx, bucket, key, data, c.req.header("Content-Type") ?? "application/octet-stream");
    return c.body(null, 200, { ETag: `"${randomString(rng(ctx), 32, "0123456789abcdef")}"` });
  });

  api.post("/*", async (c) => {
    const { bucket, key: pathKey } = split(c);
    const { body, files } = await readBody(c);
    const key = str(body.key) ?? pathKey;
    const file = files.file ?? Object.values(files)[0];
    if (!key || !file) throw new S3Error(400, "InvalidRequest", "A key and a file are required.");
    putObject(ctx, bucket, key, file.data, file.type || "application/octet-stream");
    return c.body(null, 204);
  });

  api.get("/*", (c) => {
    const { bucket, key } = split(c);
    const o = ctx.state.storage.objects[objectKey(bucket, key)];
    if (!o) throw new S3Error(404, "NoSuchKey", "The specified key does not exist.");
    return c.body(Buffer.from(o.contentBase64, "base64"), 200, { "Content-Type": o.contentType });
  });

  api.onError((err, c) => {
    if (err instanceof S3Error) {
      return c.body(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${err.code}</Code><Message>${err.message}</Message></Error>`, err.status, {
        "Content-Type": "application/xml",
      });
    }
    throw err;
  });
  return api;
}
