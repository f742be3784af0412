import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";

// The object store's checksums (S3 "Checking object integrity"): what an object carries and a
// GetObject or HeadObject with `x-amz-checksum-mode: ENABLED` answers as `x-amz-checksum-<algorithm>`
// and `x-amz-checksum-type`. An object keeps the checksum its upload sent (CRC32, CRC32C, SHA1,
// SHA256, CRC64NVME); one uploaded without a checksum gets S3's default, a full-object CRC64NVME
// (AWS S3 API reference, Checksum: "ChecksumCRC64NVME ... present if the object was uploaded with
// the CRC64NVME checksum algorithm, or if the object was uploaded without a checksum (and Amazon S3
// added the default checksum, CRC64NVME, to the uploaded object)"). A multipart upload with an
// algorithm has a composite checksum, the checksum of the parts' checksums followed by `-<parts>`.
// Clients check what they download against it: the AWS SDK for Go v2 validates GetObject answers
// and, when an answer has no checksum, logs "Response has no supported checksum. Not validating
// response payload." (service/internal/checksum middleware_validate_output.go).

export const CHECKSUM_ALGORITHMS = ["CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256"] as const;
export type ChecksumAlgorithm = (typeof CHECKSUM_ALGORITHMS)[number];

/** An object's checksum as S3 keeps it (base64 of the big-endian digest; composite ones end in `-<parts>`). */
export interface StoredChecksum {
  algorithm: ChecksumAlgorithm;
  value: string;
  type: "FULL_OBJECT" | "COMPOSITE";
}

/** The header that carries an algorithm's checksum: `x-amz-checksum-crc64nvme`. */
export const checksumHeader = (algorithm: ChecksumAlgorithm): string => `x-amz-checksum-${algorithm.toLowerCase()}`;

// CRC-64/NVME: reflected, polynomial 0xAD93D23594C93659 (reversed 0x9A6C9329AC4BC9B5), initial
// value and final xor all ones (the NVM Express specification's CRC; AWS SDK for Go v2
// service/internal/checksum algorithms.go: "inverted NVME polynomial as required by
// crc64.MakeTable", 0x9a6c_9329_ac4b_c9b5). Computed on two 32-bit halves so it needs no BigInt
// per byte.
const CRC64_LO = new Uint32Array(256);
const CRC64_HI = new Uint32Array(256);
{
  const poly = 0x9a6c9329ac4bc9b5n;
  for (let i = 0; i < 256; i++) {
    let c = BigInt(i);
    for (let k = 0; k < 8; k++) c = c & 1n ? (c >> 1n) ^ poly : c >> 1n;
    CRC64_LO[i] = Number(c & 0xffffffffn);
    CRC64_HI[i] = Number(c >> 32n);
  }
}

/** CRC-64/NVME of the bytes, as 8 big-endian bytes. */
export function crc64nvme(parts: Iterable<Uint8Array>): Buffer {
  let lo = 0xffffffff;
  let hi = 0xffffffff;
  for (const bytes of parts) {
    for (let i = 0; i < bytes.length; i++) {
      const t = (lo ^ bytes[i]) & 0xff;
      lo = ((lo >>> 8) | (hi << 24)) ^ CRC64_LO[t];
      hi = (hi >>> 8) ^ CRC64_HI[t];
    }
  }
  const out = Buffer.alloc(8);
  out.writeUInt32BE(~hi >>> 0, 0);
  out.writeUInt32BE(~lo >>> 0, 4);
  return out;
}

/** The digest of the bytes with an algorithm; undefined for CRC32C, which the emulator does not compute. */
export function digest(algorithm: ChecksumAlgorithm, parts: Uint8Array[]): Buffer | undefined {
  switch (algorithm) {
    case "CRC32": {
      let c = 0;
      for (const p of parts) c = crc32(p, c);
      const out = Buffer.alloc(4);
      out.writeUInt32BE(c >>> 0);
      return out;
    }
    case "CRC64NVME":
      return crc64nvme(parts);
    case "SHA1":
    case "SHA256": {
      const h = createHash(algorithm === "SHA1" ? "sha1" : "sha256");
      for (const p of parts) h.update(p);
      return h.digest();
    }
    case "CRC32C":
      return undefined;
  }
}

/** S3's default checksum of an object uploaded without one: a full-object CRC64NVME. */
export function defaultChecksum(data: Uint8Array): StoredChecksum {
  return { algorithm: "CRC64NVME", value: crc64nvme([data]).toString("base64"), type: "FULL_OBJECT" };
}

/**
 * The composite checksum of a multipart upload: the checksum of the concatenated (decoded) part
 * checksums, `-<parts>` appended (S3 "Checking object integrity", "Using part-level checksums for
 * multipart uploads"); undefined when it cannot be computed.
 */
export function compositeChecksum(algorithm: ChecksumAlgorithm, partChecksums: string[]): StoredChecksum | undefined {
  const d = digest(algorithm, partChecksums.map((c) => Buffer.from(c, "base64")));
  return d ? { algorithm, value: `${d.toString("base64")}-${partChecksums.length}`, type: "COMPOSITE" } : undefined;
}

/** The algorithm named by a header value (`crc32`, `CRC64NVME`), if S3 knows it. */
export function algorithmNamed(name: string | undefined): ChecksumAlgorithm | undefined {
  const upper = (name ?? "").toUpperCase();
  return CHECKSUM_ALGORITHMS.find((a) => a === upper);
}
