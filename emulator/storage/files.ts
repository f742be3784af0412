import { gunzipSync } from "node:zlib";
import { z } from "zod";
import { parseJson } from "../../keboola/json";
import type { EmulatorContext } from "../core/context";
import { randomString } from "../core/random";
import type { TokenRecord } from "../core/tokens";
import type { StorageFile, StorageFileCredentials, StorageUploadParams } from "../../keboola/storage-answers";
import { authenticated, type StorageApp } from "./auth";
import { type Body, list, readBody, readQuery, str } from "./body";
import { StorageHttpError, errors } from "./errors";
import { colonTime, nowStorage, rng, truthy } from "./format";
import { creatorToken } from "./permissions";
import type { FileRecord } from "./state";

// File Storage on an emulated object store.
// - `POST /v2/storage[/branch/{b}]/files/prepare` (JSON or form) creates a file resource with
//   `uploadParams` {key, bucket, acl, credentials when federationToken}; the client uploads the
//   content to `<files URL>/<bucket>/<key>` (PUT the body, as to an S3 presigned URL, or POST a
//   multipart form with `key` and `file` to `<files URL>/<bucket>`). A sliced file's manifest
//   goes to `<key>manifest`, its slices anywhere under the bucket (manifest entries are
//   `s3://<bucket>/<key>`).
// - `GET /v2/storage/files/{id}?federationToken=1` adds `s3Path` and `credentials`; the `url`
//   (signed, time-limited in reality) points at the object store, for a sliced file at its
//   manifest.
// - `POST <import URL>/upload-file` (multipart, file in `data`) stores and registers a file in
//   one call, like the real upload helper.
// The upload helper and the object store are services of their own (uploads.ts).

export const FILE_BUCKET = "kbc-sapi-files";
const REGION = "us-east-1";

export function objectKey(bucket: string, key: string): string {
  return `${bucket}/${key}`;
}

export function putObject(ctx: EmulatorContext, bucket: string, key: string, data: Uint8Array | string, contentType = "application/octet-stream"): void {
  const buf = typeof data === "string" ? Buffer.from(data, "utf8") : Buffer.from(data);
  ctx.state.storage.objects[objectKey(bucket, key)] = { contentBase64: buf.toString("base64"), contentType };
  // Uploading a file's content (or a sliced file's manifest) marks it uploaded.
  for (const f of Object.values(ctx.state.storage.files)) {
    if (f.bucket !== bucket) continue;
    if ((!f.isSliced && f.key === key) || (f.isSliced && `${f.key}manifest` === key)) {
      f.uploaded = true;
      if (f.sizeBytes === null && !f.isSliced) f.sizeBytes = buf.length;
    }
  }
}

export function getObject(ctx: EmulatorContext, bucket: string, key: string): Buffer | undefined {
  const o = ctx.state.storage.objects[objectKey(bucket, key)];
  return o ? Buffer.from(o.contentBase64, "base64") : undefined;
}

export interface NewFile {
  name: string;
  sizeBytes?: number | null;
  tags?: string[];
  isPublic?: boolean;
  isSliced?: boolean;
  isEncrypted?: boolean;
  isPermanent?: boolean;
  contentType?: string;
}

export function sanitizeFileName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, "_");
}

export function createFile(ctx: EmulatorContext, token: TokenRecord, branchId: number, opts: NewFile): FileRecord {
  const id = ctx.nextId("storage.file", 100001);
  const d = new Date(ctx.now());
  const day = `${d.getUTCFullYear()}/${String(d.getUTCMonth() + 1).padStart(2, "0")}/${String(d.getUTCDate()).padStart(2, "0")}`;
  const name = sanitizeFileName(opts.name);
  const file: FileRecord = {
    id,
    branchId,
    name,
    created: nowStorage(ctx),
    isPublic: opts.isPublic ?? false,
    isSliced: opts.isSliced ?? false,
    isEncrypted: opts.isEncrypted ?? false,
    isPermanent: opts.isPermanent ?? false,
    sizeBytes: opts.sizeBytes ?? null,
    tags: opts.tags ?? [],
    runId: null,
    creatorToken: creatorToken(token),
    bucket: FILE_BUCKET,
    key: `exp-15/${ctx.state.project.id}/files/${day}/${id}.${name}`,
    uploaded: false,
    contentType: opts.contentType ?? "application/octet-stream",
  };
  ctx.state.storage.files[String(id)] = file;
  return file;
}

