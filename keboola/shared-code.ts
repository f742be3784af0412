// Links to shared code, as the job runner resolves them. A transformation that uses shared code
// (rows of a `keboola.shared-code` configuration) names that configuration in its root
// `shared_code_id` and the rows it uses in `shared_code_row_ids`, and its scripts hold
// `{{<row id>}}` where a row's code goes: `parameters.blocks[].codes[].script[]` holds
// `"{{<row id>}}"` (keboola/keboola-as-code internal/pkg/mapper/sharedcode/links: id.go
// `IDFormat = "{{<ID>}}"`, remote_load.go).
//
// Before variables are rendered, the runner replaces the links (keboola/configuration-variables-
// resolver SharedCodeResolver::resolveSharedCode, run by keboola/job-runner before the
// VariablesResolver, see its JobDefinitionFactory test "testVariablesAreReplacedInSharedCodes"):
//   - only when both `shared_code_id` and `shared_code_row_ids` are non-empty;
//   - only in arrays whose items are all scalars (a list of strings such as `script`), at any depth;
//     a plain string value or an array holding an object or null is left alone;
//   - an item holding `{{ id }}` (the pattern `{{([ a-zA-Z0-9_-]+)}}`, trimmed) for ids of
//     `shared_code_row_ids` is replaced as a whole by the code of those rows (`code_content`, a
//     list of strings or one string), in the order of `shared_code_row_ids`, each row once;
//     the rest of the item (text, other placeholders) is dropped.
// What the links bring in is then rendered with the configuration's variables like the rest.

import { isRecord, type JsonObject, type JsonValue } from "./json";

export const SHARED_CODE_COMPONENT = "keboola.shared-code";

/** The shared code a configuration uses, when it uses any (both keys set and non-empty). */
export interface SharedCodeUse {
  /** `shared_code_id`: the keboola.shared-code configuration. */
  configId: string;
  /** `shared_code_row_ids`: the rows whose `{{id}}` are links. */
  rowIds: string[];
}

const scalarText = (v: unknown): string | undefined => (typeof v === "string" ? v : typeof v === "number" ? String(v) : undefined);

/**
 * The shared code of a configuration (its root keys). For a row, pass the root's keys overlaid
 * with the row's own: a job's configuration is the root merged with the row.
 */
export function sharedCodeOf(configuration: unknown): SharedCodeUse | undefined {
  if (!isRecord(configuration)) return undefined;
  const c = configuration;
  const configId = scalarText(c.shared_code_id);
  if (!configId || !Array.isArray(c.shared_code_row_ids)) return undefined;
  const rowIds = c.shared_code_row_ids.map(scalarText).filter((id): id is string => id !== undefined && id !== "");
  return rowIds.length ? { configId, rowIds } : undefined;
}

/** The shared code of a row's job: the row's own keys over the root's. */
export function rowSharedCodeOf(root: unknown, row: unknown): SharedCodeUse | undefined {
  const keys = (v: unknown) => {
    if (!isRecord(v)) return {};
    const { shared_code_id, shared_code_row_ids } = v;
    return { ...(shared_code_id !== undefined ? { shared_code_id } : {}), ...(shared_code_row_ids !== undefined ? { shared_code_row_ids } : {}) };
  };
  return sharedCodeOf({ ...keys(root), ...keys(row) });
}

const LINK = /\{\{([ a-zA-Z0-9_-]+)\}\}/g;

/** The links in `text` to rows of `rowIds`, as written, in order of appearance. */
export function linksIn(text: string, rowIds: readonly string[]): Array<{ rowId: string; tag: string }> {
  return [...text.matchAll(LINK)].map((m) => ({ rowId: m[1].trim(), tag: m[0] })).filter((l) => rowIds.includes(l.rowId));
}

/** The ids of `rowIds` that `text` links to, in the order of `rowIds` (each once). */
export function linkedRowIds(text: string, rowIds: readonly string[]): string[] {
  const named = new Set(linksIn(text, rowIds).map((l) => l.rowId));
  return rowIds.filter((id, i) => named.has(id) && rowIds.indexOf(id) === i);
}

/** An array the runner looks into: every item a string, number or boolean. */
export function isScalarList(value: readonly unknown[]): boolean {
  return value.every((v) => typeof v === "string" || typeof v === "number" || typeof v === "boolean");
}

/** The code of a shared code row as a list of strings (`code_content`, a list or one string). */
export function codeOf(rowConfiguration: unknown): string[] | undefined {
  const content = isRecord(rowConfiguration) ? rowConfiguration.code_content : undefined;
  if (typeof content === "string") return [content];
  if (Array.isArray(content) && content.every((c): c is string => typeof c === "string")) return content;
  return undefined;
}

/**
 * `value` with every link replaced by the code it names (see the top of the file). `code(id)`
 * gives a row's code; it is called once per linked row id that occurs.
 */
export function resolveSharedCode(value: JsonObject, rowIds: readonly string[], code: (rowId: string) => string[]): JsonObject {
  const walkObject = (o: JsonObject): JsonObject => Object.fromEntries(Object.entries(o).map(([k, item]): [string, JsonValue] => [k, walk(item)]));
  const walk = (v: JsonValue): JsonValue => {
    if (Array.isArray(v)) {
      if (!isScalarList(v)) return v.map(walk);
      return v.flatMap((item) => {
        const ids = typeof item === "string" ? linkedRowIds(item, rowIds) : [];
        return ids.length ? ids.flatMap(code) : [item];
      });
    }
    if (isRecord(v)) return walkObject(v);
    return v;
  };
  return walkObject(value);
}
