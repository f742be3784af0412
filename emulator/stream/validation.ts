import type { Context } from "hono";
import { decodePayload, GoaErrors, missingPayload } from "./errors";
import { goQuote } from "./gofmt";

// Request body decoding and validation as the real service's API framework (Goa) does it:
// JSON decoding errors (400 decodePayload, Go's encoding/json wording), a missing body (400
// missingPayload), then the generated validations, in their order and with their messages
// (including Goa's quirks, e.g. the column type enum lists the column's path instead of "body").

/** A body field: a scalar, an array, or an object (named after its generated Go type). */
type Spec = "string" | "bool" | "any" | { array: Spec } | { object: Record<string, Spec>; name: string };

const COLUMN: Spec = {
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
};
const MAPPING: Spec = { name: "TableMappingRequestBody", object: { columns: { array: COLUMN } } };
const table = (name: string): Spec => ({ name, object: { type: "string", tableId: "string", mapping: MAPPING } });

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
} satisfies Record<string, Spec>;

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
  if (typeof spec === "object" && "array" in spec) {
    for (const item of value as unknown[]) {
      const err = typeError(item, spec.array, root, path);
      if (err) return err;
    }
  } else if (typeof spec === "object" && "object" in spec) {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const fieldSpec = spec.object[k];
      if (fieldSpec === undefined) continue;
      const err = typeError(v, fieldSpec, root, [...path, k]);
      if (err) return err;
    }
  }
  return undefined;
}

/** Reads and decodes a JSON request body against one of BODIES. */
export async function decodeBody(c: Context, bodyName: keyof typeof BODIES): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (text.trim() === "") throw missingPayload();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw decodePayload(goJSONSyntaxMessage(text, e));
  }
  const spec = BODIES[bodyName];
  const err = typeError(value, spec, spec.name, []);
  if (err) throw decodePayload(err);
  return value === null ? {} : (value as Record<string, unknown>);
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

function enumCheck(errs: GoaErrors, path: string, value: unknown, allowed: string[], shown = allowed): void {
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
  list.forEach((col, i) => {
    if (col === null || typeof col !== "object") return;
    const c = col as Record<string, unknown>;
    const colCtx = `${ctx}.columns[${i}]`;
    if (c.type === undefined || c.type === null) errs.missingField("type", colCtx);
    if (c.name === undefined || c.name === null) errs.missingField("name", colCtx);
    enumCheck(errs, `${colCtx}.type`, c.type, ["uuid", "datetime", "ip", "body", "headers", "path", "template"], [
      "uuid", "datetime", "ip", colCtx, "headers", "path", "template",
    ]);
    if (c.template && typeof c.template === "object") {
      const t = c.template as Record<string, unknown>;
      const tCtx = `${colCtx}.template`;
      if (t.language === undefined || t.language === null) errs.missingField("language", tCtx);
      if (t.content === undefined || t.content === null) errs.missingField("content", tCtx);
      enumCheck(errs, `${tCtx}.language`, t.language, ["jsonnet"]);
      lengthChecks(errs, `${tCtx}.content`, t.content, 1, 4096);
    }
  });
}

function tableChecks(errs: GoaErrors, table: unknown, create: boolean): void {
  if (!table || typeof table !== "object") return;
  const t = table as Record<string, unknown>;
  if (create) {
    if (t.type === undefined || t.type === null) errs.missingField("type", "body.table");
    if (t.tableId === undefined || t.tableId === null) errs.missingField("tableId", "body.table");
    if (t.mapping === undefined || t.mapping === null) errs.missingField("mapping", "body.table");
  }
  enumCheck(errs, "body.table.type", t.type, ["keboola"]);
  if (t.mapping && typeof t.mapping === "object") mappingChecks(errs, t.mapping as Record<string, unknown>, "body.table.mapping");
}

const isSet = (v: unknown) => v !== undefined && v !== null;

export function validateCreateSource(body: Record<string, unknown>): GoaErrors {
  const errs = new GoaErrors();
  if (!isSet(body.type)) errs.missingField("type", "body");
  if (!isSet(body.name)) errs.missingField("name", "body");
  lengthChecks(errs, "body.sourceId", body.sourceId, 1, 48);
  enumCheck(errs, "body.type", body.type, ["http", "otlp"]);
  lengthChecks(errs, "body.name", body.name, 1, 40);
  lengthChecks(errs, "body.description", body.description, undefined, 4096);
  return errs;
}

export function validateUpdateSource(body: Record<string, unknown>): GoaErrors {
  const errs = new GoaErrors();
  enumCheck(errs, "body.type", body.type, ["http", "otlp"]);
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
  settings.forEach((s, i) => {
    if (!s || typeof s !== "object") return;
    const kv = s as Record<string, unknown>;
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

