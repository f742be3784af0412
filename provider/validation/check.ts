import type { z } from "zod";
import type * as dynamic from "@pulumi/pulumi/dynamic";
import { describeIssues } from "./messages";

// Validation at `check`: parse the new inputs with a resource's zod schema. Values that are not
// known yet at preview (outputs of other resources) are skipped, not reported.

/** The marker the Pulumi engine puts in place of a value unknown at preview. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export function isUnknown(v: unknown): boolean {
  return v === UNKNOWN;
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

/** Strips the properties the dynamic provider host and our resource classes add. */
export function userInputs(props: Record<string, unknown>): Record<string, unknown> {
  const { __provider: _p, __resourceName: _n, __owner: _o, __program: _f, __root: _r, ...rest } = props;
  return rest;
}

export interface Checked<T> {
  /** Parsed inputs with defaults applied, or undefined when unknowns prevented a full parse. */
  value?: T;
  failures: dynamic.CheckFailure[];
}

export function checkWith<S extends z.ZodType>(schema: S, props: Record<string, unknown>): Checked<z.output<S>> {
  const input = userInputs(props);
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return { value: result.data, failures: [] };
  const failures = describeIssues(schema, result.error.issues, (issue) => containsUnknown(valueAt(input, issue.path)));
  return { failures };
}

/**
 * Check failures as the Pulumi engine should print them. The engine prints a failure with a
 * property as `property <p> value <inputs[p]> has a problem: <reason>`, looking the value up as a
 * top-level input (pulumi/pulumi pkg/resource/deploy/step_generator.go, issueCheckFailures), so a
 * nested path such as `configuration.parameters.x` always shows `value {<nil>}`. A failure at a
 * nested path goes without a property, its path leading the reason (`<type> resource '<name>' has
 * a problem: configuration.parameters.x: <reason>`); a top-level one stays as it is.
 */
export function failuresForEngine(failures: readonly dynamic.CheckFailure[]): dynamic.CheckFailure[] {
  return failures.map((f) => (f.property && /[.[]/.test(f.property) ? { property: "", reason: `${f.property}: ${f.reason}` } : f));
}

/** Parse inputs that `check` already accepted (create/update/delete): a failure here is a bug or corrupt state. */
export function parseChecked<S extends z.ZodType>(schema: S, props: Record<string, unknown>, what: string): z.output<S> {
  const result = schema.safeParse(userInputs(props), { reportInput: true });
  if (!result.success) {
    const detail = describeIssues(schema, result.error.issues).map((f) => `${f.property}: ${f.reason}`).join("; ");
    throw new Error(`${what}: invalid inputs: ${detail}`);
  }
  return result.data;
}
