import { z } from "zod";
import { isRecord } from "../../keboola/json";
import { describeIssues } from "./messages";
import { pathOf } from "./paths";
import { schemaDef, type Schema } from "./schema-def";
import type { CheckFailure } from "./messages";

// Validation at `check`: parse the new inputs with a resource's zod schema. Values that are not
// known yet at preview (outputs of other resources) are skipped, not reported.

/** The marker the Pulumi engine puts in place of a value unknown at preview. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9" as const;
export type Unknown = typeof UNKNOWN;

export function isUnknown(v: unknown): v is Unknown {
  return v === UNKNOWN;
}

/**
 * A value as `check` may see it at preview: any part of it may still be unknown (an output of
 * another resource). A string absorbs the marker (it is a string); every other position says so
 * in its type, so code that reads it must decide what an unknown there means.
 */
export type Partly<T> = T extends string
  ? T
  : T extends ReadonlyArray<infer E>
    ? Partly<E>[] | Unknown
    : T extends object
      ? { [K in keyof T]: Partly<T[K]> } | Unknown
      : T | Unknown;

/** A resource's parsed inputs at check: the object is there, any field in it may be unknown. */
export type PartlyKnown<T> = { [K in keyof T]: Partly<T[K]> };

/** A partly known type with every unknown taken out: what a value is once nothing in it is unknown. */
export type Known<V> = V extends Unknown
  ? never
  : V extends string
    ? V
    : V extends ReadonlyArray<infer E>
      ? Known<E>[]
      : V extends object
        ? { [K in keyof V]: Known<V[K]> }
        : V;

/** Whether nothing in a partly known value is unknown at preview: it is then its Known form. */
function isWhollyKnown<V>(v: V): v is V & Known<V> {
  return !containsUnknown(v);
}

/** Whether every one of the named fields of a partly known value is wholly known. */
function hasKnownFields<V extends object, K extends keyof V>(v: V, keys: readonly K[]): v is V & { [P in K]: Known<V[P]> } {
  return !keys.some((k) => containsUnknown(v[k]));
}

/** The value when nothing in it is unknown at preview (typed so), else undefined. */
export function whenKnown<V>(v: V): Known<V> | undefined {
  return isWhollyKnown(v) ? v : undefined;
}

/** The named fields of a partly known value, when every one of them is wholly known, else undefined. */
export function knownFields<V extends object, K extends keyof V>(v: V, keys: readonly K[]): { [P in K]: Known<V[P]> } | undefined {
  return hasKnownFields(v, keys) ? v : undefined;
}

/**
 * A wholly known value as the partly known type it is an instance of (the inputs parsed at once,
 * with nothing unknown in them). Partly<X> includes X at every position, but TypeScript cannot see
 * that through the conditional type for a generic T: the one assertion of it.
 */
export function partlyKnown<T>(value: T): PartlyKnown<T> {
  return value as PartlyKnown<T>;
}

export function containsUnknown(v: unknown): boolean {
  if (isUnknown(v)) return true;
  if (Array.isArray(v)) return v.some(containsUnknown);
  if (v && typeof v === "object") return Object.values(v).some(containsUnknown);
  return false;
}

function valueAt(obj: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let cur = obj;
  for (const seg of path) {
    if (isUnknown(cur)) return cur;
    if (cur === null || typeof cur !== "object") return undefined;
    // An object by key or an array by index, as `cur[seg]` reads them.
    cur = Reflect.get(cur, seg);
  }
  return cur;
}

export interface Checked<T> {
  /**
   * The inputs parsed with their defaults applied, as far as they are known: a part not known yet
   * at preview stays the UNKNOWN marker (see parseKnown). Undefined only when a known input is
   * wrong (then `failures` says what).
   */
  value?: PartlyKnown<T>;
  failures: CheckFailure[];
}

/** What checkWith needs of a resource's definition (define.ts): its inputs, their fields, the rules across them. */
export interface CheckedDefinition<T> {
  inputs: z.ZodType<T>;
  lifecycle: { fields: Readonly<Record<string, z.core.$ZodType>> };
  refine?: (value: PartlyKnown<T>, ctx: RuleContext) => void;
}

/**
 * The inputs with each value unknown at preview replaced by what the program says it will be
 * (`expected`: the id a Bucket or Source of the same program will have, see program.ts), where
 * the program says it.
 */
export function withExpected(props: Record<string, unknown>, expected: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out = { ...props };
  for (const [key, value] of Object.entries(expected)) if (value !== undefined && isUnknown(out[key])) out[key] = value;
  return out;
}

/** Where a rule across fields reports a problem (what zod's RefinementCtx offers of it). */
export interface RuleContext {
  addIssue(issue: { code: "custom"; path?: PropertyKey[]; message: string }): void;
}

/**
 * Parses a resource's inputs at check. Values that are not known yet at preview (outputs of other
 * resources) are not reported; and they do not stop the rest from being checked: the value comes
 * back parsed as far as it is known (every known field with its defaults, unknown parts kept as
 * the marker), and the rules across fields run on it, each deciding what an unknown means for it.
 */
