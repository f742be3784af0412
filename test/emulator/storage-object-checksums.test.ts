import { randomBytes } from "node:crypto";
import { crc32 } from "node:zlib";
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator/server";
import { crc64nvme } from "../../emulator/storage/checksums";
import { call, pollUntil } from "./helpers";
import { putFile, s3ClientFor, type FileWithCredentials } from "./s3-helpers";

// The object store answers an object's checksum when the client asks for it
// (`x-amz-checksum-mode: ENABLED`, which the AWS SDKs send on GetObject by default), so a client
// can check what it downloads: the AWS SDK for Go v2 otherwise logs "Response has no supported
// checksum. Not validating response payload." (service/internal/checksum
// middleware_validate_output.go), which keboola/keboola-as-code test/cli/remote-table-download/run-0-rows
// expects not to see. An object keeps the checksum its upload sent; one uploaded without a
// checksum has S3's default, a full-object CRC64NVME (AWS S3 API reference, Checksum); a multipart
// upload with an algorithm has a composite checksum (S3 user guide, "Checking object integrity").

let emu: Emulator;
const api = (method: string, path: string, opts: Parameters<typeof call>[3] = {}) => call(emu.url, method, path, { token: "master", ...opts });

beforeAll(async () => {
  emu = await startEmulator({ token: "master", taskDurationMs: 5 });
});
afterAll(() => emu.close());

type Prepared = FileWithCredentials & { id: number; uploadParams: NonNullable<FileWithCredentials["uploadParams"]> };

async function prepare(name: string): Promise<Prepared> {
  const r = await api("POST", "/v2/storage/files/prepare", { json: { name, federationToken: true } });
  expect(r.status).toBe(201);
  return r.body as Prepared;
}

const crc32Base64 = (...parts: Buffer[]): string => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(parts.reduce((c, p) => crc32(p, c), 0) >>> 0);
  return b.toString("base64");
};

describe("object checksums", () => {
  it("computes CRC-64/NVME: the catalogue's check value of \"123456789\"", () => {
    // The CRC RevEng catalogue, CRC-64/NVME: check=0xae8b14860a799888.
    expect(crc64nvme([Buffer.from("123456789")]).toString("hex")).toBe("ae8b14860a799888");
    expect(crc64nvme([Buffer.from("1234"), Buffer.from("56789")]).toString("hex")).toBe("ae8b14860a799888");
  });

  it("answers the CRC32 a PutObject sent, only when the checksum mode is enabled; the SDK validates it", async () => {
    const p = await prepare("c.csv");
    const body = Buffer.from("id,v\n1,a\n");
    const s3 = s3ClientFor(p);
    await s3.send(new PutObjectCommand({ Bucket: p.uploadParams.bucket, Key: p.uploadParams.key, Body: body, ChecksumAlgorithm: "CRC32" }));
    const got = await s3.send(new GetObjectCommand({ Bucket: p.uploadParams.bucket, Key: p.uploadParams.key, ChecksumMode: "ENABLED" }));
    expect(got.ChecksumCRC32).toBe(crc32Base64(body));
    expect(got.ChecksumType).toBe("FULL_OBJECT");
    expect(await got.Body?.transformToString()).toBe(body.toString());
    const head = await s3.send(new HeadObjectCommand({ Bucket: p.uploadParams.bucket, Key: p.uploadParams.key, ChecksumMode: "ENABLED" }));
    expect(head.ChecksumCRC32).toBe(crc32Base64(body));

    // Without the mode, no checksum (a plain presigned GET, as the file's url).
    const detail = (await api("GET", `/v2/storage/files/${p.id}`)).body;
    const plain = await fetch(detail.url);
    expect(plain.headers.get("x-amz-checksum-crc32")).toBeNull();
    expect(plain.headers.get("x-amz-checksum-crc64nvme")).toBeNull();
  });

  it("answers S3's default CRC64NVME for an object uploaded without a checksum (an unload's slices and manifest)", async () => {
    expect((await api("POST", "/v2/storage/buckets", { json: { name: "sums", stage: "in" } })).status).toBe(201);
    const p = await prepare("t.csv");
    await putFile(p, "id,v\n1,a\n2,b\n");
    const create = await api("POST", "/v2/storage/buckets/in.c-sums/tables-async", { json: { dataFileId: p.id, name: "t" } });
    expect((await pollUntil(() => api("GET", `/v2/storage/jobs/${create.body.id}`), (r) => r.body.status === "success")).body.status).toBe("success");
    const unload = await api("POST", "/v2/storage/tables/in.c-sums.t/export-async", { json: {} });
    const job = (await pollUntil(() => api("GET", `/v2/storage/jobs/${unload.body.id}`), (r) => r.body.status === "success")).body;
    const file = (await api("GET", `/v2/storage/files/${job.results.file.id}?federationToken=1`)).body as FileWithCredentials & { s3Path: { bucket: string; key: string } };
    const s3 = s3ClientFor(file);
    for (const key of [`${file.s3Path.key}manifest`, `${file.s3Path.key}0_0_0.csv`]) {
      const got = await s3.send(new GetObjectCommand({ Bucket: file.s3Path.bucket, Key: key, ChecksumMode: "ENABLED" }));
      const bytes = Buffer.from(await (got.Body as NonNullable<typeof got.Body>).transformToByteArray());
      expect(got.ChecksumCRC64NVME).toBe(crc64nvme([bytes]).toString("base64"));
      expect(got.ChecksumType).toBe("FULL_OBJECT");
    }
  });

  it("answers a composite checksum for a multipart upload with CRC32 parts", async () => {
    const p = await prepare("big.bin");
    const data = randomBytes(5 * 1024 * 1024 + 1234);
    const upload = new Upload({
      client: s3ClientFor(p),
      params: { Bucket: p.uploadParams.bucket, Key: p.uploadParams.key, Body: data, ChecksumAlgorithm: "CRC32" },
      partSize: 5 * 1024 * 1024,
      queueSize: 1,
    });
    await upload.done();
    const got = await s3ClientFor(p).send(new GetObjectCommand({ Bucket: p.uploadParams.bucket, Key: p.uploadParams.key, ChecksumMode: "ENABLED" }));
    // The CRC32 of the parts' CRC32s, then the number of parts.
    const parts = [data.subarray(0, 5 * 1024 * 1024), data.subarray(5 * 1024 * 1024)];
    const ofParts = Buffer.concat(parts.map((part) => Buffer.from(crc32Base64(part), "base64")));
    expect(got.ChecksumCRC32).toBe(`${crc32Base64(ofParts)}-2`);
    expect(got.ChecksumType).toBe("COMPOSITE");
    expect(Buffer.from(await (got.Body as NonNullable<typeof got.Body>).transformToByteArray()).equals(data)).toBe(true);
  });
});
