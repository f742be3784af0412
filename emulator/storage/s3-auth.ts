import { Hash } from "@smithy/hash-node";
import { SignatureV4 } from "@smithy/signature-v4";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { EmulatorContext } from "../core/context";
import { randomString } from "../core/random";
import { colonTime, rng } from "./format";
import type { FileRecord, IssuedCredentials } from "./state";

// The object store's credentials and request authentication, as AWS S3 with STS federation
// tokens does it for Keboola's file uploads:
// - `files/prepare` with `federationToken` (and `GET files/{id}?federationToken=1`) issue
//   temporary credentials `{AccessKeyId: ASIA…, SecretAccessKey, SessionToken, Expiration}`,
//   valid 12 hours (keboola/storage-api-php-client apiary.apib, "Create File Resource": created
//   10:34:45+0100, Expiration 21:34:46+00:00; "File detail": "The credentials are valid for 12
//   hours"), scoped to the file's key: `<bucket>/<key>*` (a sliced file's slices and manifest
//   share that prefix: keboola/keboola-sdk-go pkg/keboola/storage_file_upload/s3/file.go SliceKey).
// - A request is signed with AWS Signature Version 4, in the Authorization header or in the query
//   (a presigned URL, as the file's `url`). The signature is recomputed with @smithy/signature-v4
//   (the signer the AWS SDK itself uses) over the headers the client said it signed, and compared.
// - Refusals are S3's: InvalidAccessKeyId (403), ExpiredToken (400), InvalidToken (400, session
//   token not that of the key), SignatureDoesNotMatch (403), AccessDenied (403: anonymous, or a key
//   outside the credentials' scope, or an expired presigned URL), RequestTimeTooSkewed (403).

export const REGION = "us-east-1";
const CREDENTIALS_TTL_MS = 12 * 3600 * 1000;
/** S3 refuses a request signed more than 15 minutes away from its clock. */
const MAX_SKEW_MS = 15 * 60 * 1000;

export class S3Error extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly extra: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const s3Errors = {
  accessDenied: () => new S3Error(403, "AccessDenied", "Access Denied"),
  invalidAccessKeyId: (id: string) =>
    new S3Error(403, "InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.", { AWSAccessKeyId: id }),
  expiredToken: () => new S3Error(400, "ExpiredToken", "The provided token has expired."),
  invalidToken: () => new S3Error(400, "InvalidToken", "The provided token is malformed or otherwise invalid."),
  signatureDoesNotMatch: (id: string) =>
    new S3Error(
      403,
      "SignatureDoesNotMatch",
      "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
      { AWSAccessKeyId: id },
    ),
};

/** The AWS shape of issued credentials, as `uploadParams.credentials` and `credentials` carry them. */
export interface AwsCredentials {
  AccessKeyId: string;
  SecretAccessKey: string;
  SessionToken: string;
  Expiration: string;
}

/** Issues temporary credentials for a file's key prefix and keeps them to check requests against. */
export function issueCredentials(ctx: EmulatorContext, file: FileRecord): AwsCredentials {
  const upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const issued: IssuedCredentials = {
    accessKeyId: `ASIA${randomString(rng(ctx), 16, upper)}`,
    secretAccessKey: randomString(rng(ctx), 40, b64),
    sessionToken: randomString(rng(ctx), 120, b64),
    expiresAt: ctx.now() + CREDENTIALS_TTL_MS,
    bucket: file.bucket,
    keyPrefix: file.key,
    fileId: file.id,
  };
  ctx.state.storage.credentials[issued.accessKeyId] = issued;
  return {
    AccessKeyId: issued.accessKeyId,
    SecretAccessKey: issued.secretAccessKey,
    SessionToken: issued.sessionToken,
    Expiration: colonTime(issued.expiresAt),
  };
}

/**
 * The emulator's own long-lived key (as the Storage service's IAM user): it signs the files'
 * download URLs, which may read any object. Derived from the seed, never issued to clients.
 */
function serviceKey(ctx: EmulatorContext): { accessKeyId: string; secretAccessKey: string } {
  const seed = String(ctx.options.seed ?? 7);
  return { accessKeyId: "AKIAEMULATORSTORAGE0", secretAccessKey: `emulator-storage-service-secret-${seed}` };
}

function signer(credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string }, region: string): SignatureV4 {
  return new SignatureV4({ credentials, region, service: "s3", sha256: Hash.bind(null, "sha256"), uriEscapePath: false, applyChecksum: false });
}

