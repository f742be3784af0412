import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import {
  CIPHER_PREFIXES,
  isKnownCipher,
  isVariablePlaceholder,
  mapSecretScalars,
  mapSecretScalarsIn,
  passesUnencrypted,
  type CipherScopeKind,
  type JsonScalar,
  type SecretScalarMap,
} from "../../keboola/secrets";
import type { JsonObject, JsonValue } from "../../keboola/json";

// The emulated stack's ciphers: what keboola/object-encryptor does with KMS, done with AES-256-GCM
// and the stack's own key (state.encryption.key). A cipher is `<scope prefix><base64(iv, tag,
// ciphertext)>`, with a random IV (every encryption differs), and it is bound to its scope (kind,
// component, project, configuration, branch type) the way object-encryptor binds it through KMS's
// EncryptionContext (the wrappers' metadata): as additional authenticated data, so a cipher of
// another scope, another stack (key) or a tampered one does not open.

export interface CipherScope {
  kind: CipherScopeKind;
  componentId?: string;
  projectId?: string;
  configId?: string;
  branchType?: string;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

function keyOf(key: string): Buffer {
  return Buffer.from(key, "base64");
}

function additionalData(scope: CipherScope): Buffer {
  const { kind, componentId = null, projectId = null, configId = null, branchType = null } = scope;
  return Buffer.from(JSON.stringify([kind, componentId, projectId, configId, branchType]), "utf8");
}

/** Encrypts one string for the scope (no checks: see `encryptValue`). */
export function seal(key: string, scope: CipherScope, plain: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", keyOf(key), iv);
  cipher.setAAD(additionalData(scope));
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return CIPHER_PREFIXES[scope.kind] + Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64");
}

/** The plain text of a cipher made for exactly this scope by this stack, or undefined. */
export function open(key: string, scope: CipherScope, cipher: string): string | undefined {
  const prefix = CIPHER_PREFIXES[scope.kind];
  if (!cipher.startsWith(prefix)) return undefined;
  const raw = Buffer.from(cipher.slice(prefix.length), "base64");
  if (raw.length < IV_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv("aes-256-gcm", keyOf(key), raw.subarray(0, IV_BYTES));
    decipher.setAAD(additionalData(scope));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
  } catch {
    return undefined;
  }
}

/** PHP's `(string)` of a JSON scalar, as object-encryptor casts a value before encrypting it. */
export function phpString(value: JsonScalar): string {
  if (value === null || value === false) return "";
  if (value === true) return "1";
  return String(value);
}

/**
 * object-encryptor `encryptValue`: a variable placeholder or a value that already is a cipher
 * (any known prefix) comes back as it is; anything else, the empty string included, is encrypted.
 */
export function encryptValue(key: string, scope: CipherScope, value: string): string {
  if (isVariablePlaceholder(value) || isKnownCipher(value)) return value;
  return seal(key, scope, value);
}

/** encryptValue of each secret scalar, cast as PHP casts it. */
const encryptor = (key: string, scope: CipherScope): SecretScalarMap => (_path, value) => encryptValue(key, scope, phpString(value));

/** object-encryptor `encrypt` of a decoded JSON document: every scalar under a `#` key, at any depth. */
export function encryptDocument(key: string, scope: CipherScope, document: JsonObject): JsonObject {
  return mapSecretScalars(document, encryptor(key, scope));
}

/** encryptDocument of any JSON value: a list's objects are walked, a scalar (under no key) stays. */
export function encryptJson(key: string, scope: CipherScope, document: JsonValue): JsonValue {
  return mapSecretScalarsIn(document, encryptor(key, scope));
}

/** What a job runs as: the scope its ciphers are opened for. */
export interface JobCipherScope {
  componentId: string;
  projectId: string;
  configId: string | null;
  branchType: "default" | "dev";
}

/**
 * The scopes whose ciphers a job may hold (object-encryptor `getWrappers`, as the runner calls it:
 * keboola/job-queue-internal-api-php-client `JobObjectEncryptor::decrypt` uses
 * `decryptForBranchTypeConfiguration` for a job of a configuration, `decryptForBranchType` without
 * one): generic; project-wide, with and without the branch type; the component; the component in
 * the project, with and without the branch type; and with a configuration, that configuration, with
 * and without the branch type. Ciphers of Azure (`...KV::`) or GCP (`...GKMS::`) stacks, legacy
 * ones and those of other scopes are not among them.
 */
export function jobScopes(job: JobCipherScope): CipherScope[] {
  const { componentId, projectId, configId, branchType } = job;
  const scopes: CipherScope[] = [
    { kind: "generic" },
    { kind: "projectWide", projectId },
    { kind: "projectWideBranchType", projectId, branchType },
    { kind: "component", componentId },
    { kind: "project", componentId, projectId },
  ];
  if (configId) {
    scopes.push({ kind: "configuration", componentId, projectId, configId });
    scopes.push({ kind: "branchTypeConfiguration", componentId, projectId, configId, branchType });
  }
  scopes.push({ kind: "branchType", componentId, projectId, branchType });
  return scopes;
}

/** A `#` value the runner cannot decrypt; the message is the runner's `result.message`. */
export class CipherTextError extends Error {}

/**
 * object-encryptor `decrypt` of a job's document (`decryptItem`/`decryptValue`): empty values and
 * variable placeholders pass as they are; a value with the prefix of one of the job's scopes is
 * opened for that scope; anything else (plain text, a legacy cipher, a cipher of another scope or
 * stack) fails with `Invalid cipher text for key <#key> Value "<value>" is not an encrypted value.`
 * (the message of `decryptItem` around `decryptValue`'s `Value "%s" is not an encrypted value.`;
 * object-encryptor `tests/ObjectEncryptorTest.php` decryptorInvalidCipherTextProvider).
 */
export function decryptForJob(key: string, job: JobCipherScope, document: JsonObject): JsonObject {
  const scopes = jobScopes(job);
  return mapSecretScalars(document, (path, raw) => {
    const value = phpString(raw);
    if (passesUnencrypted(value)) return value;
    // findWrapper: the last scope whose prefix the value starts with.
    const scope = scopes.filter((s) => value.startsWith(CIPHER_PREFIXES[s.kind])).pop();
    const plain = scope ? open(key, scope, value) : undefined;
    if (plain === undefined) {
      throw new CipherTextError(`Invalid cipher text for key ${String(path[path.length - 1])} Value "${value}" is not an encrypted value.`);
    }
    return plain;
  });
}
