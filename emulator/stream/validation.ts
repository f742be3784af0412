import type { Context } from "hono";
import { isRecord } from "../../keboola/json";
import { STREAM_COLUMN_TYPES, STREAM_SOURCE_TYPES } from "../../keboola/stream";
import { decodePayload, GoaErrors, missingPayload } from "./errors";
import { goQuote } from "./gofmt";

// Request body decoding and validation as the real service's API framework (Goa) does it:
// JSON decoding errors (400 decodePayload, Go's encoding/json wording), a missing body (400
// missingPayload), then the generated validations, in their order and with their messages
// (including Goa's quirks, e.g. the column type enum lists the column's path instead of "body").

/** A body field: a scalar, an array, or an object (named after its generated Go type). */
type Spec = "string" | "bool" | "any" | { array: Spec } | ObjectSpec;
interface ObjectSpec {
  object: Record<string, Spec>;
  name: string;
}

/**
 * What a value that Go's decoder accepts for `S` is: any field may be absent or null (Goa's
 * generated types are pointers); what is set has its JSON type.
 */
type Decoded<S> = S extends "string"
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
    type: "string",
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
  UpdateSettingsRequestBody: {
    name: "UpdateSourceSettingsRequestBody",
    object: {
      changeDescription: "string",
      settings: { array: { name: "SettingPatchRequestBody", object: { key: "string", value: "any" } } },
    },
  },
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

/** Go type name of a field (array elements and nested objects are pointers in the generated types). */
function goTypeName(spec: Spec): string {
  if (spec === "string") return "string";
  if (spec === "bool") return "bool";
  if (spec === "any") return "interface {}";
  if ("array" in spec) return "[]" + (typeof spec.array === "object" && "object" in spec.array ? "*" : "") + goTypeName(spec.array);
  return `server.${spec.name}`;
}

/** First type mismatch, as Go's encoding/json reports it. */
function typeError(value: unknown, spec: Spec, root: string, path: string[]): string | undefined {
  if (value === null || spec === "any") return undefined;
  const expected = spec === "string" ? "string" : spec === "bool" ? "boolean" : "array" in spec ? "array" : "object";
  const kind = jsonKind(value);
  const ok =
    (expected === "string" && kind === "string") ||
    (expected === "boolean" && kind === "bool") ||
    (expected === "array" && kind === "array") ||
    (expected === "object" && kind === "object");
  if (!ok) {
    if (path.length === 0) return `json: cannot unmarshal ${kind} into Go value of type ${goTypeName(spec)}`;
    return `json: cannot unmarshal ${kind} into Go struct field ${root}.${path.join(".")} of type ${goTypeName(spec)}`;
  }
  if (typeof spec === "object" && "array" in spec && Array.isArray(value)) {
    for (const item of value) {
      const err = typeError(item, spec.array, root, path);
      if (err) return err;
    }
  } else if (typeof spec === "object" && "object" in spec && isRecord(value)) {
    for (const [k, v] of Object.entries(value)) {
      const fieldSpec = spec.object[k];
      if (fieldSpec === undefined) continue;
      const err = typeError(v, fieldSpec, root, [...path, k]);
      if (err) return err;
    }
  }
  return undefined;
}

/** Throws the decoder's error unless `value` has the JSON types of `spec` (null included). */
function assertDecoded<S extends ObjectSpec>(value: unknown, spec: S): asserts value is Fields<S["object"]> | null {
  const err = typeError(value, spec, spec.name, []);
  if (err) throw decodePayload(err);
}

/** Reads and decodes a JSON request body against one of BODIES. */
export async function decodeBody<K extends keyof typeof BODIES>(c: Context, bodyName: K): Promise<DecodedBody<K>> {
  const text = await c.req.text();
  if (text.trim() === "") throw missingPayload();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw decodePayload(goJSONSyntaxMessage(text, e));
  }
  assertDecoded(value, BODIES[bodyName]);
  return value ?? {};
}

/** Go's json syntax error wording, for the common cases. */
function goJSONSyntaxMessage(text: string, e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  const token = /Unexpected token '?(.)'?/.exec(msg);
  if (token) {
    const ch = token[1];
    return `invalid character '${ch}' looking for beginning of value`;
  }
  if (/end of (JSON )?input/i.test(msg)) return "unexpected EOF";
  const first = text.trim()[0];
  return `invalid character '${first}' looking for beginning of value`;
}

// ---- Generated validations ---------------------------------------------------------------------

const runes = (s: string) => [...s].length;

function lengthChecks(errs: GoaErrors, path: string, value: unknown, min: number | undefined, max: number): void {
  if (typeof value !== "string") return;
  const n = runes(value);
  if (min !== undefined && n < min) errs.invalidLength(path, goQuote(value), n, min, true);
  if (n > max) errs.invalidLength(path, goQuote(value), n, max, false);
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
  const items = columns.map((_, i) => `(*server.TableColumnRequestBody)(0x${(0xc000400000 + i * 0x60).toString(16)})`);
  return `[]*server.TableColumnRequestBody{${items.join(", ")}}`;
}

function mappingChecks(errs: GoaErrors, mapping: Record<string, unknown>, ctx: string): void {
  const columns = mapping.columns;
  if (columns === undefined || columns === null) errs.missingField("columns", ctx);
  const list = Array.isArray(columns) ? columns : [];
  if (list.length < 1) errs.invalidLength(`${ctx}.columns`, columnsGoValue(columns), 0, 1, true);
  if (list.length > 100) errs.invalidLength(`${ctx}.columns`, columnsGoValue(columns), list.length, 100, false);
  list.forEach((c, i) => {
    if (!isRecord(c)) return;
    const colCtx = `${ctx}.columns[${i}]`;
    if (c.type === undefined || c.type === null) errs.missingField("type", colCtx);
    if (c.name === undefined || c.name === null) errs.missingField("name", colCtx);
    enumCheck(errs, `${colCtx}.type`, c.type, STREAM_COLUMN_TYPES, [
      "uuid", "datetime", "ip", colCtx, "headers", "path", "template",
    ]);
    if (isRecord(c.template)) {
      const t = c.template;
      const tCtx = `${colCtx}.template`;
      if (t.language === undefined || t.language === null) errs.missingField("language", tCtx);
      if (t.content === undefined || t.content === null) errs.missingField("content", tCtx);
      enumCheck(errs, `${tCtx}.language`, t.language, ["jsonnet"]);
      lengthChecks(errs, `${tCtx}.content`, t.content, 1, 4096);
    }
  });
}

function tableChecks(errs: GoaErrors, t: unknown, create: boolean): void {
  if (!isRecord(t)) return;
  if (create) {
    if (t.type === undefined || t.type === null) errs.missingField("type", "body.table");
    if (t.tableId === undefined || t.tableId === null) errs.missingField("tableId", "body.table");
    if (t.mapping === undefined || t.mapping === null) errs.missingField("mapping", "body.table");
  }
  enumCheck(errs, "body.table.type", t.type, ["keboola"]);
  if (isRecord(t.mapping)) mappingChecks(errs, t.mapping, "body.table.mapping");
}

const isSet = (v: unknown) => v !== undefined && v !== null;

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
    lengthChecks(errs, `body.settings[${i}].key`, kv.key, 1, Number.MAX_SAFE_INTEGER);
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

