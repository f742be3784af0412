import type { Context } from "hono";
import { isRecord } from "../../keboola/json";
import { STREAM_COLUMN_TYPES, STREAM_SOURCE_TYPES } from "../../keboola/stream";
import { decodePayload, GoaErrors, missingPayload } from "./errors";
import { goQuote } from "./gofmt";
import { EOF, firstValue } from "./go-decoder";

// Request body decoding and validation as the real service's API framework (Goa) does it:
// JSON decoding errors (400 decodePayload, Go's encoding/json wording), a missing body (400
// missingPayload), then the generated validations, in their order and with their messages
// (including Goa's quirks, e.g. the column type enum lists the column's path instead of "body").

/**
 * A body field: a scalar (a Go string type, named when it is not `string`), a bool, any JSON, an
 * array, or an object (named after its generated Go type).
 */
type Spec = Typed | "any";
/** A field of one JSON type (what a list holds). */
type Typed = "string" | { string: string } | "bool" | { array: Typed } | ObjectSpec;
interface ObjectSpec {
  object: Record<string, Spec>;
  name: string;
}

/**
 * What a value that Go's decoder accepts for `S` is: any field may be absent or null (Goa's
 * generated types are pointers); what is set has its JSON type.
 */
type Decoded<S> = S extends "string" | { string: string }
  ? string
  : S extends "bool"
    ? boolean
    : S extends "any"
      ? unknown
      : S extends { array: infer E }
        ? Array<Decoded<E> | null>
        : S extends { object: infer O }
          ? Fields<O>
          : never;
type Fields<O> = { [K in keyof O]?: Decoded<O[K]> | null };

const COLUMN = {
  name: "TableColumnRequestBody",
  object: {
    // keboola/keboola-as-code api/stream/design.go: the column type is mapping/table/column's Type.
    type: { string: "column.Type" },
    name: "string",
    path: "string",
    defaultValue: "string",
    rawString: "bool",
    // keboola/keboola-as-code api/stream/design.go, TableColumn: primaryKey (Boolean, default false).
    primaryKey: "bool",
    template: { name: "TableColumnTemplateRequestBody", object: { language: "string", content: "string" } },
  },
} satisfies Spec;
const MAPPING = { name: "TableMappingRequestBody", object: { columns: { array: COLUMN } } } satisfies Spec;
const table = (name: string) => ({ name, object: { type: "string", tableId: "string", mapping: MAPPING } }) satisfies Spec;
const settings = (name: string) =>
  ({
    name,
    object: {
      changeDescription: "string",
      settings: { array: { name: "SettingPatchRequestBody", object: { key: "string", value: "any" } } },
    },
  }) satisfies ObjectSpec;

/** A decoded mapping of a sink. */
export type MappingBody = Decoded<typeof MAPPING>;

export const BODIES = {
  CreateSourceRequestBody: {
    name: "CreateSourceRequestBody",
    object: { sourceId: "string", type: "string", name: "string", description: "string" },
  },
  UpdateSourceRequestBody: {
    name: "UpdateSourceRequestBody",
    object: { changeDescription: "string", type: "string", name: "string", description: "string" },
  },
  CreateSinkRequestBody: {
    name: "CreateSinkRequestBody",
    object: {
      sinkId: "string",
      type: "string",
      name: "string",
      description: "string",
      allowedSignals: { array: "string" },
      table: table("TableSinkCreateRequestBody"),
    },
  },
  UpdateSinkRequestBody: {
    name: "UpdateSinkRequestBody",
    object: {
      changeDescription: "string",
      type: "string",
      name: "string",
      description: "string",
      allowedSignals: { array: "string" },
      table: table("TableSinkUpdateRequestBody"),
    },
  },
  UpdateSourceSettingsRequestBody: settings("UpdateSourceSettingsRequestBody"),
  UpdateSinkSettingsRequestBody: settings("UpdateSinkSettingsRequestBody"),
} satisfies Record<string, ObjectSpec>;

/** A decoded body of one of BODIES. */
export type DecodedBody<K extends keyof typeof BODIES> = Fields<(typeof BODIES)[K]["object"]>;

function jsonKind(v: unknown): string {
  if (typeof v === "string") return "string";
  if (typeof v === "number") return "number";
  if (typeof v === "boolean") return "bool";
  if (Array.isArray(v)) return "array";
  return "object";
}

/** Go type name of a field (array elements and nested objects are pointers in the generated types); `any` takes every value. */
function goTypeName(spec: Typed): string {
  if (spec === "string") return "string";
  if (spec === "bool") return "bool";
  if ("string" in spec) return spec.string;
  if ("array" in spec) return "[]" + (typeof spec.array === "object" && "object" in spec.array ? "*" : "") + goTypeName(spec.array);
  return `server.${spec.name}`;
}

