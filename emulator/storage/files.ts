import { createHash } from "node:crypto";
import { StringDecoder } from "node:string_decoder";
import { Readable, type TransformOptions } from "node:stream";
import { createGunzip, gunzipSync, type ZlibOptions } from "node:zlib";
import { z } from "zod";
import { parseJson } from "../../keboola/json";
import type { EmulatorContext } from "../core/context";
import { randomString } from "../core/random";
import type { TokenRecord } from "../core/tokens";
import type { StorageFile, StorageUploadParams } from "../../keboola/storage-answers";
import { authenticated, type StorageApp } from "./auth";
import { type Body, list, readBody, readQuery, str } from "./body";
import { StorageHttpError, errors } from "./errors";
import { colonTime, nowStorage, rng, truthy } from "./format";
import { creatorToken } from "./permissions";
import { blobs } from "./blobs";
import type { StoredChecksum } from "./checksums";
import { REGION, issueCredentials, presignedGetUrl } from "./s3-auth";
import type { FileRecord, StoredObject } from "./state";

// File Storage on an emulated object store (s3.ts, s3-auth.ts).
// - `POST /v2/storage[/branch/{b}]/files/prepare` (JSON or form) creates a file resource with
//   `uploadParams` {key, bucket, acl, credentials when federationToken}: temporary credentials
//   for the file's key prefix, with which the client uploads the content to the object store with
//   an S3 client (PutObject or a multipart upload). A sliced file's slices go to `<key><slice>`,
//   its manifest `{entries: [{url: "s3://<bucket>/<key><slice>"}]}` to `<key>manifest`. Without
//   federationToken the answer describes a browser form upload (url, policy, signature).
// - `GET /v2/storage/files/{id}?federationToken=1` adds `s3Path` and `credentials` (to read it);
//   the `url` is a presigned GET of the object store (one hour), for a sliced file of its
//   manifest.
// - Emulator only: answers that carry credentials also carry `s3Endpoint`, the object store's
//   URL (path-style), since the real answer names only the AWS `region`; a client points its S3
//   client there when the field is present (README, "Emulator").
// - `POST <import URL>/upload-file` (multipart, file in `data`) stores and registers a file in
//   one call, like the real upload helper (uploads.ts).

export const FILE_BUCKET = "kbc-sapi-files";

export function objectKey(bucket: string, key: string): string {
  return `${bucket}/${key}`;
}

/**
 * Stores an object's bytes and metadata (with the checksum its upload sent; S3's default one is
 * computed when a client first asks for it, s3.ts); uploading a file's content (or a sliced file's
 * manifest) marks the file uploaded.
 */
export function putObject(
  ctx: EmulatorContext,
  bucket: string,
  key: string,
  data: Uint8Array | string,
  contentType = "application/octet-stream",
  contentEncoding?: string,
  etag?: string,
  checksum?: StoredChecksum,
): StoredObject {
  const buf = typeof data === "string" ? Buffer.from(data, "utf8") : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  blobs(ctx).put(objectKey(bucket, key), buf);
  const stored: StoredObject = { contentType, size: buf.length, etag: etag ?? `"${createHash("md5").update(buf).digest("hex")}"` };
  if (contentEncoding) stored.contentEncoding = contentEncoding;
  if (checksum) stored.checksum = checksum;
  ctx.state.storage.objects[objectKey(bucket, key)] = stored;
  for (const f of Object.values(ctx.state.storage.files)) {
    if (f.bucket !== bucket) continue;
    if ((!f.isSliced && f.key === key) || (f.isSliced && `${f.key}manifest` === key)) {
      f.uploaded = true;
      if (f.sizeBytes === null && !f.isSliced) f.sizeBytes = buf.length;
    }
  }
  return stored;
}

export function getObject(ctx: EmulatorContext, bucket: string, key: string): Buffer | undefined {
  const o = ctx.state.storage.objects[objectKey(bucket, key)];
  if (!o) return undefined;
  if (o.contentBase64 !== undefined) return Buffer.from(o.contentBase64, "base64");
  return blobs(ctx).get(objectKey(bucket, key));
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

/**
 * The name Storage keeps for a file a client names (`files/prepare`, the upload helper):
 * lowercase, with every other character than letters, digits, dot and underscore replaced by an
 * underscore. keboola/storage-api-php-client apiary.apib "Create File Resource": the name
 * "someFile.csv" is answered as "somefile.csv" (also in the key, "236518630.somefile.csv");
 * keboola/keboola-as-code test/cli/remote-table-download/run-ok/expected-state.json and
 * remote-table-upload/table-exist-columns-flag/expected-state.json: the names
 * "in.c-test.accounts.data" and "table_header_in.c-my-bucket.data" that the harness and kbc
 * give are listed as "in.c_test.accounts.data" and "table_header_in.c_my_bucket.data", while
 * "data.csv" stays. Files Storage makes itself keep their names (an unload's
 * "in.c-test.accounts.csv").
 */
export function sanitizeFileName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9._]/g, "_");
}

/** The key prefix of a project's files: `exp-15/<projectId>/` (createFile). */
const PROJECT_KEY = /^exp-15\/(\d+)\//;

