import { createHash } from "node:crypto";
import { Hono, type Context } from "hono";
import { basePath } from "hono/route";
import type { EmulatorContext } from "../core/context";
import type { ServiceEnv } from "../core/http";
import { randomString } from "../core/random";
import { readBody, str } from "./body";
import { blobs } from "./blobs";
import { CHECKSUM_ALGORITHMS, type StoredChecksum, algorithmNamed, checksumHeader, compositeChecksum, defaultChecksum, digest } from "./checksums";
import { FILE_BUCKET, getObject, objectKey, putObject } from "./files";
import { rng } from "./format";
import { S3Error, allows, authenticate, s3Errors, type Principal } from "./s3-auth";
import type { MultipartUpload } from "./state";

// The object store: the subset of the S3 REST API (path style, `/<bucket>/<key>`) that
// @aws-sdk/client-s3 and @aws-sdk/lib-storage's Upload use, with SigV4 authentication
// (s3-auth.ts):
//   PutObject            PUT  /<b>/<k>
//   GetObject/HeadObject GET|HEAD /<b>/<k>
//   DeleteObject         DELETE /<b>/<k>
//   CreateMultipartUpload   POST /<b>/<k>?uploads
//   UploadPart              PUT  /<b>/<k>?partNumber=N&uploadId=U
//   CompleteMultipartUpload POST /<b>/<k>?uploadId=U   (XML list of parts)
//   AbortMultipartUpload    DELETE /<b>/<k>?uploadId=U
// plus the legacy browser form upload (`POST /<b>` with `key`, `policy`, `signature` and `file`
// fields) that a prepare without `federationToken` describes. Bodies may come `aws-chunked` (the
// SDK's streaming uploads with a trailing checksum); sha256 payload hashes, Content-MD5 and the
// CRC32, CRC64NVME, SHA1 and SHA256 checksums are verified as S3 does, and an object answers its
// checksum when asked (checksums.ts). Errors are S3's XML documents. Only the files bucket exists.

const XMLNS = "http://s3.amazonaws.com/doc/2006-03-01/";
/** S3's minimum size of every part but the last. */
const MIN_PART_SIZE = 5 * 1024 * 1024;

const xml = (s: string): string => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