/** The JSON kind a spec takes. */
function kindOf(spec: Typed): string {
  if (spec === "string") return "string";
  if (spec === "bool") return "bool";
  if ("string" in spec) return "string";
  return "array" in spec ? "array" : "object";
}

/**
 * Where the decoder is: the innermost struct whose field it is decoding and the path of field
 * names from the body (the context Go's UnmarshalTypeError is given).
 */
interface At {
  struct?: string;
  fields: string[];
}

/**
 * A value decoded into `spec` as Go's decoder does it: the first type mismatch (in document order)
 * is its error; object keys match fields exactly, else case-insensitively (the last of several
 * wins); unknown keys are dropped; a null element of a list of strings is "".
 */
function decodeAs(value: unknown, spec: Spec, at: At): unknown {
  if (value === null || spec === "any") return value;
  const kind = jsonKind(value);
  if (kind !== kindOf(spec)) {
    const where = at.struct === undefined ? "Go value" : `Go struct field ${at.struct}.${at.fields.join(".")}`;
    throw decodePayload(`json: cannot unmarshal ${kind} into ${where} of type ${goTypeName(spec)}`);
  }
  if (typeof spec !== "object" || "string" in spec) return value;
  // The kinds matched: an array spec has a list here, an object spec an object (the checks below
  // say so to the compiler; neither can fail).
  if ("array" in spec && Array.isArray(value)) {
    // A list of strings holds strings (null is ""); a list of objects holds pointers (null stays).
    const zero = spec.array === "string" ? "" : null;
    return value.map((item) => (item === null ? zero : decodeAs(item, spec.array, at)));
  }
  if (!("object" in spec) || !isRecord(value)) return value;
  const fields = Object.keys(spec.object);
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    // Go prefers an exact match, then any case; no two fields here differ only by case.
    const field = fields.find((f) => f.toLowerCase() === key.toLowerCase());
    if (field === undefined) continue;
    out[field] = decodeAs(item, spec.object[field], { struct: spec.name, fields: [...at.fields, field] });
  }
  return out;
}

/** Reads and decodes a JSON request body against one of BODIES, as the service's Goa decoder does. */
export async function decodeBody<K extends keyof typeof BODIES>(c: Context, bodyName: K): Promise<DecodedBody<K>> {
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  const first = firstValue(bytes);
  if ("error" in first) throw first.error === EOF ? missingPayload() : decodePayload(first.error);
  const value: unknown = JSON.parse(new TextDecoder().decode(bytes.subarray(first.start, first.end)));
  // The one assertion here, and the right tool: decodeAs has checked the value against
  // BODIES[bodyName] field by field, and DecodedBody<K> is the type the same spec gives (Decoded),
  // but TypeScript cannot follow a conditional type over a generic spec through the runtime walk.
  // A schema library would give both from one definition, but not Go's decoder errors in its order.
  return (decodeAs(value, BODIES[bodyName], { fields: [] }) ?? {}) as DecodedBody<K>;
}

// ---- Generated validations ---------------------------------------------------------------------

const runes = (s: string) => [...s].length;

/** Set: present and not null (Goa's generated types are pointers; a JSON null leaves one nil). */
const isSet = (v: unknown) => v !== undefined && v !== null;

function lengthChecks(errs: GoaErrors, path: string, value: unknown, min: number | undefined, max?: number): void {
  if (typeof value !== "string") return;
  const n = runes(value);
  if (min !== undefined && n < min) errs.invalidLength(path, goQuote(value), n, min, true);
  if (max !== undefined && n > max) errs.invalidLength(path, goQuote(value), n, max, false);
}

function enumCheck(errs: GoaErrors, path: string, value: unknown, allowed: readonly string[], shown = allowed): void {
  if (typeof value === "string" && !allowed.includes(value)) errs.invalidEnum(path, value, shown);
}

function signalsCheck(errs: GoaErrors, signals: unknown): void {
  if (!Array.isArray(signals)) return;
  signals.forEach((s, i) => {
    if (typeof s === "string" && !["logs", "metrics", "traces"].includes(s)) {
      errs.invalidEnum(`body.allowedSignals[${i}].allowedSignals[*]`, s, ["logs", "metrics", "traces"]);
    }
  });
}

/** `%#v` of the columns slice in a length error. */
function columnsGoValue(columns: unknown): string {
  if (!Array.isArray(columns)) return "[]*server.TableColumnRequestBody(nil)";
  // Stryker disable next-line ArithmeticOperator: equivalent: the service prints the elements' addresses, which differ from run to run; any distinct addresses are as faithful
  const items = columns.map((_, i) => `(*server.TableColumnRequestBody)(0x${(0xc000400000 + i * 0x60).toString(16)})`);
  return `[]*server.TableColumnRequestBody{${items.join(", ")}}`;
}

