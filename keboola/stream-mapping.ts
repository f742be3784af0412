import { renderTemplateColumn } from "../jsonnet/column";
import { getJsonnetEngine } from "../jsonnet/engine";
import { getNested, isContentTypeJSON, pathFromStr } from "../jsonnet/body";
import { goJSON } from "./go-json";
import { fastGet, fastString, stringBytes } from "./fastjson";
import type { StreamColumn } from "./stream";
import type { MappedRecord } from "./stream-record";
import { uuidV7 } from "./uuid";

// The Stream service's column rules: one record (stream-record.ts) mapped to the values of a
// sink's columns, as the strings the service writes to the table (and shows in its test
// endpoint). keboola-as-code internal/pkg/service/stream/mapping/table/column/renderer.go
// (CSVValue). Written once for the emulator's ingestion and test endpoint and the provider's
// example checks.

/**
 * A column of a sink's mapping as the rules read it: what the provider declares (StreamColumn)
 * and what the emulator stores both fit it.
 */
export interface MappingColumn {
  type: StreamColumn["type"];
  name: string;
  /** path columns */
  path?: string;
  defaultValue?: string;
  /** path and template columns (false when unset) */
  rawString?: boolean;
  /** template columns */
  template?: { language: string; content: string };
}

/** A column could not be mapped; `message` is the real service's error text for the column. */
export class ColumnError extends Error {
  constructor(
    readonly column: MappingColumn,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Path column over a JSON body (Content-Type is JSON): the value's JSON text, as in the body. A
 * path with no steps ("", ".") is the whole body (renderer.go jsonPathCSVValue: `len(path) > 0`).
 */
function jsonPathValue(col: MappingColumn, rec: MappedRecord): string {
  const keys = pathFromStr(col.path ?? "").map((s) => ("key" in s ? s.key : String(s.index)));
  // No keys: the whole body (fastGet of no keys is the value itself).
  const node = fastGet(rec.jsonValue(), keys);
  if (!node) {
    if (col.defaultValue !== undefined) return col.rawString ? col.defaultValue : goJSON(col.defaultValue);
    throw new Error(`path "${col.path}" not found in the body`);
  }
  // Only a raw-string column reads the value's type, which decodes a string's escapes (renderer.go:
  // `c.RawString && value.Type() == fastjson.TypeString`); otherwise it is printed as written.
  const raw = col.rawString ? stringBytes(node) : undefined;
  return raw ?? fastString(node);
}

/**
 * Path column over a form (or otherwise parsed) body: no path is the whole body, and any other
 * path goes to orderedmap's GetNested, which finds nothing at "." (renderer.go mapPathCSVValue).
 */
function mapPathValue(col: MappingColumn, rec: MappedRecord): string {
  const body = rec.bodyMap();
  const path = col.path ?? "";
  let value: unknown = body;
  if (path !== "") {
    const found = getNested(body, path);
    if (found.ok) value = found.value;
    else if (col.defaultValue !== undefined) value = col.defaultValue;
    else throw new Error(`path "${path}" not found in the body`);
  }
  if (col.rawString && typeof value === "string") return value;
  return goJSON(value);
}

/** Template column: the jsonnet layer renders it (jsonnet/column.ts). */
function templateValue(col: MappingColumn, rec: MappedRecord): string {
  const template = col.template ?? { language: "jsonnet", content: "" };
  const res = renderTemplateColumn(getJsonnetEngine(), { name: col.name, rawString: col.rawString, template }, rec.template);
  if (!res.ok) throw new Error(res.error);
  return res.value;
}

/** The CSV value of one column for one record; throws ColumnError. */
export function columnValue(col: MappingColumn, rec: MappedRecord): string {
  try {
    switch (col.type) {
      case "uuid":
        return uuidV7(Date.now());
      case "datetime":
        return new Date(rec.input.receivedAt).toISOString();
      case "ip":
        return rec.input.ip;
      case "body":
        return rec.body;
      case "headers":
        return goJSON(rec.input.headers);
      case "path":
        return isContentTypeJSON(rec.contentType) ? jsonPathValue(col, rec) : mapPathValue(col, rec);
      case "template":
        return templateValue(col, rec);
    }
  } catch (e) {
    throw new ColumnError(col, e instanceof Error ? e.message : String(e));
  }
}

/** Values of all columns, in the mapping order; throws ColumnError at the first failing column. */
export function mapRow(columns: readonly MappingColumn[], rec: MappedRecord): string[] {
  return columns.map((col) => columnValue(col, rec));
}

/** Static check of a template at sink create/update: the engine's error text, or undefined. */
export function templateCompileError(content: string): string | undefined {
  const res = getJsonnetEngine().compile(content);
  return res.ok ? undefined : res.error;
}