function xmlDoc(root: string, fields: Record<string, string>): string {
  const inner = Object.entries(fields)
    .map(([k, v]) => `<${k}>${xml(v)}</${k}>`)
    .join("");
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${root} xmlns="${XMLNS}">${inner}</${root}>`;
}

const md5 = (b: Buffer): Buffer => createHash("md5").update(b).digest();

/** Decodes an `aws-chunked` body: `<hex size>[;chunk-signature=…]\r\n<bytes>\r\n` … `0\r\n<trailers>\r\n\r\n`. */
function decodeAwsChunked(body: Buffer): { data: Buffer; trailers: Record<string, string> } {
  const chunks: Buffer[] = [];
  const trailers: Record<string, string> = {};
  let pos = 0;
  const line = (): string => {
    const end = body.indexOf("\r\n", pos);
    if (end < 0) throw new S3Error(400, "IncompleteBody", "The request body terminated unexpectedly");
    const text = body.subarray(pos, end).toString("latin1");
    pos = end + 2;
    return text;
  };
  for (;;) {
    const size = parseInt(line().split(";")[0], 16);
    if (Number.isNaN(size)) throw new S3Error(400, "InvalidChunkSizeError", "Only the last chunk is allowed to have a size less than 8192 bytes");
    if (size === 0) break;
    if (pos + size > body.length) throw new S3Error(400, "IncompleteBody", "The request body terminated unexpectedly");
    chunks.push(body.subarray(pos, pos + size));
    pos += size;
    line();
  }
  while (pos < body.length) {
    const t = line();
    if (!t) break;
    const i = t.indexOf(":");
    if (i > 0) trailers[t.slice(0, i).trim().toLowerCase()] = t.slice(i + 1).trim();
  }
  return { data: Buffer.concat(chunks), trailers };
}

/**
 * The body of an upload, decoded and checked against the hashes and checksums the client sent,
 * with the checksum the object (or part) keeps: the one the client sent (a header, or an
 * `aws-chunked` trailer), if any.
 */
async function uploadedBytes(c: Context<ServiceEnv>): Promise<{ data: Buffer; checksum?: StoredChecksum }> {
  let data: Buffer = Buffer.from(await c.req.arrayBuffer());
  const checks: Record<string, string> = {};
  for (const [k, v] of c.req.raw.headers.entries()) if (k.startsWith("x-amz-checksum-") && k !== "x-amz-checksum-mode") checks[k] = v;
  const payloadHash = c.req.header("x-amz-content-sha256") ?? "";
  const encoding = c.req.header("content-encoding") ?? "";
  if (payloadHash.startsWith("STREAMING-") || encoding.split(",").some((e) => e.trim() === "aws-chunked")) {
    const decoded = decodeAwsChunked(data);
    data = decoded.data;
    Object.assign(checks, decoded.trailers);
    const declared = c.req.header("x-amz-decoded-content-length");
    if (declared !== undefined && Number(declared) !== data.length) {
      throw new S3Error(400, "IncompleteBody", "You did not provide the number of bytes specified by the Content-Length HTTP header.");
    }
  } else if (/^[0-9a-f]{64}$/.test(payloadHash) && createHash("sha256").update(data).digest("hex") !== payloadHash) {
    throw new S3Error(400, "XAmzContentSHA256Mismatch", "The provided 'x-amz-content-sha256' header does not match what was computed.");
  }
  const contentMd5 = c.req.header("content-md5");
  if (contentMd5 && md5(data).toString("base64") !== contentMd5) {
    throw new S3Error(400, "BadDigest", "The Content-MD5 you specified did not match what we received.");
  }
  let kept: StoredChecksum | undefined;
  for (const algorithm of CHECKSUM_ALGORITHMS) {
    const want = checks[checksumHeader(algorithm)];
    if (!want) continue;
    // CRC32C is kept as sent: the emulator does not compute it.
    const got = digest(algorithm, [data]);
    if (got && got.toString("base64") !== want) {
      throw new S3Error(400, "BadDigest", `The ${algorithm} you specified did not match the calculated checksum.`);
    }
    kept ??= { algorithm, value: want, type: "FULL_OBJECT" };
  }
  return kept ? { data, checksum: kept } : { data };
}

/** Content-Encoding to keep with the object: the transfer's `aws-chunked` removed. */
function storedEncoding(c: Context<ServiceEnv>): string | undefined {
  const kept = (c.req.header("content-encoding") ?? "")
    .split(",")
    .map((e) => e.trim())
    .filter((e) => e && e !== "aws-chunked");
  return kept.length ? kept.join(", ") : undefined;
}

const partBlob = (uploadId: string, partNumber: number): string => `multipart:${uploadId}/${partNumber}`;

/**
 * The checksum of a completed multipart upload that named an algorithm: composite (of its parts'
 * checksums) or full-object, as CreateMultipartUpload asked; none without an algorithm (S3's
 * default is then computed when first asked for) or when a part's checksum is unknown.
 */
function multipartChecksum(u: MultipartUpload, parts: Buffer[], partChecksums: string[]): StoredChecksum | undefined {
  const algorithm = u.checksumAlgorithm;
  if (!algorithm) return undefined;
  if (u.checksumType === "FULL_OBJECT") {
    const d = digest(algorithm, parts);
    return d ? { algorithm, value: d.toString("base64"), type: "FULL_OBJECT" } : undefined;
  }
  return partChecksums.length === parts.length ? compositeChecksum(algorithm, partChecksums) : undefined;
}

export function objectStoreApp(ctx: EmulatorContext): Hono<ServiceEnv> {
  const api = new Hono<ServiceEnv>();

  /** The bucket and key of the request (each path segment percent-decoded once) and the raw path. */
  const target = (c: Context<ServiceEnv>): { bucket: string; key: string; rawPath: string; query: URLSearchParams } => {
    const url = new URL(c.req.url);
    const rest = url.pathname.slice(basePath(c).length + 1);
    const [bucket, ...parts] = rest.split("/");
    return { bucket: decodeURIComponent(bucket), key: parts.map(decodeURIComponent).join("/"), rawPath: url.pathname, query: url.searchParams };
  };

  /** Authenticates the request and checks the principal may act on the object. */
  const authorize = async (c: Context<ServiceEnv>): Promise<{ bucket: string; key: string; query: URLSearchParams; principal: Principal }> => {
    const t = target(c);
    const principal = await authenticate(ctx, { method: c.req.method, rawPath: t.rawPath, query: t.query, headers: c.req.raw.headers });
    if (!allows(principal, t.bucket, t.key)) throw s3Errors.accessDenied();
    if (t.bucket !== FILE_BUCKET) throw new S3Error(404, "NoSuchBucket", "The specified bucket does not exist", { BucketName: t.bucket });
    if (!t.key) throw new S3Error(400, "InvalidRequest", "A key is required.");
    return { ...t, principal };
  };

  const upload = (uploadId: string | null, bucket: string, key: string): MultipartUpload => {
    const u = uploadId ? ctx.state.storage.multipartUploads[uploadId] : undefined;
    if (!u || u.bucket !== bucket || u.key !== key) {
      throw new S3Error(404, "NoSuchUpload", "The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.", {
        UploadId: uploadId ?? "",
      });
    }
    return u;
  };

  api.put("/*", async (c) => {
    const { bucket, key, query } = await authorize(c);
    const { data, checksum } = await uploadedBytes(c);
    if (query.has("uploadId") || query.has("partNumber")) {
      const u = upload(query.get("uploadId"), bucket, key);
      const partNumber = Number(query.get("partNumber"));
      if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > 10000) {
        throw new S3Error(400, "InvalidArgument", "Part number must be an integer between 1 and 10000, inclusive");
      }
      const etag = `"${md5(data).toString("hex")}"`;
      blobs(ctx).put(partBlob(u.uploadId, partNumber), data);
      // The part's checksum in the upload's algorithm: as sent, else computed.
      const partChecksum = u.checksumAlgorithm
        ? checksum?.algorithm === u.checksumAlgorithm
          ? checksum.value
          : digest(u.checksumAlgorithm, [data])?.toString("base64")
        : undefined;
      u.parts[String(partNumber)] = partChecksum ? { etag, size: data.length, checksum: partChecksum } : { etag, size: data.length };
      return c.body(null, 200, { ETag: etag });
    }
    const contentType = c.req.header("content-type") ?? "binary/octet-stream";
    const stored = putObject(ctx, bucket, key, data, contentType, storedEncoding(c), undefined, checksum);
    return c.body(null, 200, { ETag: stored.etag ?? "" });
  });

  api.post("/*", async (c) => {
    const t = target(c);
    if (!t.key && !t.query.has("uploads")) return legacyFormUpload(c, t.bucket);
    const { bucket, key, query } = await authorize(c);
    if (query.has("uploads")) {
      const uploadId = randomString(rng(ctx), 64, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-");
      const checksumAlgorithm = algorithmNamed(c.req.header("x-amz-checksum-algorithm"));
      ctx.state.storage.multipartUploads[uploadId] = {
        uploadId,
        bucket,
        key,
        contentType: c.req.header("content-type") ?? "binary/octet-stream",
        contentEncoding: storedEncoding(c),
        initiated: new Date(ctx.now()).toISOString(),
        ...(checksumAlgorithm
          ? {
              checksumAlgorithm,
              // CRC64NVME is always a full-object checksum; the others are composite unless asked otherwise.
              checksumType: checksumAlgorithm === "CRC64NVME" || c.req.header("x-amz-checksum-type") === "FULL_OBJECT" ? "FULL_OBJECT" : "COMPOSITE",
            }
          : {}),
        parts: {},
      };
      return c.body(xmlDoc("InitiateMultipartUploadResult", { Bucket: bucket, Key: key, UploadId: uploadId }), 200, { "Content-Type": "application/xml" });
    }
    if (query.has("uploadId")) {
      const u = upload(query.get("uploadId"), bucket, key);
      const listed = [...(await c.req.text()).matchAll(/<Part>([\s\S]*?)<\/Part>/g)].map((m) => ({
        partNumber: Number(/<PartNumber>\s*(\d+)\s*<\/PartNumber>/.exec(m[1])?.[1]),
        etag: (/<ETag>([\s\S]*?)<\/ETag>/.exec(m[1])?.[1] ?? "").replace(/&quot;/g, '"').trim(),
      }));
      if (!listed.length) throw new S3Error(400, "MalformedXML", "The XML you provided was not well-formed or did not validate against our published schema");
      const invalidPart = () =>
        new S3Error(400, "InvalidPart", "One or more of the specified parts could not be found.  The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.");
      const parts: Buffer[] = [];
      const partChecksums: string[] = [];
      listed.forEach((p, i) => {
        if (i > 0 && p.partNumber <= listed[i - 1].partNumber) {
          throw new S3Error(400, "InvalidPartOrder", "The list of parts was not in ascending order. Parts must be ordered by part number.");
        }
        const have = u.parts[String(p.partNumber)];
        const bytes = have ? blobs(ctx).get(partBlob(u.uploadId, p.partNumber)) : undefined;
        const quoted = p.etag.startsWith('"') ? p.etag : `"${p.etag}"`;
        if (!have || !bytes || have.etag !== quoted) throw invalidPart();
        if (i < listed.length - 1 && bytes.length < MIN_PART_SIZE) {
          throw new S3Error(400, "EntityTooSmall", "Your proposed upload is smaller than the minimum allowed object size.");
        }
        parts.push(bytes);
        if (have.checksum) partChecksums.push(have.checksum);
      });
      const data = Buffer.concat(parts);
      const etag = `"${md5(Buffer.concat(parts.map(md5))).toString("hex")}-${parts.length}"`;
      putObject(ctx, bucket, key, data, u.contentType, u.contentEncoding, etag, multipartChecksum(u, parts, partChecksums));
      for (const n of Object.keys(u.parts)) blobs(ctx).delete(partBlob(u.uploadId, Number(n)));
      delete ctx.state.storage.multipartUploads[u.uploadId];
      const location = `${ctx.urls().files}/${bucket}/${key.split("/").map(encodeURIComponent).join("/")}`;
      return c.body(xmlDoc("CompleteMultipartUploadResult", { Location: location, Bucket: bucket, Key: key, ETag: etag }), 200, {
        "Content-Type": "application/xml",
      });
    }
    throw new S3Error(405, "MethodNotAllowed", "The specified method is not allowed against this resource.");
  });

  /** The form upload of a prepare without federationToken: the form must carry its policy fields. */
  const legacyFormUpload = async (c: Context<ServiceEnv>, bucket: string): Promise<Response> => {
    const { body, files } = await readBody(c);
    const key = str(body.key);
    const file = files.file ?? Object.values(files)[0];
    if (!str(body.policy) || !str(body.signature) || !str(body.AWSAccessKeyId)) throw s3Errors.accessDenied();
    if (bucket !== FILE_BUCKET) throw new S3Error(404, "NoSuchBucket", "The specified bucket does not exist", { BucketName: bucket });
    if (!key || !file) throw new S3Error(400, "InvalidArgument", "Bucket POST must contain a field named 'key'.  If it is specified, please check the order of the fields.");
    putObject(ctx, bucket, key, Buffer.from(file.data), file.type || "binary/octet-stream");
    return c.body(null, 204);
  };

  api.delete("/*", async (c) => {
    const { bucket, key, query } = await authorize(c);
    if (query.has("uploadId")) {
      const u = upload(query.get("uploadId"), bucket, key);
      for (const n of Object.keys(u.parts)) blobs(ctx).delete(partBlob(u.uploadId, Number(n)));
      delete ctx.state.storage.multipartUploads[u.uploadId];
      return c.body(null, 204);
    }
    delete ctx.state.storage.objects[objectKey(bucket, key)];
    blobs(ctx).delete(objectKey(bucket, key));
    return c.body(null, 204);
  });

  // GET answers HEAD too (hono strips the body).
  api.get("/*", async (c) => {
    const { bucket, key } = await authorize(c);
    const meta = ctx.state.storage.objects[objectKey(bucket, key)];
    const data = meta ? getObject(ctx, bucket, key) : undefined;
    if (!meta || !data) throw new S3Error(404, "NoSuchKey", "The specified key does not exist.", { Key: key });
    const headers: Record<string, string> = {
      "Content-Type": meta.contentType,
      "Content-Length": String(data.length),
      ETag: meta.etag ?? `"${md5(data).toString("hex")}"`,
      "Accept-Ranges": "bytes",
    };
    if (meta.contentEncoding) headers["Content-Encoding"] = meta.contentEncoding;
    // The checksum only when asked for (AWS S3 API reference, GetObject and HeadObject:
    // x-amz-checksum-mode "To retrieve the checksum, this mode must be enabled"). S3's default
    // checksum is computed here once, not on every upload (a load of a gigabyte need not pay for it).
    if ((c.req.header("x-amz-checksum-mode") ?? "").toUpperCase() === "ENABLED") {
      meta.checksum ??= defaultChecksum(data);
      headers[checksumHeader(meta.checksum.algorithm)] = meta.checksum.value;
      headers["x-amz-checksum-type"] = meta.checksum.type;
    }
    if (c.req.method === "HEAD") return c.body(null, 200, headers);
    // A view of the stored bytes, not a copy (objects may be large). An answer's body is bytes of
    // an ArrayBuffer; stored Buffers are (Buffer.from, reads, concatenations), and bytes in shared
    // memory, which the emulator never stores, would be copied.
    const bytes = data.buffer instanceof ArrayBuffer ? new Uint8Array(data.buffer, data.byteOffset, data.length) : new Uint8Array(data);
    return c.body(bytes, 200, headers);
  });

  api.onError((err, c) => {
    if (err instanceof S3Error) {
      // HEAD answers carry no body (S3 and HTTP).
      if (c.req.method === "HEAD") return c.body(null, err.status);
      const extra = Object.entries(err.extra)
        .map(([k, v]) => `<${k}>${xml(v)}</${k}>`)
        .join("");
      const requestId = randomString(rng(ctx), 16, "0123456789ABCDEF");
      return c.body(
        `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${err.code}</Code><Message>${xml(err.message)}</Message>${extra}<RequestId>${requestId}</RequestId></Error>`,
        err.status,
        { "Content-Type": "application/xml" },
      );
    }
    throw err;
  });
  return api;
}