export function checkWith<T>(def: CheckedDefinition<T> | z.ZodType<T>, props: Record<string, unknown>, expected: Readonly<Record<string, unknown>> = {}): Checked<T> {
  const schema = "lifecycle" in def ? def.inputs : def;
  const input = withExpected(props, expected);
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return { value: partlyKnown(result.data), failures: [] };
  const atUnknown = (path: ReadonlyArray<PropertyKey>) => containsUnknown(valueAt(input, path));
  const failures = describeIssues(schema, result.error.issues, (issue) => atUnknown(issue.path));
  if (failures.length > 0 || !("lifecycle" in def)) return { failures };
  // Every problem is at a value not known yet: the known rest is parsed field by field.
  const value: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(def.lifecycle.fields)) {
    const parsed = parseKnown(field, input[key]);
    if (parsed !== undefined) value[key] = parsed;
  }
  // Each field is its schema's output where known and the marker where not (parseKnown): what
  // PartlyKnown<T> says, which TypeScript cannot follow through the fields' untyped schemas.
  const partly = value as PartlyKnown<T>;
  if (def.refine) {
    const issues: Array<{ path: PropertyKey[]; message: string }> = [];
    def.refine(partly, { addIssue: (i) => issues.push({ path: i.path ?? [], message: i.message }) });
    for (const i of issues) {
      // A rule decides itself what an unknown means for it (it saw the partly known value): its
      // problem is dropped only when it is at a place not known yet, never when about the whole.
      if (i.path.length === 0 || !atUnknown(i.path)) failures.push({ property: pathOf(i.path), reason: i.message });
    }
    if (failures.length > 0) return { failures };
  }
  return { value: partly, failures };
}

/**
 * A value parsed by its schema as far as it is known: wholly known parts are parsed (defaults,
 * transforms), an unknown stays the marker, and objects, arrays and records holding one are
 * walked so their other parts are parsed. A known part the schema refuses stays as given (the
 * full parse reported it already, unless it was below an unknown).
 */
export function parseKnown(schema: Schema, value: unknown): unknown {
  // Stryker disable next-line ConditionalExpression: equivalent: a shortcut; below, every branch gives a string back as it is
  if (isUnknown(value)) return value;
  if (!containsUnknown(value)) {
    const parsed = z.safeParse(schema, value);
    return parsed.success ? parsed.data : value;
  }
  const d = schemaDef(schema);
  if (d.innerType) return parseKnown(d.innerType, value);
  // A transform cannot run on a value with unknowns: its input side is parsed.
  if (d.in) return parseKnown(d.in, value);
  // Here the value holds an unknown and is not the marker: a list or an object.
  if (d.shape && isRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = d.shape[k] ? parseKnown(d.shape[k], v) : v;
    for (const [k, field] of Object.entries(d.shape)) {
      if (k in out) continue;
      const parsed = z.safeParse(field, undefined);
      if (parsed.success && parsed.data !== undefined) out[k] = parsed.data;
    }
    return out;
  }
  if (d.element && Array.isArray(value)) return value.map((v) => parseKnown(d.element!, v));
  if (d.valueType && isRecord(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, parseKnown(d.valueType!, v)]));
  }
  if (d.options) {
    // The option of the value's own kind (an object's, an array's), as far as it can be told.
    const kind = (s: Schema): "object" | "array" | undefined => {
      const o = schemaDef(s);
      return o.shape || o.valueType ? "object" : o.element ? "array" : o.innerType ? kind(o.innerType) : o.in ? kind(o.in) : undefined;
    };
    const own = Array.isArray(value) ? "array" : "object";
    const option = d.options.find((o) => kind(o) === own);
    if (option) return parseKnown(option, value);
  }
  return value;
}

/**
 * Check failures as the Pulumi engine should print them. The engine prints a failure with a
 * property as `property <p> value <inputs[p]> has a problem: <reason>`, looking the value up as a
 * top-level input (pulumi/pulumi pkg/resource/deploy/step_generator.go, issueCheckFailures), so a
 * nested path such as `configuration.parameters.x` always shows `value {<nil>}`. A failure at a
 * nested path goes without a property, its path leading the reason (`<type> resource '<name>' has
 * a problem: configuration.parameters.x: <reason>`); a top-level one stays as it is.
 */
export function failuresForEngine(failures: readonly CheckFailure[]): CheckFailure[] {
  return failures.map((f) => (f.property && /[.[]/.test(f.property) ? { property: "", reason: `${f.property}: ${f.reason}` } : f));
}

/** Parse inputs that `check` already accepted (create/update/delete): a failure here is a bug or corrupt state. */
export function parseChecked<S extends z.ZodType>(schema: S, props: Record<string, unknown>, what: string): z.output<S> {
  const result = schema.safeParse(props, { reportInput: true });
  if (!result.success) {
    const detail = describeIssues(schema, result.error.issues).map((f) => `${f.property}: ${f.reason}`).join("; ");
    throw new Error(`${what}: invalid inputs: ${detail}`);
  }
  return result.data;
}

/**
 * For diff: a value unknown at preview counts as unchanged. A dynamic provider cannot preview an
 * update, so while a resource is being updated its outputs that are not inputs (configId,
 * valuesRowId) are unknown to its dependents; they almost never change on an update. When they do
 * (a replacement), `up` diffs again with the real values and updates the dependent then.
 */
export function unknownAsOld(old: unknown, value: unknown): unknown {
  return containsUnknown(value) ? old : value;
}

/**
 * unknownAsOld at every depth: each value unknown at preview inside `value` (a task's configId, a
 * schedule target's configId) stands for the old value at the same place, when there is one.
 */
export function unknownsAsOld(old: unknown, value: unknown): unknown {
  // The marker is the one scalar that holds an unknown.
  if (isUnknown(value)) return old === undefined ? value : old;
  if (Array.isArray(value)) return value.map((v, i) => unknownsAsOld(Array.isArray(old) ? old[i] : undefined, v));
  if (value && typeof value === "object") {
    const o = isRecord(old) ? old : {};
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unknownsAsOld(o[k], v)]));
  }
  return value;
}