function signedUrl(ctx: EmulatorContext, file: FileRecord): string {
  const key = file.isSliced ? `${file.key}manifest` : file.key;
  const stamp = nowStorage(ctx).replace(/[-:]/g, "").slice(0, 15) + "Z";
  const path = key.split("/").map(encodeURIComponent).join("/");
  return (
    `${ctx.urls().files}/${file.bucket}/${path}?X-Amz-Content-Sha256=UNSIGNED-PAYLOAD&X-Amz-Algorithm=AWS4-HMAC-SHA256` +
    `&X-Amz-Credential=AKIAEMULATOR%2F${stamp.slice(0, 8)}%2F${REGION}%2Fs3%2Faws4_request&X-Amz-Date=${stamp}` +
    `&X-Amz-SignedHeaders=host&X-Amz-Expires=3600&X-Amz-Signature=${randomString(rng(ctx), 64, "0123456789abcdef")}`
  );
}

function credentials(ctx: EmulatorContext): StorageFileCredentials {
  const upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  return {
    AccessKeyId: `ASIA${randomString(rng(ctx), 16, upper)}`,
    SecretAccessKey: randomString(rng(ctx), 40),
    SessionToken: randomString(rng(ctx), 120),
    Expiration: colonTime(ctx.now() + 12 * 3600 * 1000),
  };
}

export function fileJson(
  ctx: EmulatorContext,
  file: FileRecord,
  extra: { uploadParams?: boolean; federation?: boolean } = {},
): StorageFile {
  const out: StorageFile = {
    id: file.id,
    created: file.created,
    isPublic: file.isPublic,
    isSliced: file.isSliced,
    isEncrypted: file.isEncrypted,
    name: file.name,
    fileType: file.name.toLowerCase().endsWith(".csv") || file.name.toLowerCase().endsWith(".csv.gz") ? "csv" : "other",
    url: signedUrl(ctx, file),
    provider: "aws",
    region: REGION,
    sizeBytes: file.sizeBytes,
    tags: [...file.tags],
    maxAgeDays: file.isPermanent ? null : 15,
    runId: file.runId,
    runIds: file.runId ? [file.runId] : [],
    creatorToken: file.creatorToken,
  };
  if (extra.uploadParams) {
    const params: StorageUploadParams = { key: file.key, bucket: file.bucket, acl: "private" };
    if (extra.federation) params.credentials = credentials(ctx);
    else {
      params.url = `${ctx.urls().files}/${file.bucket}`;
      params.policy = Buffer.from(JSON.stringify({ expiration: colonTime(ctx.now() + 3600_000) })).toString("base64");
      params.signature = randomString(rng(ctx), 28);
      params.AWSAccessKeyId = "AKIAEMULATOR";
    }
    out.uploadParams = params;
  }
  if (extra.federation && !extra.uploadParams) {
    out.s3Path = { bucket: file.bucket, key: file.key };
    out.credentials = credentials(ctx);
  }
  return out;
}

/** A file the token may see (tokens without canReadAllFileUploads see only their own). */
export function findFile(ctx: EmulatorContext, token: TokenRecord, id: string | number): FileRecord {
  const file = ctx.state.storage.files[String(id)];
  if (!file || (!token.canReadAllFileUploads && !token.isMasterToken && String(file.creatorToken.id) !== token.id)) {
    throw errors.fileNotFound();
  }
  return file;
}

/** A sliced file's manifest: its slices, in order (other keys, e.g. `mandatory`, are not read). */
const sliceManifest = z.object({ entries: z.array(z.object({ url: z.string() })).nullish() });

