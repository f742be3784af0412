import { createReadStream } from "node:fs";
import { createHash } from "node:crypto";
import { Readable, Transform, type TransformCallback } from "node:stream";
import { createGzip } from "node:zlib";
import { S3Client } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import type { StorageApi, StorageFile } from "./storage";
import { formatBytes } from "../validation/storage";

// Uploading a table's data the way the seed recommends for production (section 4.1): prepare a
// file resource with `federationToken` (temporary credentials of the object store), then upload
// the content straight to the store with a maintained S3 client. The content is streamed from
// disk and gzipped on the way (Storage recognises gzip by its magic bytes), never held whole in
// memory: @aws-sdk/lib-storage's Upload sends a small file in one PutObject and a large one as a
// multipart upload, its parts in parallel (at most queueSize x partSize bytes buffered), each part
// retried by the SDK on its own; a part sent twice replaces itself, and the object exists only
// once CompleteMultipartUpload lists every part, so a failed part never leaves half a file for an
// import to load. The sha256 of the raw content is computed on the same pass.
// The upload helper (`{import_url}/upload-file`) is not used: it takes the whole file in one
// multipart request, fine for a small file from a client without an S3 client, which this is not.

export interface Uploaded {
  file: StorageFile;
  /** Bytes read from the source (before gzip). */
  bytes: number;
  sha256: string;
}

export interface UploadOptions {
  /** The file resource's name, e.g. `countries.csv.gz`. */
  name: string;
  /** Tags of the file resource (the owner's, so a create interrupted after the upload finds its file). */
  tags: string[];
  /** Raw size, when known (for the progress percent). */
  totalBytes?: number;
  /** Called every `progressEveryMs` while the upload runs, and at its end. */
  progress?: (p: { bytes: number; totalBytes?: number; bytesPerSecond: number; done: boolean }) => void;
  progressEveryMs?: number;
  /** Part size of a multipart upload (S3's minimum is 5 MiB). */
  partSize?: number;
  queueSize?: number;
}

/** Counts and hashes the bytes passing through. */
class Meter extends Transform {
  bytes = 0;
  readonly hash = createHash("sha256");
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.bytes += chunk.length;
    this.hash.update(chunk);
    cb(null, chunk);
  }
}

/** Uploads a file from disk (or text) into File Storage; answers the file resource and what was read. */
export async function uploadToStorage(storage: StorageApi, branch: string, source: { path: string } | { text: string }, opts: UploadOptions): Promise<Uploaded> {
  const file = await storage.prepareFile(branch, { name: opts.name, tags: opts.tags, federationToken: true, isEncrypted: true });
  const params = file.uploadParams;
  const creds = params?.credentials;
  if (!params || !creds) throw new Error(`File Storage answered prepare of "${opts.name}" without upload credentials (uploadParams.credentials)`);
  const client = new S3Client({
    region: file.region ?? "us-east-1",
    credentials: { accessKeyId: creds.AccessKeyId, secretAccessKey: creds.SecretAccessKey, sessionToken: creds.SessionToken },
    ...(file.s3Endpoint ? { endpoint: file.s3Endpoint, forcePathStyle: true } : {}),
    maxAttempts: 5,
  });
  const meter = new Meter();
  const input = "path" in source ? createReadStream(source.path, { highWaterMark: 1024 * 1024 }) : Readable.from([Buffer.from(source.text, "utf8")]);
  const body = input.pipe(meter).pipe(createGzip({ level: 1 }));
  input.on("error", (err: Error) => body.destroy(err));
  const started = Date.now();
  const report = (done: boolean) => {
    const seconds = Math.max(0.001, (Date.now() - started) / 1000);
    opts.progress?.({ bytes: meter.bytes, totalBytes: opts.totalBytes, bytesPerSecond: meter.bytes / seconds, done });
  };
  const timer = opts.progress ? setInterval(() => report(false), opts.progressEveryMs ?? 2000) : undefined;
  try {
    const upload = new Upload({
      client,
      params: {
        Bucket: params.bucket,
        Key: params.key,
        Body: body,
        ContentType: "text/csv",
        ContentEncoding: "gzip",
        ...(params["x-amz-server-side-encryption"] ? { ServerSideEncryption: params["x-amz-server-side-encryption"] as "AES256" } : {}),
      },
      // At most queueSize parts in flight plus the one being filled: ~24 MB of buffers, so the
      // provider stays under 200 MB (the bench's figure) however large the file.
      partSize: opts.partSize ?? 8 * 1024 * 1024,
      queueSize: opts.queueSize ?? 2,
      leavePartsOnError: false,
    });
    await upload.done();
  } catch (err) {
    throw new Error(`uploading "${opts.name}" to File Storage (file ${file.id}) failed: ${(err as Error).message}`);
  } finally {
    if (timer) clearInterval(timer);
    client.destroy();
  }
  report(true);
  return { file, bytes: meter.bytes, sha256: meter.hash.digest("hex") };
}

/** `Table "countries": uploaded 120 MB of 1.0 GB (12%), 45 MB/s`. */
export function describeProgress(what: string, p: { bytes: number; totalBytes?: number; bytesPerSecond: number; done: boolean }): string {
  const of = p.totalBytes ? ` of ${formatBytes(p.totalBytes)} (${Math.floor((100 * p.bytes) / Math.max(1, p.totalBytes))}%)` : "";
  return `${what}: ${p.done ? "uploaded" : "uploading"} ${formatBytes(p.bytes)}${of}, ${formatBytes(Math.round(p.bytesPerSecond))}/s`;
}
