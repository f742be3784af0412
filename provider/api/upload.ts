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
  /** Uploaded sliced: the slices carry no header line, so a load names the columns. */
  sliced?: boolean;
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

/**
 * Above `thresholdBytes` a file goes sliced (seed section 2.2): cut at record boundaries into
 * slices of about `sliceBytes`, without the header, each gzipped and uploaded on its own
 * (lib-storage multipart within a slice), `parallel` at a time, then the manifest
 * `{entries: [{url: "s3://<bucket>/<key><n>"}]}` at `<key>manifest`. A failed slice is uploaded
 * again whole (a PUT replaces its object; a multipart upload makes it exist only complete), and
 * the manifest, written last, names exactly one object per slice: no retry can duplicate or drop
 * rows. 256 MiB / 64 MiB: a file Storage loads in one piece stays one file; one slice in flight
 * (its parts of `PART_BYTES`, one queued) keeps the provider's buffers at ~2 x 5 MiB, so the
 * dynamic provider stays under 200 MB resident (the data bench, README "Data bench").
 */
export const slicing = { thresholdBytes: 256 * 1024 * 1024, sliceBytes: 64 * 1024 * 1024, parallel: 1, attempts: 3 };

/** Part size of a multipart upload: S3's minimum, the least memory per part in flight. */
export const PART_BYTES = 5 * 1024 * 1024;

/** Record-aligned [start, end) byte ranges of a CSV file's data (the header line excluded), its size and sha256, in one read. */
export async function sliceRanges(path: string, sliceBytes: number): Promise<{ ranges: Array<[number, number]>; bytes: number; sha256: string }> {
  const hash = createHash("sha256");
  let pos = 0;
  let inQuotes = false;
  let headerEnd = -1;
  let next = 0;
  const cuts: number[] = [];
  const toggle = (buf: Buffer, from: number, to: number) => {
    // A doubled quote inside a quoted field toggles twice: the parity is exact for RFC 4180.
    for (let q = buf.indexOf(0x22, from); q >= 0 && q < to; q = buf.indexOf(0x22, q + 1)) inQuotes = !inQuotes;
  };
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 })) {
    const buf = chunk as Buffer;
    hash.update(buf);
    let i = 0;
    while (i < buf.length) {
      if (headerEnd >= 0 && pos + i < next) {
        const stop = Math.min(buf.length, next - pos);
        toggle(buf, i, stop);
        i = stop;
        continue;
      }
      const lf = buf.indexOf(0x0a, i);
      const end = lf < 0 ? buf.length : lf;
      toggle(buf, i, end);
      i = end + 1;
      if (lf < 0 || inQuotes) continue;
      if (headerEnd < 0) headerEnd = pos + i;
      else cuts.push(pos + i);
      next = pos + i + sliceBytes;
    }
    pos += buf.length;
  }
  const bounds = [Math.max(0, headerEnd < 0 ? pos : headerEnd), ...cuts.filter((c) => c < pos), pos];
  const ranges: Array<[number, number]> = [];
  for (let k = 0; k + 1 < bounds.length; k++) if (bounds[k + 1] > bounds[k]) ranges.push([bounds[k], bounds[k + 1]]);
  return { ranges, bytes: pos, sha256: hash.digest("hex") };
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

function clientFor(file: StorageFile, name: string): { client: S3Client; params: NonNullable<StorageFile["uploadParams"]> } {
  const params = file.uploadParams;
  const creds = params?.credentials;
  if (!params || !creds) throw new Error(`File Storage answered prepare of "${name}" without upload credentials (uploadParams.credentials)`);
  const client = new S3Client({
    region: file.region ?? "us-east-1",
    credentials: { accessKeyId: creds.AccessKeyId, secretAccessKey: creds.SecretAccessKey, sessionToken: creds.SessionToken },
    ...(file.s3Endpoint ? { endpoint: file.s3Endpoint, forcePathStyle: true } : {}),
    maxAttempts: 5,
  });
  return { client, params };
}