/** `amzDate` (`20240101T120000Z`) as epoch ms, NaN when malformed. */
function parseAmzDate(amzDate: string): number {
  const m = /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/.exec(amzDate);
  return m ? Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) : Number.NaN;
}

/** The request parts SigV4 covers. */
export interface SignableRequest {
  method: string;
  /** The path as sent (still percent-encoded). */
  rawPath: string;
  query: URLSearchParams;
  headers: Headers;
}

function queryRecord(query: URLSearchParams, drop: (name: string) => boolean): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of query.entries()) {
    if (drop(k)) continue;
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

function hostParts(headers: Headers): { hostname: string; port?: number } {
  const host = headers.get("host") ?? "";
  const i = host.lastIndexOf(":");
  return i > 0 ? { hostname: host.slice(0, i), port: Number(host.slice(i + 1)) } : { hostname: host };
}

/** A presigned URL for reading an object, signed with the service key (valid `expiresIn` seconds). */
export async function presignedGetUrl(ctx: EmulatorContext, bucket: string, key: string, expiresIn = 3600): Promise<string> {
  const base = new URL(ctx.urls().files);
  const path = `${base.pathname}/${bucket}/${key.split("/").map(encodeURIComponent).join("/")}`;
  const signed = await signer(serviceKey(ctx), REGION).presign(
    { method: "GET", protocol: base.protocol, hostname: base.hostname, port: base.port ? Number(base.port) : undefined, path, query: {}, headers: { host: base.host, "X-Amz-Content-Sha256": "UNSIGNED-PAYLOAD" } },
    { expiresIn, signingDate: new Date(ctx.now()) },
  );
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(signed.query ?? {})) for (const x of Array.isArray(v) ? v : [v]) if (x !== null) q.append(k, x);
  return `${base.origin}${path}?${q.toString()}`;
}

/** Whom a verified request acts for: the issued credentials, or the service key (any object). */
export type Principal = { kind: "issued"; credentials: IssuedCredentials } | { kind: "service" };

function lookup(ctx: EmulatorContext, accessKeyId: string): { secret: string; principal: Principal } {
  const service = serviceKey(ctx);
  if (accessKeyId === service.accessKeyId) return { secret: service.secretAccessKey, principal: { kind: "service" } };
  const issued = ctx.state.storage.credentials[accessKeyId];
  if (!issued) throw s3Errors.invalidAccessKeyId(accessKeyId);
  return { secret: issued.secretAccessKey, principal: { kind: "issued", credentials: issued } };
}

function checkSession(ctx: EmulatorContext, principal: Principal, sessionToken: string | null): void {
  if (principal.kind !== "issued") return;
  if (sessionToken !== principal.credentials.sessionToken) throw s3Errors.invalidToken();
  if (ctx.now() >= principal.credentials.expiresAt) throw s3Errors.expiredToken();
}

/**
 * Verifies the request's SigV4 signature (header or query); answers whom it acts for or throws
 * the S3 error. Anonymous requests are refused (the files bucket is private).
 */
export async function authenticate(ctx: EmulatorContext, req: SignableRequest): Promise<Principal> {
  const auth = req.headers.get("authorization");
  if (auth) return verifyHeaderSignature(ctx, req, auth);
  if (req.query.has("X-Amz-Signature")) return verifyPresigned(ctx, req);
  throw s3Errors.accessDenied();
}

