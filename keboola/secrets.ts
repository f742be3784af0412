// Keboola's secret values, as the provider and the emulator both read them: a configuration's
// secret is a value under a key that starts with `#` (`#token`, `#password`), at any depth.
//
// Sources (what the rules below follow):
// - keboola/keboola-as-code `internal/pkg/plan/encrypt/encrypt.go`: `kbc encrypt`/`kbc push` collect
//   every *string* whose last path step is a map key starting with `#` and that is not already
//   encrypted (`encryption.IsKeyToEncrypt`, `keboola.IsEncrypted`); values in arrays and nested
//   objects are walked.
// - the Go SDK's `keboola.IsEncrypted`: `^KBC::.+Secure.*::.+$`, plus the legacy ciphers
//   `KBC::Encrypted==`, `KBC::ComponentEncrypted==`, `KBC::ComponentProjectEncrypted==`.
// - keboola-as-code `utils.KeyPath.String()`: map steps joined by `.`, slice steps as `[i]`
//   (`parameters.items[0].#secret`), the form `kbc` sends as the flat `#<path>` keys.
// - keboola/object-encryptor (what the Encryption API and the job runner run): the cipher prefix
//   of each scope (`src/Wrapper/*Wrapper.php` `getPrefix()`), the values encryption leaves as they
//   are (`ObjectEncryptor::encryptValue`: a variable placeholder, or any known prefix, legacy ones
//   included: `getKnownWrapperPrefixes()`), the placeholder rule (`src/RegexHelper.php`), and the
//   walk (`encryptItem`/`decryptItem`: every scalar or null under a `#` key, at any depth; arrays and
//   objects walked, an object under a `#` key too; array items have no key, so are never secret).

import { isRecord, type JsonObject, type JsonScalar, type JsonValue } from "./json";

/** A step into a JSON document: an object key or an array index. */
export type JsonStep = string | number;
export type JsonPath = readonly JsonStep[];

export const isSecretKey = (key: string): boolean => key.startsWith("#");

// The SDK's pattern ends in `::.+$`: at least one character after the last `::`, whatever follows
// (the `s` flag lets `.` match line breaks too), which is what `::.` tests.
const CIPHER = /^KBC::.+Secure.*::./s;
const LEGACY_CIPHER = /^KBC::(Encrypted|ComponentEncrypted|ComponentProjectEncrypted)==/;

/** Whether a value is a Keboola ciphertext (of any scope, legacy ones included). */
export function isEncrypted(value: string): boolean {
  return CIPHER.test(value) || LEGACY_CIPHER.test(value);
}

/**
 * A variable placeholder as object-encryptor's `RegexHelper::matchesVariable` reads it:
 * `{{name}}`, with optional blanks inside the braces and a name of letters, digits, `_`, `-`, `.`
 * (PCRE's `\s` is ASCII whitespace, and its `$` also matches before one final newline).
 */
export function isVariablePlaceholder(value: string): boolean {
  return /^\{\{[ \t\n\v\f\r]*[a-zA-Z0-9_\-.]+[ \t\n\v\f\r]*\}\}\n?$/.test(value);
}

/**
 * Values the job runner accepts unencrypted under a `#` key: empty ones and variable placeholders
 * (object-encryptor `ObjectEncryptor::decryptValue`). The Encryption API returns the placeholders
 * unchanged; the provider writes both as they are.
 */
export function passesUnencrypted(value: string): boolean {
  return value === "" || isVariablePlaceholder(value);
}

/** The scopes a cipher can be made for, by the parameters of the Encryption API that define them. */
export type CipherScopeKind =
  | "generic"
  | "component"
  | "project"
  | "configuration"
  | "projectWide"
  | "branchType"
  | "branchTypeConfiguration"
  | "projectWideBranchType";

/**
 * The prefix of each scope's ciphers on AWS stacks (object-encryptor `*KMSWrapper::getPrefix()`);
 * Azure stacks append `KV` (`KBC::ProjectSecureKV::`), GCP stacks `GKMS`.
 */
export const CIPHER_PREFIXES: Readonly<Record<CipherScopeKind, string>> = {
  generic: "KBC::Secure::",
  component: "KBC::ComponentSecure::",
  project: "KBC::ProjectSecure::",
  configuration: "KBC::ConfigSecure::",
  projectWide: "KBC::ProjectWideSecure::",
  branchType: "KBC::BranchTypeSecure::",
  branchTypeConfiguration: "KBC::BranchTypeConfigSecure::",
  projectWideBranchType: "KBC::ProjectWideBranchTypeSecure::",
};

const KNOWN_PREFIXES: readonly string[] = [
  ...Object.values(CIPHER_PREFIXES).flatMap((p) => [p, p.replace(/::$/, "KV::"), p.replace(/::$/, "GKMS::")]),
  "KBC::Encrypted==",
  "KBC::ComponentEncrypted==",
  "KBC::ComponentProjectEncrypted==",
];