function mappingChecks(errs: GoaErrors, mapping: Record<string, unknown>, ctx: string): void {
  const columns = mapping.columns;
  if (!isSet(columns)) errs.missingField("columns", ctx);
  const list = Array.isArray(columns) ? columns : [];
  if (list.length < 1) errs.invalidLength(`${ctx}.columns`, columnsGoValue(columns), 0, 1, true);
  if (list.length > 100) errs.invalidLength(`${ctx}.columns`, columnsGoValue(columns), list.length, 100, false);
  list.forEach((c, i) => {
    if (!isRecord(c)) return;
    const colCtx = `${ctx}.columns[${i}]`;
    if (!isSet(c.type)) errs.missingField("type", colCtx);
    if (!isSet(c.name)) errs.missingField("name", colCtx);
    enumCheck(errs, `${colCtx}.type`, c.type, STREAM_COLUMN_TYPES, [
      "uuid", "datetime", "ip", colCtx, "headers", "path", "template",
    ]);
    if (isRecord(c.template)) {
      const t = c.template;
      const tCtx = `${colCtx}.template`;
      if (!isSet(t.language)) errs.missingField("language", tCtx);
      if (!isSet(t.content)) errs.missingField("content", tCtx);
      enumCheck(errs, `${tCtx}.language`, t.language, ["jsonnet"]);
      lengthChecks(errs, `${tCtx}.content`, t.content, 1, 4096);
    }
  });
}

function tableChecks(errs: GoaErrors, t: unknown, create: boolean): void {
  if (!isRecord(t)) return;
  if (create) {
    if (!isSet(t.type)) errs.missingField("type", "body.table");
    if (!isSet(t.tableId)) errs.missingField("tableId", "body.table");
    if (!isSet(t.mapping)) errs.missingField("mapping", "body.table");
  }
  enumCheck(errs, "body.table.type", t.type, ["keboola"]);
  if (isRecord(t.mapping)) mappingChecks(errs, t.mapping, "body.table.mapping");
}

export function validateCreateSource(body: Record<string, unknown>): GoaErrors {
  const errs = new GoaErrors();
  if (!isSet(body.type)) errs.missingField("type", "body");
  if (!isSet(body.name)) errs.missingField("name", "body");
  lengthChecks(errs, "body.sourceId", body.sourceId, 1, 48);
  enumCheck(errs, "body.type", body.type, STREAM_SOURCE_TYPES);
  lengthChecks(errs, "body.name", body.name, 1, 40);
  lengthChecks(errs, "body.description", body.description, undefined, 4096);
  return errs;
}

export function validateUpdateSource(body: Record<string, unknown>): GoaErrors {
  const errs = new GoaErrors();
  enumCheck(errs, "body.type", body.type, STREAM_SOURCE_TYPES);
  lengthChecks(errs, "body.name", body.name, 1, 40);
  lengthChecks(errs, "body.description", body.description, undefined, 4096);
  return errs;
}

export function validateCreateSink(body: Record<string, unknown>): GoaErrors {
  const errs = new GoaErrors();
  if (!isSet(body.type)) errs.missingField("type", "body");
  if (!isSet(body.name)) errs.missingField("name", "body");
  lengthChecks(errs, "body.sinkId", body.sinkId, 1, 48);
  enumCheck(errs, "body.type", body.type, ["table"]);
  lengthChecks(errs, "body.name", body.name, 1, 40);
  lengthChecks(errs, "body.description", body.description, undefined, 4096);
  signalsCheck(errs, body.allowedSignals);
  tableChecks(errs, body.table, true);
  return errs;
}

export function validateUpdateSink(body: Record<string, unknown>): GoaErrors {
  const errs = new GoaErrors();
  enumCheck(errs, "body.type", body.type, ["table"]);
  lengthChecks(errs, "body.name", body.name, 1, 40);
  lengthChecks(errs, "body.description", body.description, undefined, 4096);
  signalsCheck(errs, body.allowedSignals);
  tableChecks(errs, body.table, false);
  return errs;
}

export function validateSettingsPatch(body: Record<string, unknown>): GoaErrors {
  const errs = new GoaErrors();
  const settings = Array.isArray(body.settings) ? body.settings : [];
  settings.forEach((kv, i) => {
    if (!isRecord(kv)) return;
    if (!isSet(kv.key)) errs.missingField("key", `body.settings[${i}]`);
    lengthChecks(errs, `body.settings[${i}].key`, kv.key, 1);
  });
  return errs;
}

/** Path parameters with a length rule (sourceId, sinkId): 1..48 characters. */
export function validateIdParam(errs: GoaErrors, name: "sourceId" | "sinkId", value: string): void {
  lengthChecks(errs, name, value, 1, 48);
}

export function throwIf(errs: GoaErrors): void {
  if (!errs.empty) throw errs.error();
}

