import { randomBytes } from "node:crypto";
import { gzipSync } from "node:zlib";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { startEmulator, type Emulator } from "../../emulator/server";
import { call, pollUntil } from "./helpers";
import { s3ClientFor } from "./s3-helpers";
import { presignedPutUrl } from "../../scripts/lib/presigned-put";

// The emulated object store, driven by the real AWS client: temporary credentials from
// `files/prepare` (federationToken), SigV4 verified, single and multipart uploads, sliced files.

let emu: Emulator;
const api = (method: string, path: string, opts: Parameters<typeof call>[3] = {}) => call(emu.url, method, path, { token: "master", ...opts });

// The bytes of loaded rows this emulator keeps (64 MB by default): ten rows of the "larger than
// the rows it keeps" test below, so that load needs no tens of megabytes (parsing 70 MB took 0.7 s,
// and over 30 s with the CSV rules instrumented by a mutation run). The other loads here are tiny.
const KEPT_BYTES = 10 * 1003;

beforeAll(async () => {
  emu = await startEmulator({ token: "master", taskDurationMs: 10, maxKeptBytes: KEPT_BYTES });
});
afterAll(() => emu.close());
afterEach(() => {
  vi.useRealTimers();
  emu.setFaults({});
});

interface Prepared {
  id: number;
  region: string;
  s3Endpoint: string;
  url: string;
  uploadParams: { key: string; bucket: string; acl: string; credentials: { AccessKeyId: string; SecretAccessKey: string; SessionToken: string; Expiration: string } };
}

async function prepare(name: string, extra: Record<string, unknown> = {}): Promise<Prepared> {
  const r = await api("POST", "/v2/storage/files/prepare", { json: { name, federationToken: true, ...extra } });
  expect(r.status).toBe(201);
  return r.body as Prepared;
}


/** The S3 error of a refused command: its code and HTTP status. */
async function refusal(p: Promise<unknown>): Promise<{ code: string; status: number | undefined }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof S3ServiceException) return { code: err.name, status: err.$metadata.httpStatusCode };
    throw err;
  }
  throw new Error("expected the object store to refuse the request");
}

async function waitJob(job: { id: number }) {
  return (await pollUntil(() => api("GET", `/v2/storage/jobs/${job.id}`), (r) => r.body.status === "success" || r.body.status === "error")).body;
}

async function rows(tableId: string): Promise<string> {
  return (await api("GET", `/v2/storage/tables/${tableId}/data-preview?format=rfc`)).text;
}

