import { open } from "node:fs/promises";
import { createHash } from "node:crypto";
import { createGzip } from "node:zlib";
import type * as S3 from "@aws-sdk/client-s3";
import type { StorageApi, StorageFile } from "./storage";
import { asError } from "./errors";
import { formatBytes } from "../validation/storage";
import { collectYoungGeneration } from "./v8-memory";

// The AWS SDK is loaded on the first upload, not with this module: this module comes with the Table
// kind into every program and into each provider process that handles a Table, and loading the
// SDK costs about 75 ms of CPU there (a tenth of a provider process' start) that only an upload needs.
let s3: typeof S3 | undefined;
const loadS3 = (): typeof S3 => (s3 ??= require("@aws-sdk/client-s3"));

// Uploading a table's data the way the seed recommends for production (section 4.1): prepare a
// file resource with `federationToken` (temporary credentials of the object store), then upload
// the content straight to the store with the maintained S3 client. The content is read from disk
// and gzipped on the way (Storage recognises gzip by its magic bytes), never held whole in memory.
// A small result goes in one PutObject, a large one as a multipart upload; each request is retried
// by the SDK on its own (a part sent twice replaces itself), and the object exists only once
// CompleteMultipartUpload lists every part, so a failed part never leaves half a file to load.
// The upload helper (`{import_url}/upload-file`) is not used: it takes the whole file in one
// multipart request, fine for a small file from a client without an S3 client, which this is not.
//
// Memory: every buffer of an upload is allocated once and reused (`Buffers`): one read buffer
// and one part buffer per object in flight. What zlib allocates for its output is freed after
// each part (v8-memory.ts).
// Allocating per read and per part (as a stream pipe and @aws-sdk/lib-storage do) left up to
// ~60 MB of dead buffers that V8 frees only under its external-memory pressure, and malloc kept
// the pages after: the dynamic provider peaked at 225 MB at 1 GB (the data bench, CONTRIBUTING.md "Table data").

export interface Uploaded {
  file: StorageFile;
  /** Uploaded sliced: the slices carry no header line, so a load names the columns. */
  sliced?: boolean;
  /** Bytes read from the source (before gzip). */
  bytes: number;
  sha256: string;
}

export interface UploadProgress {
  bytes: number;
  totalBytes?: number;
  bytesPerSecond: number;
  done: boolean;
}

export interface UploadOptions {
  /** The file resource's name, e.g. `countries.csv.gz`. */
  name: string;
  /** Tags of the file resource (the owner's, so a create interrupted after the upload finds its file). */
  tags: string[];
  /** Raw size, when known (for the progress percent). */
  totalBytes?: number;
  /** Called every `progressEveryMs` while the upload runs, and at its end. */
  progress?: (p: UploadProgress) => void;
  progressEveryMs?: number;
  /** Part size of a multipart upload (S3's minimum is 5 MiB). */
  partSize?: number;
}

/** A large CSV file cut at record boundaries: the data's [start, end) byte ranges (no header), and the whole file's size and sha256. */
export interface Slices {
  ranges: Array<[number, number]>;
  bytes: number;
  sha256: string;
}

/**
 * Above `thresholdBytes` a file goes sliced (seed section 2.2): cut at record boundaries into
 * slices of about `sliceBytes` (the cuts come from the CSV scan that check makes), without the
 * header, each gzipped and uploaded on its own, `parallel` at a time, then the manifest
 * `{entries: [{url: "s3://<bucket>/<key><n>"}]}` at `<key>manifest`. A failed slice is uploaded
 * again whole (a PUT replaces its object; a multipart upload makes it exist only complete), and
 * the manifest, written last, names exactly one object per slice: no retry can duplicate or drop
 * rows. 256 MiB / 64 MiB: a file Storage loads in one piece stays one file. Two slices in flight
 * gzip on two threads of libuv's pool (gzip, not the network, bounds a local upload: ~65 MB/s per
 * thread at level 1), with ~2 x 6 MiB of buffers.
 */
export const slicing = { thresholdBytes: 256 * 1024 * 1024, sliceBytes: 64 * 1024 * 1024, parallel: 2, attempts: 3 };