/** The project an object key belongs to (the id in its `exp-15/<projectId>/` prefix), or undefined. */
export function projectIdOfObjectKey(key: string): number | undefined {
  const m = PROJECT_KEY.exec(key);
  return m ? Number(m[1]) : undefined;
}

export function createFile(ctx: EmulatorContext, token: TokenRecord, branchId: number, opts: NewFile): FileRecord {
  const id = ctx.nextId("storage.file", 100001);
  const d = new Date(ctx.now());
  const day = `${d.getUTCFullYear()}/${String(d.getUTCMonth() + 1).padStart(2, "0")}/${String(d.getUTCDate()).padStart(2, "0")}`;
  const name = opts.name;
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

function fileUrl(ctx: EmulatorContext, file: FileRecord): Promise<string> {
  return presignedGetUrl(ctx, file.bucket, file.isSliced ? `${file.key}manifest` : file.key);
}

export async function fileJson(
  ctx: EmulatorContext,
  file: FileRecord,
  extra: { uploadParams?: boolean; federation?: boolean } = {},
): Promise<StorageFile> {
  const out: StorageFile = {
    id: file.id,
    created: file.created,
    isPublic: file.isPublic,
    isSliced: file.isSliced,
    isEncrypted: file.isEncrypted,
    name: file.name,
    fileType: file.name.toLowerCase().endsWith(".csv") || file.name.toLowerCase().endsWith(".csv.gz") ? "csv" : "other",
    url: await fileUrl(ctx, file),
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
    // keboola/keboola-sdk-go storage_file_upload/s3/file.go UploadParams: `x-amz-server-side-encryption`.
    if (file.isEncrypted) params["x-amz-server-side-encryption"] = "AES256";
    if (extra.federation) params.credentials = issueCredentials(ctx, file);
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
    out.credentials = issueCredentials(ctx, file);
  }
  if (extra.federation) out.s3Endpoint = ctx.urls().files;
  return out;
}

/** Removes a file and its objects (its content, or a sliced file's manifest and slices). */
export function deleteFile(ctx: EmulatorContext, file: FileRecord): void {
  delete ctx.state.storage.files[String(file.id)];
  const prefix = objectKey(file.bucket, file.key);
  for (const k of Object.keys(ctx.state.storage.objects)) {
    if (!k.startsWith(prefix)) continue;
    delete ctx.state.storage.objects[k];
    blobs(ctx).delete(k);
  }
}

/**
 * A file the token may see (tokens without canReadAllFileUploads see only their own); with
 * `branchId`, only a file of that branch: each branch has its own files, and a file of another
 * branch is 404 at `GET`/`DELETE /files/{id}` (keboola/storage-api-php-client
 * tests/Backend/SOX/BranchFileStorageTest.php testCrossCrudFile, both ways). A load's `dataFileId`
 * is looked up without it: no public source says whether a load may use another branch's file.
 */
export function findFile(ctx: EmulatorContext, token: TokenRecord, id: string | number, branchId?: number): FileRecord {
  const file = ctx.state.storage.files[String(id)];
  if (!file || (branchId !== undefined && file.branchId !== branchId) || (!token.canReadAllFileUploads && !token.isMasterToken && String(file.creatorToken.id) !== token.id)) {
    throw errors.fileNotFound();
  }
  return file;
}

/** A sliced file's manifest: its slices, in order (other keys, e.g. `mandatory`, are not read). */
const sliceManifest = z.object({ entries: z.array(z.object({ url: z.string() })).nullish() });

function maybeGunzip(buf: Buffer): Buffer {
  return buf.length > 2 && buf[0] === 0x1f && buf[1] === 0x8b ? gunzipSync(buf) : buf;
}

/**
 * The objects holding a file's content (a sliced file's slices in manifest order), with their
 * stored sizes; undefined when not uploaded (or a slice the manifest names is missing).
 */
export function fileObjects(ctx: EmulatorContext, file: FileRecord): Array<{ bucket: string; key: string; size: number }> | undefined {
  const meta = (bucket: string, key: string) => ctx.state.storage.objects[objectKey(bucket, key)];
  if (!file.isSliced) {
    const o = meta(file.bucket, file.key);
    return o ? [{ bucket: file.bucket, key: file.key, size: o.size ?? 0 }] : undefined;
  }
  const manifest = getObject(ctx, file.bucket, `${file.key}manifest`);
  if (!manifest) return undefined;
  const parsed = sliceManifest.safeParse(parseJson(manifest.toString("utf8")));
  // A manifest without readable entries names no slice the store holds.
  if (!parsed.success) return undefined;
  const out: Array<{ bucket: string; key: string; size: number }> = [];
  for (const e of parsed.data.entries ?? []) {
    const m = /^s3:\/\/([^/]+)\/(.+)$/.exec(e.url);
    const o = m ? meta(m[1], m[2]) : undefined;
    if (!m || !o) return undefined;
    out.push({ bucket: m[1], key: m[2], size: o.size ?? 0 });
  }
  return out;
}

/**
 * The content of a file as buffers (a sliced file's slices in manifest order), each gunzipped
 * when gzipped; undefined when not uploaded.
 */
export function fileContents(ctx: EmulatorContext, file: FileRecord): Buffer[] | undefined {
  const objects = fileObjects(ctx, file);
  if (!objects) return undefined;
  const out: Buffer[] = [];
  for (const o of objects) {
    const buf = getObject(ctx, o.bucket, o.key);
    if (!buf) return undefined;
    out.push(maybeGunzip(buf));
  }
  return out;
}

/** Text of buffers in pieces of at most `pieceBytes` (UTF-8 sequences split between pieces are kept whole). */
export function* textPieces(buffers: Buffer[], pieceBytes = 8 * 1024 * 1024): Generator<string> {
  const decoder = new StringDecoder("utf8");
  for (const buf of buffers) {
    for (let i = 0; i < buf.length; i += pieceBytes) yield decoder.write(buf.subarray(i, i + pieceBytes));
  }
  const rest = decoder.end();
  if (rest) yield rest;
}

/** Lets the event loop answer requests (setImmediate runs after pending I/O callbacks). */
const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * The text of a file's objects (from `fileObjects`) in pieces, without blocking the event loop:
 * one object read at a time, gunzipped by a zlib stream (off the main thread) in 1 MiB chunks,
 * decoded and handed to the consumer 64 KiB at a time, and a turn of the event loop at least every
 * 20 ms of the consumer's work. For a load of gigabytes, where a synchronous gunzip and parse would
 * keep every request (a job poll) waiting. An object gone meanwhile answers undefined first.
 *
 * Why 64 KiB: the consumer (a load's CSV parse) makes all of a piece's rows before it looks at
 * them. With 1 MiB pieces (~14,000 rows of the data bench's CSV, ~6 MB of objects), young-generation
 * GCs often found a piece's rows alive, V8 judged the parser's row allocation site long-lived and
 * allocated its rows straight in the old generation, where only a full GC frees them: the same
 * 1 GB gzipped load took 11.5 s in one run and 19 s in the next. With 64 KiB pieces (and kept rows
 * copied, see csvLoader in table-routes.ts) it took 10-12 s in every run.
 */
export async function* fileTextPiecesAsync(
  ctx: EmulatorContext,
  objects: Array<{ bucket: string; key: string }>,
): AsyncGenerator<string | undefined> {
  const decoder = new StringDecoder("utf8");
  const chunkBytes = 1024 * 1024;
  const pieceBytes = 64 * 1024;
  let since = Date.now();
  const breathe = async () => {
    if (Date.now() - since < 20) return;
    await yieldToEventLoop();
    since = Date.now();
  };
  for (const o of objects) {
    const buf = getObject(ctx, o.bucket, o.key);
    if (!buf) {
      yield undefined;
      return;
    }
    let chunks: AsyncIterable<Buffer> | Iterable<Buffer> = [buf];
    if (buf.length > 2 && buf[0] === 0x1f && buf[1] === 0x8b) {
      // Up to 4 chunks gunzipped ahead: with the stream's default (16 KiB) zlib stops after each
      // chunk until the parse of the one before is done, and a gzipped load took twice as long as
      // the same rows uncompressed (512 MB of the data bench's CSV: 13-15 s against 7-10 s; 7-8 s
      // with this). zlib streams take a Transform's options, which ZlibOptions does not list.
      const options: ZlibOptions & TransformOptions = { chunkSize: chunkBytes, readableHighWaterMark: 4 * chunkBytes };
      const gunzip = createGunzip(options);
      Readable.from(
        (function* () {
          for (let i = 0; i < buf.length; i += chunkBytes) yield buf.subarray(i, i + chunkBytes);
        })(),
      ).pipe(gunzip);
      chunks = gunzip;
    }
    for await (const chunk of chunks) {
      for (let i = 0; i < chunk.length; i += pieceBytes) {
        yield decoder.write(chunk.subarray(i, i + pieceBytes));
        await breathe();
      }
    }
  }
  const rest = decoder.end();
  if (rest) yield rest;
}

export function newFileFromBody(body: Body, fallbackName?: string): NewFile {
  const name = str(body.name) ?? fallbackName;
  if (!name) throw new StorageHttpError(400, "storage.files.validation", "Invalid parameters - name: This field is missing.");
  const size = str(body.sizeBytes);
  return {
    name: sanitizeFileName(name),
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
    return c.json(await fileJson(ctx, file, { uploadParams: true, federation }), 201);
  });

  api.get("/files", auth, async (c) => {
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
    return c.json(await Promise.all(files.map((f) => fileJson(ctx, f))));
  });

  api.get("/files/:fileId", auth, async (c) => {
    const { token, branchId } = c.var;
    const file = findFile(ctx, token, c.req.param("fileId"), branchId);
    return c.json(await fileJson(ctx, file, { federation: truthy(readQuery(c).federationToken) }));
  });

  api.delete("/files/:fileId", auth, (c) => {
    const { token, branchId } = c.var;
    deleteFile(ctx, findFile(ctx, token, c.req.param("fileId"), branchId));
    return c.body(null, 204);
  });
}