describe("object store", () => {
  it("issues AWS-style temporary credentials and the endpoint with a federationToken prepare", async () => {
    const p = await prepare("a.csv", { isEncrypted: true });
    expect(p).toMatchObject({ provider: "aws", region: "us-east-1", s3Endpoint: emu.urls.files });
    expect(p.uploadParams).toMatchObject({ bucket: "kbc-sapi-files", acl: "private", "x-amz-server-side-encryption": "AES256" });
    expect(p.uploadParams.credentials.AccessKeyId).toMatch(/^ASIA[A-Z0-9]{16}$/);
    // The real answer: created 10:34:45+0100, Expiration 21:34:46+00:00 (12 hours).
    const ttl = Date.parse(p.uploadParams.credentials.Expiration) - Date.now();
    expect(ttl).toBeGreaterThan(12 * 3600_000 - 5000);
    expect(ttl).toBeLessThanOrEqual(12 * 3600_000);
    const plain = await api("POST", "/v2/storage/files/prepare", { json: { name: "b.csv" } });
    expect(plain.body.s3Endpoint).toBeUndefined();
  });

  it("accepts a PutObject of gzipped CSV signed with the issued credentials and loads it into a table", async () => {
    const p = await prepare("countries.csv.gz");
    const csv = "code,name\nCZ,Czechia\nDE,Germany\n";
    const s3 = s3ClientFor(p);
    const put = await s3.send(new PutObjectCommand({ Bucket: p.uploadParams.bucket, Key: p.uploadParams.key, Body: gzipSync(csv), ContentEncoding: "gzip" }));
    expect(put.ETag).toMatch(/^"[0-9a-f]{32}"$/);
    const head = await s3.send(new HeadObjectCommand({ Bucket: p.uploadParams.bucket, Key: p.uploadParams.key }));
    expect(head.ContentEncoding).toBe("gzip");

    expect((await api("POST", "/v2/storage/buckets", { json: { name: "s3", stage: "in" } })).status).toBe(201);
    const job = await api("POST", "/v2/storage/buckets/in.c-s3/tables-async", { json: { name: "countries", dataFileId: p.id, primaryKey: "code" } });
    expect(await waitJob(job.body)).toMatchObject({ status: "success" });
    expect(await rows("in.c-s3.countries")).toBe('"code","name"\n"CZ","Czechia"\n"DE","Germany"\n');

    // The file's url is a presigned GET; altering its signature is refused.
    const detail = await api("GET", `/v2/storage/files/${p.id}`);
    const download = await fetch(detail.body.url);
    expect(download.status).toBe(200);
    const tampered = await fetch(detail.body.url.replace(/X-Amz-Signature=[0-9a-f]/, "X-Amz-Signature=x"));
    expect(tampered.status).toBe(403);
    expect(await tampered.text()).toContain("<Code>SignatureDoesNotMatch</Code>");

    // Deleting the file resource deletes its object.
    expect((await api("DELETE", `/v2/storage/files/${p.id}`)).status).toBe(204);
    expect(await refusal(s3.send(new GetObjectCommand({ Bucket: p.uploadParams.bucket, Key: p.uploadParams.key })))).toEqual({ code: "NoSuchKey", status: 404 });
  });

  it("takes a multipart Upload (lib-storage) in parts and reassembles it", async () => {
    const p = await prepare("big.bin");
    const body = randomBytes(11 * 1024 * 1024 + 123);
    const upload = new Upload({
      client: s3ClientFor(p),
      params: { Bucket: p.uploadParams.bucket, Key: p.uploadParams.key, Body: body },
      partSize: 5 * 1024 * 1024,
      queueSize: 2,
    });
    const done = await upload.done();
    expect(done.ETag).toMatch(/^"[0-9a-f]{32}-3"$/);
    const puts = emu.requests().filter((r) => r.method === "PUT" && r.path.includes("partNumber="));
    expect(puts.length).toBe(3);
    const got = await s3ClientFor(p).send(new GetObjectCommand({ Bucket: p.uploadParams.bucket, Key: p.uploadParams.key }));
    expect(Buffer.from(await got.Body!.transformToByteArray()).equals(body)).toBe(true);
    expect(Object.keys(emu.state.storage.multipartUploads)).toHaveLength(0);
  });

  it("refuses multipart misuse as S3 does", async () => {
    const p = await prepare("parts.bin");
    const s3 = s3ClientFor(p);
    const target = { Bucket: p.uploadParams.bucket, Key: p.uploadParams.key };
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand(target));
    const a = await s3.send(new UploadPartCommand({ ...target, UploadId, PartNumber: 1, Body: Buffer.from("small") }));
    const b = await s3.send(new UploadPartCommand({ ...target, UploadId, PartNumber: 2, Body: Buffer.from("tail") }));
    const parts = [
      { PartNumber: 1, ETag: a.ETag },
      { PartNumber: 2, ETag: b.ETag },
    ];
    expect(await refusal(s3.send(new CompleteMultipartUploadCommand({ ...target, UploadId, MultipartUpload: { Parts: parts } })))).toEqual({
      code: "EntityTooSmall",
      status: 400,
    });
    expect(
      await refusal(s3.send(new CompleteMultipartUploadCommand({ ...target, UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: '"0000"' }] } }))),
    ).toEqual({ code: "InvalidPart", status: 400 });
    await s3.send(new AbortMultipartUploadCommand({ ...target, UploadId }));
    expect(await refusal(s3.send(new UploadPartCommand({ ...target, UploadId, PartNumber: 3, Body: Buffer.from("x") })))).toEqual({
      code: "NoSuchUpload",
      status: 404,
    });
  });

  it("loads a sliced file: gzipped slices and a manifest under the issued key prefix", async () => {
    const p = await prepare("sliced.csv", { isSliced: true });
    const s3 = s3ClientFor(p);
    const { bucket, key } = p.uploadParams;
    const slices = ["a,b\n1,2\n", "3,4\n"];
    for (const [i, part] of slices.entries()) await s3.send(new PutObjectCommand({ Bucket: bucket, Key: `${key}part${i}.gz`, Body: gzipSync(part) }));
    const manifest = { entries: slices.map((_, i) => ({ url: `s3://${bucket}/${key}part${i}.gz` })) };
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: `${key}manifest`, Body: JSON.stringify(manifest) }));
    await api("POST", "/v2/storage/buckets", { json: { name: "s3-sliced", stage: "in" } });
    const job = await api("POST", "/v2/storage/buckets/in.c-s3-sliced/tables-async", { json: { name: "t", dataFileId: p.id } });
    expect(await waitJob(job.body)).toMatchObject({ status: "success" });
    expect(await rows("in.c-s3-sliced.t")).toBe('"a","b"\n"1","2"\n"3","4"\n');
  });

  it("loads a file larger than the rows it keeps: every row validated and counted, the first maxKeptBytes kept", async () => {
    // Rows 0-9 take 1003 bytes each as the emulator counts them (each value and a separator):
    // exactly KEPT_BYTES, so the tenth row still fits and the eleventh (1004 bytes) does not.
    const pad = "x".repeat(1000);
    const count = 70;
    const parts: string[] = ["id,pad\n"];
    for (let i = 0; i < count; i++) parts.push(`${i},${pad}\n`);
    const p = await prepare("large.csv.gz");
    await s3ClientFor(p).send(new PutObjectCommand({ Bucket: p.uploadParams.bucket, Key: p.uploadParams.key, Body: gzipSync(parts.join(""), { level: 1 }) }));
    await api("POST", "/v2/storage/buckets", { json: { name: "s3-large", stage: "in" } });
    const job = await waitJob((await api("POST", "/v2/storage/buckets/in.c-s3-large/tables-async", { json: { name: "t", dataFileId: p.id } })).body);
    expect(job).toMatchObject({ status: "success", results: { rowsCount: count } });
    const stored = emu.state.storage.tables["101/in.c-s3-large.t"];
    expect(stored.rows.map((r) => r[0])).toEqual(["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]);
    expect(stored.unkeptRows).toBe(count - 10);
    // Every row's bytes are counted, kept or not: 10 of 1003, 60 of 1004.
    expect((await api("GET", "/v2/storage/tables/in.c-s3-large.t")).body).toMatchObject({ rowsCount: count, dataSizeBytes: 10 * 1003 + 60 * 1004 });
    const preview = await api("GET", "/v2/storage/tables/in.c-s3-large.t/data-preview?limit=1&columns=id");
    expect(preview.text).toBe('"id"\n"0"\n');
  });

  it("refuses unknown keys, wrong secrets, another file's key, anonymous and expired credentials", async () => {
    const p = await prepare("mine.csv");
    const other = await prepare("other.csv");
    const put = (s3: S3Client, key = p.uploadParams.key) => s3.send(new PutObjectCommand({ Bucket: p.uploadParams.bucket, Key: key, Body: "x" }));

    expect(await refusal(put(s3ClientFor(p, { accessKeyId: "ASIAUNKNOWNKEY000000" })))).toEqual({ code: "InvalidAccessKeyId", status: 403 });
    expect(await refusal(put(s3ClientFor(p, { secretAccessKey: "not-the-secret" })))).toEqual({ code: "SignatureDoesNotMatch", status: 403 });
    expect(await refusal(put(s3ClientFor(p, { sessionToken: "another-session" })))).toEqual({ code: "InvalidToken", status: 400 });
    expect(await refusal(put(s3ClientFor(p), other.uploadParams.key))).toEqual({ code: "AccessDenied", status: 403 });
    const anonymous = await fetch(`${p.s3Endpoint}/${p.uploadParams.bucket}/${p.uploadParams.key}`, { method: "PUT", body: "x" });
    expect(anonymous.status).toBe(403);
    expect(await anonymous.text()).toMatch(/<Code>AccessDenied<\/Code><Message>Access Denied<\/Message>/);
    expect(emu.state.storage.files[String(p.id)].uploaded).toBe(false);

    // The emulator's clock is the process clock: 12 hours and a second later the credentials are expired.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 12 * 3600_000 + 1000);
    expect(await refusal(put(s3ClientFor(p)))).toEqual({ code: "ExpiredToken", status: 400 });
    vi.useRealTimers();
    await put(s3ClientFor(p));
    expect(emu.state.storage.files[String(p.id)].uploaded).toBe(true);
  });

  it("accepts a presigned PUT (query signature) made with the issued credentials, as a plain HTTP client sends it", async () => {
    const p = await prepare("presigned.csv");
    const url = await presignedPutUrl(p, 600);
    const put = await fetch(url, { method: "PUT", body: "a\n1\n" });
    expect(put.status).toBe(200);
    expect(emu.state.storage.files[String(p.id)].uploaded).toBe(true);
    const tampered = await fetch(url.replace(/X-Amz-Expires=\d+/, "X-Amz-Expires=601"), { method: "PUT", body: "x" });
    expect(tampered.status).toBe(403);
    expect(await tampered.text()).toContain("<Code>SignatureDoesNotMatch</Code>");
  });

  it("after a lost CompleteMultipartUpload answer the retry gets NoSuchUpload and the object is there (as on S3)", async () => {
    const p = await prepare("lost-complete.bin");
    const target = { Bucket: p.uploadParams.bucket, Key: p.uploadParams.key };
    const s3 = s3ClientFor(p, {}, 3);
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand(target));
    const part = await s3.send(new UploadPartCommand({ ...target, UploadId, PartNumber: 1, Body: Buffer.from("only part") }));
    emu.clearRequests();
    emu.setFaults({ rateLostResponse: 1, limit: 1, pathPrefixes: ["/files/"], methods: ["POST"] });
    const retried = await refusal(s3.send(new CompleteMultipartUploadCommand({ ...target, UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] } })));
    expect(emu.faultCounts().lost).toBe(1);
    expect(retried).toEqual({ code: "NoSuchUpload", status: 404 });
    const head = await s3.send(new HeadObjectCommand(target));
    expect(head.ETag).toMatch(/-1"$/);
    expect(emu.state.storage.files[String(p.id)].uploaded).toBe(true);
  });

  it("answers injected faults on upload parts so the client retries the part", async () => {
    const p = await prepare("retry.bin");
    const body = randomBytes(6 * 1024 * 1024);
    emu.clearRequests();
    emu.setFaults({ rate5xx: 1, limit: 1, pathPrefixes: ["/files/"], methods: ["PUT"] });
    const s3 = s3ClientFor(p, {}, 3);
    await new Upload({ client: s3, params: { Bucket: p.uploadParams.bucket, Key: p.uploadParams.key, Body: body }, partSize: 5 * 1024 * 1024 }).done();
    expect(emu.faultCounts()["5xx"]).toBe(1);
    const got = await s3.send(new GetObjectCommand({ Bucket: p.uploadParams.bucket, Key: p.uploadParams.key }));
    expect(Buffer.from(await got.Body!.transformToByteArray()).equals(body)).toBe(true);
  });
});