/** Whether a file of `bytes` goes sliced (see `slicing`). */
export const goesSliced = (bytes: number): boolean => bytes > slicing.thresholdBytes;

/** Part size of a multipart upload: S3's minimum, the least memory per part in flight. */
export const PART_BYTES = 5 * 1024 * 1024;

/** Bytes read from disk at a time. */
const READ_BYTES = 1024 * 1024;

/** Where an object's raw bytes come from: a file's byte range, or text. */
type Source = { path: string; start?: number; end?: number } | { text: string };

/** The buffers of one object in flight: reused by every object sent after it. */
interface Buffers {
  read: Buffer;
  part: Buffer;
}

/** A pool of `Buffers`, allocated on first use and kept for the rest of one upload. */
class BufferPool {
  private readonly free: Buffers[] = [];
  constructor(private readonly partSize: number) {}
  take(): Buffers {
    return this.free.pop() ?? { read: Buffer.allocUnsafeSlow(READ_BYTES), part: Buffer.allocUnsafeSlow(this.partSize) };
  }
  give(b: Buffers): void {
    this.free.push(b);
  }
}

/** Reads a source into `into` piece by piece, calling `each` with a view of what was read (valid until `each` resolves). */
async function readSource(source: Source, into: Buffer, each: (piece: Buffer) => Promise<void>): Promise<void> {
  if ("text" in source) {
    const all = Buffer.from(source.text, "utf8");
    for (let at = 0; at < all.length; at += into.length) await each(all.subarray(at, at + into.length));
    return;
  }
  const fh = await open(source.path, "r");
  try {
    let pos = source.start ?? 0;
    const end = source.end ?? Infinity;
    while (pos < end) {
      const { bytesRead } = await fh.read(into, 0, Math.min(into.length, end - pos), pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      await each(into.subarray(0, bytesRead));
    }
  } finally {
    await fh.close();
  }
}

interface Target {
  client: S3.S3Client;
  bucket: string;
  key: string;
  encryption?: "AES256";
}

/**
 * Gzips `source` into one object: the gzip output fills the part buffer, which is sent when full
 * (gzip waits meanwhile; a part takes a few ms to send against ~0.2 s to fill, and another slice
 * gzips in parallel). `onRead` sees each raw piece read.
 */
async function sendObject(target: Target, source: Source, buffers: Buffers, partSize: number, onRead: (piece: Buffer) => void): Promise<void> {
  const { client, bucket: Bucket, key: Key } = target;
  const { CreateMultipartUploadCommand, UploadPartCommand, PutObjectCommand, CompleteMultipartUploadCommand, AbortMultipartUploadCommand } = loadS3();
  const common = { Bucket, Key, ContentType: "text/csv", ContentEncoding: "gzip", ...(target.encryption ? { ServerSideEncryption: target.encryption } : {}) } as const;
  // Level 1 with memLevel 9 (zlib's "maximum memory for optimal speed": 384 KiB per stream instead
  // of 256 KiB): 65-67 MB/s per thread here instead of 60, the same output within 0.1%.
  const gzip = createGzip({ level: 1, memLevel: 9, chunkSize: 64 * 1024 });
  const feeding = readSource(source, buffers.read, (piece) => {
    onRead(piece);
    // The callback runs once zlib has consumed the piece: only then is the read buffer reused.
    return new Promise<void>((resolve, reject) => gzip.write(piece, (err) => (err ? reject(err) : resolve())));
  }).then(
    () => void gzip.end(),
    (err: unknown) => {
      gzip.destroy(err instanceof Error ? err : new Error(String(err)));
    },
  );
  let uploadId: string | undefined;
  const parts: S3.CompletedPart[] = [];
  let fill = 0;
  /** Sends the part filled so far; the buffer is free again once the store answered. */
  const flushPart = async () => {
    uploadId ??= (await client.send(new CreateMultipartUploadCommand(common))).UploadId;
    if (!uploadId) throw new Error("the object store answered CreateMultipartUpload without an UploadId");
    const PartNumber = parts.length + 1;
    const answer = await client.send(new UploadPartCommand({ Bucket, Key, UploadId: uploadId, PartNumber, Body: buffers.part.subarray(0, fill), ContentLength: fill }));
    if (!answer.ETag) throw new Error(`the object store answered part ${PartNumber} without an ETag`);
    parts.push({ PartNumber, ETag: answer.ETag });
    fill = 0;
    // The gzip output copied into this part is garbage now: free it before it piles up (v8-memory.ts).
    collectYoungGeneration();
  };
  try {
    // A zlib stream without an encoding yields Buffers (Node types its iterator as any).
    const output: AsyncIterable<Buffer> = gzip;
    for await (const out of output) {
      for (let at = 0; at < out.length; ) {
        const n = out.copy(buffers.part, fill, at);
        fill += n;
        at += n;
        if (fill === partSize) await flushPart();
      }
    }
    await feeding;
    if (!uploadId) {
      await client.send(new PutObjectCommand({ ...common, Body: buffers.part.subarray(0, fill), ContentLength: fill }));
      return;
    }
    if (fill > 0) await flushPart();
    await client.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId: uploadId, MultipartUpload: { Parts: parts } }));
  } catch (err) {
    gzip.destroy();
    await feeding;
    // The parts sent so far are dropped: the object never exists half-written.
    if (uploadId) await client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId: uploadId })).catch(() => undefined);
    throw err;
  }
}

