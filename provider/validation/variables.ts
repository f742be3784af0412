import { z } from "zod";
import { isRecord } from "../../keboola/json";

// Configuration variables as Keboola has them: names usable as {{name}} placeholders, two types,
// and values that are always strings. Shared by VariableConfig (declarations, default values),
// ComponentConfig (bindings) and JobRun (values of one run).

export const variableNameSchema = z
  .string({ error: "must be a string (the variable name)" })
  .min(1, "must not be empty")
  .max(64, "must be at most 64 characters")
  .regex(
    /^[A-Za-z0-9_-]+$/,
    "must consist of letters, digits, _ and - only (it is used as {{name}}; a dot would make Mustache look inside another variable)",
  );

export const variableTypeSchema = z.enum(["string", "int"], { error: 'must be "string" or "int"' });

export const variableDeclarationSchema = z
  .object({
    name: variableNameSchema.describe("Variable name, referenced as {{name}} in configurations."),
    type: variableTypeSchema.default("string").describe('"string" or "int" (values are always stored as strings).'),
  })
  .strict();

export type VariableDeclaration = z.output<typeof variableDeclarationSchema>;

/** Declarations without duplicated names (the duplicate is reported at its own `name`). */
export const variableDeclarationsSchema = z.array(variableDeclarationSchema, { error: "must be an array of {name, type}" }).superRefine((vars, ctx) => {
  const seen = new Map<string, number>();
  vars.forEach((v, i) => {
    const first = seen.get(v.name);
    if (first !== undefined) {
      ctx.addIssue({ code: "custom", path: [i, "name"], message: `duplicate variable name "${v.name}" (already declared at variables[${first}]): declare each variable once` });
    } else {
      seen.set(v.name, i);
    }
  });
});

/**
 * The declarations a keboola.variables configuration's `variables` (or a binding's `declared`)
 * gives, as read from JSON: entries with a string name; a type other than "int" is a string.
 */
export function declarationsIn(list: unknown): VariableDeclaration[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((v) => {
    if (!isRecord(v) || typeof v.name !== "string") return [];
    const type: VariableDeclaration["type"] = v.type === "int" ? "int" : "string";
    return [{ name: v.name, type }];
  });
}

/** A values row's `values` (`[{name, value}]`) as `{name: value}`: entries with a string name, a missing value as "". */
export function valuesIn(list: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!Array.isArray(list)) return out;
  for (const item of list) {
    if (!isRecord(item) || typeof item.name !== "string") continue;
    out[item.name] = item.value === undefined || item.value === null ? "" : String(item.value);
  }
  return out;
}

/** Values are strings in Keboola; a number is taken as its text (so 3 and "3" are the same value, never a diff). */
export const variableValueSchema = z
  .union([z.string(), z.number(), z.boolean()], { error: "must be a string (or a number, written as its text)" })
  .transform((v) => String(v));

/** `{name: value}` maps as users write them; the service stores `[{name, value}]` with string values. */
export const variableValuesSchema = z.record(z.string(), variableValueSchema, { error: "must be an object of variable name to value" });

export const stringValue = (v: string | number | boolean): string => String(v);

const INT = /^-?\d+$/;

/** Problems of `{name: value}` against declarations: undeclared names and non-integer `int` values. */
export function valueIssues(values: Record<string, string | number | boolean>, declared: readonly VariableDeclaration[]): Array<{ name: string; message: string }> {
  const out: Array<{ name: string; message: string }> = [];
  const names = declared.map((d) => d.name).join(", ") || "none";
  for (const [name, raw] of Object.entries(values)) {
    const decl = declared.find((d) => d.name === name);
    if (!decl) {
      out.push({ name, message: `"${name}" is not a declared variable (declared: ${names}): declare it in variables, e.g. {name: "${name}", type: "string"}, or remove this value` });
    } else if (decl.type === "int" && !INT.test(stringValue(raw))) {
      out.push({ name, message: `${JSON.stringify(raw)} is not an integer, but variable "${name}" is declared as int: write a whole number such as "10", or declare the variable as "string"` });
    }
  }
  return out;
}

// What the job runner requires of a job's values is the service's rule: keboola/variables.ts.
export { missingValues, noValueMessage } from "../../keboola/variables";
