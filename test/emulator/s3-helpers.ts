import { GetObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";

// An S3 client for the emulated object store, built from a file resource answer as a client of the
// real service does: the credentials of `uploadParams` (prepare) or of the detail
// (`?federationToken=1`), pointed at the emulator's `s3Endpoint` (path-style).

export interface AwsCredentials {
  AccessKeyId: string;
  SecretAccessKey: string;
  SessionToken: string;
  Expiration: string;
}

export interface FileWithCredentials {
  region: string;
  s3Endpoint: string;
  uploadParams?: { key: string; bucket: string; credentials: AwsCredentials };
  s3Path?: { key: string; bucket: string };
  credentials?: AwsCredentials;
}

export function s3ClientFor(
  file: FileWithCredentials,
  override: Partial<{ accessKeyId: string; secretAccessKey: string; sessionToken: string }> = {},
  maxAttempts = 1,
): S3Client {
  const c = file.uploadParams?.credentials ?? file.credentials;
  if (!c) throw new Error("the file answer carries no credentials (prepare or read it with federationToken)");
  return new S3Client({
    region: file.region,
    endpoint: file.s3Endpoint,
    forcePathStyle: true,
    maxAttempts,
    credentials: { accessKeyId: c.AccessKeyId, secretAccessKey: c.SecretAccessKey, sessionToken: c.SessionToken, ...override },
  });
}

/** PutObject of `body` at the file's key (plus `suffix`, for slices and the manifest). */
export async function putFile(file: FileWithCredentials, body: string | Uint8Array, suffix = ""): Promise<void> {
  const p = file.uploadParams as NonNullable<FileWithCredentials["uploadParams"]>;
  await s3ClientFor(file).send(new PutObjectCommand({ Bucket: p.bucket, Key: p.key + suffix, Body: body }));
}

/** GetObject of `bucket/key` with the file's read credentials; the body as text. */
export async function getText(file: FileWithCredentials, bucket: string, key: string): Promise<string> {
  const got = await s3ClientFor(file).send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return got.Body ? got.Body.transformToString() : "";
}