function maybeGunzip(buf: Buffer): Buffer {
  return buf.length > 2 && buf[0] === 0x1f && buf[1] === 0x8b ? gunzipSync(buf) : buf;
}

/** The text content of a file (slices concatenated in manifest order); undefined when not uploaded. */
export function readFileText(ctx: EmulatorContext, file: FileRecord): string | undefined {
  if (!file.isSliced) {
    const buf = getObject(ctx, file.bucket, file.key);
    return buf ? maybeGunzip(buf).toString("utf8") : undefined;
  }
  const manifest = getObject(ctx, file.bucket, `${file.key}manifest`);
  if (!manifest) return undefined;
  const parsed = sliceManifest.safeParse(parseJson(manifest.toString("utf8")));
  // A manifest without readable entries names no slice the store holds.
  if (!parsed.success) return undefined;
  const entries = parsed.data.entries ?? [];
  let text = "";
  for (const e of entries) {
    const m = /^s3:\/\/([^/]+)\/(.+)$/.exec(e.url);
    const slice = m ? getObject(ctx, m[1], m[2]) : undefined;
    if (!slice) return undefined;
    text += maybeGunzip(slice).toString("utf8");
  }
  return text;
}

export function newFileFromBody(body: Body, fallbackName?: string): NewFile {
  const name = str(body.name) ?? fallbackName;
  if (!name) throw new StorageHttpError(400, "storage.files.validation", "Invalid parameters - name: This field is missing.");
  const size = str(body.sizeBytes);
  return {
    name,
    sizeBytes: size === undefined || size === "" ? null : Number(size),
    tags: list(body.tags) ?? [],
    isPublic: truthy(body.isPublic),
    isSliced: truthy(body.isSliced),
    isEncrypted: truthy(body.isEncrypted),
    isPermanent: truthy(body.isPermanent),
    contentType: str(body.contentType),
  };
}

export function registerFileRoutes(api: StorageApp, ctx: EmulatorContext): void {
  const auth = authenticated(ctx);
  api.post("/files/prepare", auth, async (c) => {
    const { token, branchId } = c.var;
    const { body } = await readBody(c);
    const opts = newFileFromBody(body);
    const federation = truthy(body.federationToken);
    if (opts.isSliced && !federation) {
      throw new StorageHttpError(400, "storage.files.validation", "Sliced file upload requires federationToken.");
    }
    const file = createFile(ctx, token, branchId, opts);
    return c.json(fileJson(ctx, file, { uploadParams: true, federation }), 201);
  });

  api.get("/files", auth, (c) => {
    const { token, branchId } = c.var;
    const q = readQuery(c);
    const limit = Math.max(1, Math.min(1000, Number(str(q.limit) ?? 100) || 100));
    const offset = Math.max(0, Number(str(q.offset) ?? 0) || 0);
    const tags = list(q.tags) ?? [];
    const runId = str(q.runId);
    const files = Object.values(ctx.state.storage.files)
      .filter((f) => f.branchId === branchId)
      .filter((f) => token.canReadAllFileUploads || token.isMasterToken || String(f.creatorToken.id) === token.id)
      .filter((f) => tags.every((t) => f.tags.includes(t)) && (!runId || f.runId === runId))
      .sort((a, b) => b.id - a.id)
      .slice(offset, offset + limit);
    return c.json(files.map((f) => fileJson(ctx, f)));
  });

  api.get("/files/:fileId", auth, (c) => {
    const { token } = c.var;
    const file = findFile(ctx, token, c.req.param("fileId"));
    return c.json(fileJson(ctx, file, { federation: truthy(readQuery(c).federationToken) }));
  });

  api.delete("/files/:fileId", auth, (c) => {
    const { token } = c.var;
    const file = findFile(ctx, token, c.req.param("fileId"));
    delete ctx.state.storage.files[String(file.id)];
    return c.body(null, 204);
  });
}
