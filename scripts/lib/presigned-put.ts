import { Hash } from "@smithy/hash-node";
import { SignatureV4 } from "@smithy/signature-v4";

// A URL that lets a plain HTTP client PUT one object with the temporary credentials `files/prepare`
// (with `federationToken`) issues: SigV4 in the query string, payload unsigned, as S3 presigns.
// Used by the data bench's baseline and by the emulator's object-store test.

/** The parts of a prepared file's answer that a presigned PUT needs (`s3Endpoint`: the emulator's store). */
export interface PreparedForPut {
  region: string;
  s3Endpoint: string;
  uploadParams: { bucket: string; key: string; credentials: { AccessKeyId: string; SecretAccessKey: string; SessionToken: string } };
}

/** The presigned PUT URL of a prepared file's object, valid `expiresIn` seconds. */
export async function presignedPutUrl(p: PreparedForPut, expiresIn: number): Promise<string> {
  const c = p.uploadParams.credentials;
  const url = new URL(`${p.s3Endpoint}/${p.uploadParams.bucket}/${p.uploadParams.key}`);
  const signer = new SignatureV4({
    credentials: { accessKeyId: c.AccessKeyId, secretAccessKey: c.SecretAccessKey, sessionToken: c.SessionToken },
    region: p.region,
    service: "s3",
    sha256: Hash.bind(null, "sha256"),
    uriEscapePath: false,
  });
  const signed = await signer.presign(
    { method: "PUT", protocol: url.protocol, hostname: url.hostname, port: Number(url.port), path: url.pathname, query: {}, headers: { host: url.host, "X-Amz-Content-Sha256": "UNSIGNED-PAYLOAD" } },
    { expiresIn },
  );
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(signed.query ?? {})) if (typeof v === "string") query.set(k, v);
  return `${url.origin}${url.pathname}?${query}`;
}