/**
 * Whether the Encryption API returns the value as it is because it already is a cipher: it starts
 * with a known prefix of any scope and cloud, or a legacy one (object-encryptor `isKnownWrapper`).
 * Narrower than `isEncrypted` (the Go SDK's pattern) at the edges: `KBC::FooSecure::x` is
 * encrypted again, `KBC::Secure::x` is not.
 */
export function isKnownCipher(value: string): boolean {
  return KNOWN_PREFIXES.some((p) => value.startsWith(p));
}

/** `parameters.items[0].#secret`: map steps joined by dots, array steps in brackets. */
export function formatPath(path: JsonPath): string {
  let out = "";
  for (const step of path) {
    if (typeof step === "number") out += `[${step}]`;
    else out += out === "" ? step : `.${step}`;
  }
  return out;
}

/** A string under a `#` key, with where it is. */
export interface SecretLeaf {
  path: JsonStep[];
  value: string;
}

/** Every string under a `#` key, at any depth (objects and arrays), in document order. */
export function secretLeaves(document: unknown): SecretLeaf[] {
  const out: SecretLeaf[] = [];
  const walk = (value: unknown, path: JsonStep[]) => {
    if (Array.isArray(value)) {
      value.forEach((v, i) => walk(v, [...path, i]));
    } else if (value && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) walk(v, [...path, k]);
    } else if (typeof value === "string") {
      const last = path[path.length - 1];
      if (typeof last === "string" && isSecretKey(last)) out.push({ path, value });
    }
  };
  walk(document, []);
  return out;
}

export type { JsonScalar } from "./json";

/** Maps a JSON scalar under a `#` key (see mapSecretScalars) to what stands in its place. */
export type SecretScalarMap = (path: JsonStep[], value: JsonScalar) => JsonValue;

function mapInValue(value: JsonValue, path: JsonStep[], map: SecretScalarMap): JsonValue {
  if (Array.isArray(value)) return value.map((v, i) => mapInValue(v, [...path, i], map));
  if (isRecord(value)) return mapInObject(value, path, map);
  const last = path[path.length - 1];
  return typeof last === "string" && isSecretKey(last) ? map(path, value) : value;
}

function mapInObject(document: JsonObject, path: JsonStep[], map: SecretScalarMap): JsonObject {
  return Object.fromEntries(Object.entries(document).map(([k, v]): [string, JsonValue] => [k, mapInValue(v, [...path, k], map)]));
}

/**
 * A copy of the document with every scalar (or null) under a `#` key mapped, at any depth: what
 * the Encryption API encrypts and the job runner decrypts. Objects and arrays are walked (an
 * object under a `#` key too); an array's items have no key, so a scalar item is never mapped.
 */
export function mapSecretScalars(document: JsonObject, map: SecretScalarMap): JsonObject {
  return mapInObject(document, [], map);
}

/** mapSecretScalars of any JSON value: a list is walked item by item, a scalar (no key) stays. */
export function mapSecretScalarsIn(value: JsonValue, map: SecretScalarMap): JsonValue {
  return mapInValue(value, [], map);
}

/**
 * A copy of the document with each string under a `#` key, at any depth, replaced by what
 * `replace` answers for it (undefined keeps it). A string stays a string, so the copy has the
 * document's type: it is a structured clone with those strings set in place.
 */
export function replaceLeaves<T>(document: T, replace: (path: JsonStep[], value: string) => string | undefined): T {
  const copy = structuredClone(document);
  const walk = (value: unknown, path: JsonStep[]): void => {
    if (Array.isArray(value)) {
      value.forEach((item: unknown, i) => walk(item, [...path, i]));
    } else if (isRecord(value)) {
      for (const [k, v] of Object.entries(value)) {
        if (typeof v === "string" && isSecretKey(k)) value[k] = replace([...path, k], v) ?? v;
        else walk(v, [...path, k]);
      }
    }
  };
  walk(copy, []);
  return copy;
}

/**
 * The text with the secret of every ingestion URL in it replaced by `[secret]`. An ingestion URL
 * ends in its source's secret: `/stream/<project>/<source>/<secret>` for HTTP sources,
 * `/otlp/<project>/<source>/<secret>/v1/...` for OTLP ones (the routes of keboola-as-code
 * `internal/pkg/service/stream/source/type/httpsource/httpsource.go`). Used for error messages
 * and for `keboola-pulumi review`.
 */
export function maskIngestionSecrets(text: string): string {
  return text.replace(/(\/(?:stream|otlp)\/\d+\/[^/\s"]+\/)[A-Za-z0-9]{16,}/g, "$1[secret]");
}
