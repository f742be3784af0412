import { isEncrypted, isKnownCipher, isSecretKey, maskIngestionSecrets } from "../../keboola/secrets";
import type { JsonValue } from "../../keboola/json";

// How the review shows a value: never a secret. What `pulumi preview --json` hides already is the
// string `[secret]`; on top of that the review hides, with the project's own rules
// (keboola/secrets.ts), every value under a `#` key (at any depth, as the Encryption API and the
// job runner read them), every Keboola ciphertext (`KBC::...Secure...::`, legacy ones included)
// and the secret part of ingestion URLs.

/** Pulumi's JSON for a value not known before `up` (pulumi pkg/resource/stack/deployment.go computedValuePlaceholder). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
/** What `pulumi preview --json` prints for a secret (pulumi pkg/backend/display/json.go MassageSecrets). */
export const PULUMI_SECRET = "[secret]";

/** A step into a value: an object key, an array index, or an array item named by its identity (`rows[open]`). */
export type Step = string | number | { id: string };
export type Path = readonly Step[];

/** `parameters.api.baseUrl`, `rows[0].configuration`, `phases[extract].tasks[0]`. */
export function formatPath(path: Path): string {
  let out = "";
  for (const step of path) {
    if (typeof step === "number") out += `[${step}]`;
    else if (typeof step === "object") out += `[${step.id}]`;
    else out += out === "" ? step : `.${step}`;
  }
  return out;
}

/** Whether a value at this path is a Keboola secret: some step of it is a `#` key. */
export function underSecretKey(path: Path): boolean {
  return path.some((s) => typeof s === "string" && isSecretKey(s));
}

/** Whether a string must not be shown: Pulumi's secret marker or a ciphertext. */
export function isHiddenString(value: string): boolean {
  return value === PULUMI_SECRET || isEncrypted(value) || isKnownCipher(value);
}

/** Whether anything in the value (at this path) must not be shown. */
export function containsHidden(value: JsonValue | undefined, path: Path): boolean {
  if (value === undefined) return false;
  if (underSecretKey(path)) return true;
  if (typeof value === "string") return isHiddenString(value);
  if (Array.isArray(value)) return value.some((v, i) => containsHidden(v, [...path, i]));
  if (value !== null && typeof value === "object") return Object.entries(value).some(([k, v]) => containsHidden(v, [...path, k]));
  return false;
}

/** A copy of the value fit to show: hidden values become `[secret]`, unknown ones `(known after up)`. */
export function masked(value: JsonValue, path: Path = []): JsonValue {
  if (Array.isArray(value)) return value.map((v, i) => masked(v, [...path, i]));
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, masked(v, [...path, k])]));
  if (underSecretKey(path)) return PULUMI_SECRET;
  if (typeof value === "string") {
    if (value === UNKNOWN) return "(known after up)";
    if (isHiddenString(value)) return PULUMI_SECRET;
    return maskIngestionSecrets(value);
  }
  return value;
}

const MAX_VALUE = 240;

/** A value as one line of text (JSON, masked), cut to a readable length. */
export function showValue(value: JsonValue, path: Path = []): string {
  if (value === UNKNOWN) return "(known after up)";
  const text = JSON.stringify(masked(value, path));
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text;
}

/** Inline code that holds any text (a fence longer than the longest run of backticks in it). */
export function code(text: string): string {
  const runs = text.match(/`+/g) ?? [];
  const fence = "`".repeat(Math.max(0, ...runs.map((r) => r.length)) + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** A value as inline code, except the markers, which read as words. */
export function showCode(value: JsonValue, path: Path = []): string {
  if (value === UNKNOWN) return "_(known after up)_";
  return code(showValue(value, path));
}

/** Text for a Markdown table cell: no line breaks, `|` escaped. */
export function cell(text: string): string {
  return text.replace(/\r?\n/g, " ").replace(/\|/g, "\\|");
}

/** Text for ordinary Markdown: the characters that would start markup escaped. */
export function plain(text: string): string {
  return text.replace(/([\\`*_[\]<>|#])/g, "\\$1");
}
