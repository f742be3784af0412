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

/** A step into a JSON document: an object key or an array index. */
export type JsonStep = string | number;
export type JsonPath = readonly JsonStep[];

export const isSecretKey = (key: string): boolean => key.startsWith("#");

const CIPHER = /^KBC::.+Secure.*::.+$/s;
const LEGACY_CIPHER = /^KBC::(Encrypted|ComponentEncrypted|ComponentProjectEncrypted)==/;

/** Whether a value is a Keboola ciphertext (of any scope, legacy ones included). */
export function isEncrypted(value: string): boolean {
  return CIPHER.test(value) || LEGACY_CIPHER.test(value);
}

/**
 * Values the Encryption API returns unchanged and the job runner accepts unencrypted: empty ones
 * and `{{variable}}` placeholders (keboola/object-encryptor; ../shared/spec/keboola-api.md).
 */
export function passesUnencrypted(value: string): boolean {
  return value === "" || /^\{\{[^{}]*\}\}$/.test(value.trim());
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

/** A copy of the document with the string at each formatted path replaced (other values shared). */
export function replaceLeaves<T>(document: T, replace: (path: JsonStep[], value: string) => string | undefined): T {
  const walk = (value: unknown, path: JsonStep[]): unknown => {
    if (Array.isArray(value)) return value.map((v, i) => walk(v, [...path, i]));
    if (value && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, [...path, k])]));
    }
    if (typeof value === "string") {
      const last = path[path.length - 1];
      if (typeof last === "string" && isSecretKey(last)) return replace(path, value) ?? value;
    }
    return value;
  };
  return walk(document, []) as T;
}