/**
 * Runs `make` (an S3 client's construction) with the AWS SDK's Node.js-version notice off. On
 * Node < 22 the SDK's first client prints a 7-line warning about the SDK's own future releases,
 * which Pulumi shows under the stack in every deploy that uploads table data: it concerns this
 * package's dependency, not the user's project (the README's quick start says which Node to plan on).
 * The SDK's opt-out is an environment variable it reads when its first client is made; it is set
 * for that moment only. (The SDK then stays quiet for the rest of the process, as it would after
 * printing the notice once.)
 */
function withoutSdkNodeNotice<T>(make: () => T): T {
  const key = "AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED";
  const before = process.env[key];
  process.env[key] = "true";
  try {
    return make();
  } finally {
    if (before === undefined) delete process.env[key];
    else process.env[key] = before;
  }
}

function targetFor(file: StorageFile, name: string): { client: S3.S3Client; params: NonNullable<StorageFile["uploadParams"]>; encryption?: "AES256" } {
  const params = file.uploadParams;
  const creds = params?.credentials;
  if (!params || !creds) throw new Error(`File Storage answered prepare of "${name}" without upload credentials (uploadParams.credentials)`);
  const { S3Client } = loadS3();
  const client = withoutSdkNodeNotice(
    () =>
      new S3Client({
        region: file.region ?? "us-east-1",
        credentials: { accessKeyId: creds.AccessKeyId, secretAccessKey: creds.SecretAccessKey, sessionToken: creds.SessionToken },
        ...(file.s3Endpoint ? { endpoint: file.s3Endpoint, forcePathStyle: true } : {}),
        maxAttempts: 5,
      }),
  );
  return { client, params, ...(params["x-amz-server-side-encryption"] === "AES256" ? { encryption: "AES256" as const } : {}) };
}

/** Reports progress every `progressEveryMs` while `run` runs, and once at its end. */
async function withProgress<T>(opts: UploadOptions, run: (counted: (n: number) => void) => Promise<T>, finalBytes: (result: T) => number): Promise<T> {
  let bytes = 0;
  const started = Date.now();
  const report = (done: boolean, total = bytes) => {
    const seconds = Math.max(0.001, (Date.now() - started) / 1000);
    opts.progress?.({ bytes: total, totalBytes: opts.totalBytes, bytesPerSecond: bytes / seconds, done });
  };
  const timer = opts.progress ? setInterval(() => report(false), opts.progressEveryMs ?? 2000) : undefined;
  let result: T;
  try {
    result = await run((n) => (bytes += n));
  } finally {
    if (timer) clearInterval(timer);
  }
  report(true, finalBytes(result));
  return result;
}