async function verifyHeaderSignature(ctx: EmulatorContext, req: SignableRequest, auth: string): Promise<Principal> {
  const m = /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request,\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/.exec(auth.trim());
  if (!m) throw new S3Error(400, "AuthorizationHeaderMalformed", "The authorization header is malformed.");
  const [, accessKeyId, , region, signedHeaderList, signature] = m;
  const { secret, principal } = lookup(ctx, accessKeyId);
  const amzDate = req.headers.get("x-amz-date") ?? "";
  const at = parseAmzDate(amzDate);
  if (Number.isNaN(at)) throw new S3Error(403, "AccessDenied", "AWS authentication requires a valid Date or x-amz-date header");
  if (Math.abs(at - ctx.now()) > MAX_SKEW_MS) {
    throw new S3Error(403, "RequestTimeTooSkewed", "The difference between the request time and the current time is too large.");
  }
  const payloadHash = req.headers.get("x-amz-content-sha256");
  if (!payloadHash) throw new S3Error(400, "InvalidRequest", "Missing required header for this request: x-amz-content-sha256");
  const signed = signedHeaderList.split(";");
  const headers: Record<string, string> = {};
  for (const h of signed) {
    const v = req.headers.get(h);
    if (v !== null) headers[h] = v;
  }
  const { hostname, port } = hostParts(req.headers);
  const request = { method: req.method, protocol: "http:", hostname, port, path: req.rawPath, query: queryRecord(req.query, () => false), headers };
  // Signed with the session token the request carries; whether it is the key's is checked after.
  const carried = req.headers.get("x-amz-security-token") ?? undefined;
  const expected = await signer({ accessKeyId, secretAccessKey: secret, sessionToken: carried }, region).sign(request, {
    signingDate: new Date(at),
    signableHeaders: new Set(signed),
  });
  const got = /Signature=([0-9a-f]{64})/.exec(expected.headers.authorization ?? expected.headers.Authorization ?? "")?.[1];
  if (got !== signature) throw s3Errors.signatureDoesNotMatch(accessKeyId);
  checkSession(ctx, principal, req.headers.get("x-amz-security-token"));
  return principal;
}

async function verifyPresigned(ctx: EmulatorContext, req: SignableRequest): Promise<Principal> {
  const q = req.query;
  const credential = /^([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request$/.exec(q.get("X-Amz-Credential") ?? "");
  if (q.get("X-Amz-Algorithm") !== "AWS4-HMAC-SHA256" || !credential) {
    throw new S3Error(400, "AuthorizationQueryParametersError", "Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.");
  }
  const [, accessKeyId, , region] = credential;
  const { secret, principal } = lookup(ctx, accessKeyId);
  const at = parseAmzDate(q.get("X-Amz-Date") ?? "");
  const expires = Number(q.get("X-Amz-Expires"));
  if (Number.isNaN(at) || !Number.isInteger(expires)) throw new S3Error(400, "AuthorizationQueryParametersError", "X-Amz-Date and X-Amz-Expires must be given.");
  if (ctx.now() > at + expires * 1000) throw new S3Error(403, "AccessDenied", "Request has expired", { "X-Amz-Expires": String(expires) });
  const signed = (q.get("X-Amz-SignedHeaders") ?? "host").split(";");
  const headers: Record<string, string> = {};
  for (const h of signed) {
    const v = req.headers.get(h);
    if (v !== null) headers[h] = v;
  }
  // A presigned URL's payload hash is a query parameter (UNSIGNED-PAYLOAD for the AWS presigners).
  const payloadHash = [...q.entries()].find(([k]) => k.toLowerCase() === "x-amz-content-sha256")?.[1];
  if (payloadHash) headers["X-Amz-Content-Sha256"] = payloadHash;
  const { hostname, port } = hostParts(req.headers);
  // The presigner adds the X-Amz-* parameters itself; the others are signed as they are.
  const request = { method: req.method, protocol: "http:", hostname, port, path: req.rawPath, query: queryRecord(q, (k) => k.toLowerCase().startsWith("x-amz-")), headers };
  const carried = q.get("X-Amz-Security-Token") ?? undefined;
  const presigned = await signer({ accessKeyId, secretAccessKey: secret, sessionToken: carried }, region).presign(request, {
    signingDate: new Date(at),
    expiresIn: expires,
    signableHeaders: new Set(signed),
  });
  if (presigned.query?.["X-Amz-Signature"] !== q.get("X-Amz-Signature")) throw s3Errors.signatureDoesNotMatch(accessKeyId);
  checkSession(ctx, principal, q.get("X-Amz-Security-Token"));
  return principal;
}

/**
 * The access key a request is signed with (header or presigned URL), unverified: what tells the
 * stack which project issued the credentials (core/dispatch.ts); `authenticate` checks it.
 */
export function accessKeyIdOf(headers: Headers, query: URLSearchParams): string | undefined {
  const auth = headers.get("authorization");
  if (auth) return /Credential=([^/,\s]+)\//.exec(auth)?.[1];
  return /^([^/]+)\//.exec(query.get("X-Amz-Credential") ?? "")?.[1];
}

/** Whether the principal may touch `<bucket>/<key>` (issued credentials: only under their key prefix). */
export function allows(principal: Principal, bucket: string, key: string): boolean {
  if (principal.kind === "service") return true;
  return principal.credentials.bucket === bucket && key.startsWith(principal.credentials.keyPrefix);
}