/** Uploads a large CSV file sliced (see `slicing`); answers the file resource (its url is the manifest's). */
async function uploadSliced(storage: StorageApi, branch: string, path: string, opts: UploadOptions): Promise<Uploaded> {
  const { ranges, bytes, sha256 } = await sliceRanges(path, slicing.sliceBytes);
  const file = await storage.prepareFile(branch, { name: opts.name, tags: opts.tags, federationToken: true, isEncrypted: true, isSliced: true });
  const { client, params } = clientFor(file, opts.name);
  let read = 0;
  const started = Date.now();
  const report = (done: boolean) => {
    const seconds = Math.max(0.001, (Date.now() - started) / 1000);
    opts.progress?.({ bytes: done ? bytes : read, totalBytes: opts.totalBytes, bytesPerSecond: read / seconds, done });
  };
  const timer = opts.progress ? setInterval(() => report(false), opts.progressEveryMs ?? 2000) : undefined;
  const sliceKey = (k: number) => `${params.key}${String(k).padStart(5, "0")}.csv.gz`;
  const sendSlice = async (k: number) => {
    const [start, end] = ranges[k];
    for (let attempt = 1; ; attempt++) {
      let counted = 0;
      const input = createReadStream(path, { start, end: end - 1, highWaterMark: 1024 * 1024 });
      input.on("data", (c: string | Buffer) => {
        counted += c.length;
        read += c.length;
      });
      const body = input.pipe(createGzip({ level: 1 }));
      input.on("error", (err: Error) => body.destroy(err));
      try {
        await new Upload({
          client,
          params: { Bucket: params.bucket, Key: sliceKey(k), Body: body, ContentType: "text/csv", ContentEncoding: "gzip" },
          partSize: opts.partSize ?? PART_BYTES,
          queueSize: 1,
          leavePartsOnError: false,
        }).done();
        return;
      } catch (err) {
        read -= counted;
        input.destroy();
        if (attempt >= slicing.attempts) throw new Error(`slice ${k + 1} of ${ranges.length} failed ${attempt} times: ${(err as Error).message}`);
      }
    }
  };
  try {
    let nextSlice = 0;
    const worker = async () => {
      while (nextSlice < ranges.length) await sendSlice(nextSlice++);
    };
    await Promise.all(Array.from({ length: Math.min(slicing.parallel, ranges.length) }, worker));
    const manifest = { entries: ranges.map((_, k) => ({ url: `s3://${params.bucket}/${sliceKey(k)}`, mandatory: true })) };
    await new Upload({ client, params: { Bucket: params.bucket, Key: `${params.key}manifest`, Body: JSON.stringify(manifest), ContentType: "application/json" } }).done();
  } catch (err) {
    throw new Error(`uploading "${opts.name}" sliced to File Storage (file ${file.id}) failed: ${(err as Error).message}`);
  } finally {
    if (timer) clearInterval(timer);
    client.destroy();
  }
  report(true);
  return { file, sliced: true, bytes, sha256 };
}

/** Uploads a file from disk (or text) into File Storage; answers the file resource and what was read. */
export async function uploadToStorage(storage: StorageApi, branch: string, source: { path: string } | { text: string }, opts: UploadOptions): Promise<Uploaded> {
  if ("path" in source && (opts.totalBytes ?? 0) > slicing.thresholdBytes) return uploadSliced(storage, branch, source.path, opts);
  const file = await storage.prepareFile(branch, { name: opts.name, tags: opts.tags, federationToken: true, isEncrypted: true });
  const { client, params } = clientFor(file, opts.name);
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
      // At most queueSize parts in flight plus the one being filled: ~10 MiB of buffers, so the
      // provider's memory does not grow with the file (the bench's figure, README "Data bench").
      partSize: opts.partSize ?? PART_BYTES,
      queueSize: opts.queueSize ?? 1,
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