/** Uploads a large CSV file sliced (see `slicing`); answers the file resource (its url is the manifest's). */
async function uploadSliced(storage: StorageApi, branch: string, path: string, slices: Slices, opts: UploadOptions): Promise<Uploaded> {
  const { ranges } = slices;
  const file = await storage.prepareFile(branch, { name: opts.name, tags: opts.tags, federationToken: true, isEncrypted: true, isSliced: true });
  const { client, params, encryption } = targetFor(file, opts.name);
  const target = (k: number): Target => ({ client, bucket: params.bucket, key: sliceKey(k), encryption });
  const sliceKey = (k: number) => `${params.key}${String(k).padStart(5, "0")}.csv.gz`;
  const pool = new BufferPool(opts.partSize ?? PART_BYTES);
  try {
    await withProgress(
      opts,
      async (counted) => {
        const sendSlice = async (k: number) => {
          const [start, end] = ranges[k];
          for (let attempt = 1; ; attempt++) {
            let sent = 0;
            const buffers = pool.take();
            try {
              await sendObject(target(k), { path, start, end }, buffers, opts.partSize ?? PART_BYTES, (piece) => {
                sent += piece.length;
                counted(piece.length);
              });
              return;
            } catch (err) {
              counted(-sent);
              if (attempt >= slicing.attempts) throw new Error(`slice ${k + 1} of ${ranges.length} failed ${attempt} times: ${asError(err).message}`);
            } finally {
              pool.give(buffers);
            }
          }
        };
        let nextSlice = 0;
        const worker = async () => {
          while (nextSlice < ranges.length) await sendSlice(nextSlice++);
        };
        await Promise.all(Array.from({ length: Math.min(slicing.parallel, ranges.length) }, worker));
        const manifest = { entries: ranges.map((_, k) => ({ url: `s3://${params.bucket}/${sliceKey(k)}`, mandatory: true })) };
        await client.send(new (loadS3().PutObjectCommand)({ Bucket: params.bucket, Key: `${params.key}manifest`, Body: JSON.stringify(manifest), ContentType: "application/json" }));
      },
      () => slices.bytes,
    );
  } catch (err) {
    throw new Error(`uploading "${opts.name}" sliced to File Storage (file ${file.id}) failed: ${asError(err).message}`);
  } finally {
    client.destroy();
  }
  return { file, sliced: true, bytes: slices.bytes, sha256: slices.sha256 };
}

/**
 * Uploads a file from disk (or text) into File Storage; answers the file resource and what was
 * read (its size and sha256, hashed on the same pass). A file given with `slices` goes sliced.
 */
export async function uploadToStorage(storage: StorageApi, branch: string, source: { path: string; slices?: Slices } | { text: string }, opts: UploadOptions): Promise<Uploaded> {
  if ("path" in source && source.slices) return uploadSliced(storage, branch, source.path, source.slices, opts);
  const file = await storage.prepareFile(branch, { name: opts.name, tags: opts.tags, federationToken: true, isEncrypted: true });
  const { client, params, encryption } = targetFor(file, opts.name);
  const hash = createHash("sha256");
  let bytes = 0;
  try {
    await withProgress(
      opts,
      (counted) =>
        sendObject({ client, bucket: params.bucket, key: params.key, encryption }, "path" in source ? { path: source.path } : source, new BufferPool(opts.partSize ?? PART_BYTES).take(), opts.partSize ?? PART_BYTES, (piece) => {
          hash.update(piece);
          bytes += piece.length;
          counted(piece.length);
        }),
      () => bytes,
    );
  } catch (err) {
    throw new Error(`uploading "${opts.name}" to File Storage (file ${file.id}) failed: ${asError(err).message}`);
  } finally {
    client.destroy();
  }
  return { file, bytes, sha256: hash.digest("hex") };
}

/** `Table "countries": uploaded 120 MB of 1.0 GB (12%), 45 MB/s`. */
export function describeProgress(what: string, p: { bytes: number; totalBytes?: number; bytesPerSecond: number; done: boolean }): string {
  const of = p.totalBytes ? ` of ${formatBytes(p.totalBytes)} (${Math.floor((100 * p.bytes) / Math.max(1, p.totalBytes))}%)` : "";
  return `${what}: ${p.done ? "uploaded" : "uploading"} ${formatBytes(p.bytes)}${of}, ${formatBytes(Math.round(p.bytesPerSecond))}/s`;
}
