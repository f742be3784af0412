import { isRecord, parseJson, type JsonObject, type JsonValue } from "../../keboola/json";
import { codeOf, resolveSharedCode, type SharedCodeUse } from "../../keboola/shared-code";
import { missingValues, noValueMessage } from "../../keboola/variables";

// Configuration variables, resolved as the job runner does (keboola/configuration-variables-
// resolver): only a configuration with a root `variables_id` is rendered. Values come from
// the job's `variableValuesData`, else the `variableValuesId` row of the variables
// configuration, else the configuration's `variables_values_id` row; otherwise the job fails
// with `No variable values provided for variables configuration "<id>".`. Every variable the
// variables configuration declares needs a value (`No value provided for variable "<name>".`).
// The configuration is rendered as Mustache over its JSON, values JSON-escaped, and every
// placeholder without a value is reported: `Missing values for placeholders: "a, b"`.
//
// Before that, links to shared code (`{{<row id>}}` of `shared_code_row_ids`) are replaced with
// the code of those rows, as the runner's SharedCodeResolver does (the rule is written once, in
// provider/validation/shared-code.ts); the code brought in is then rendered like the rest. Every
// row of `shared_code_row_ids` is read, linked or not: a missing configuration or row fails the
// job (`Shared code configuration cannot be read: Configuration <id> not found` / `Row <id> not
// found`, keboola/configuration-variables-resolver tests/SharedCodeResolverTest.php).

export class VariablesError extends Error {}

export interface VariablesSource {
  /** The `configuration` of the `keboola.variables` configuration, or undefined when missing. */
  variablesConfiguration(id: string): JsonObject | undefined;
  /** The `configuration` of a row of that configuration, or undefined when missing. */
  valuesRow(variablesId: string, rowId: string): JsonObject | undefined;
}

export interface SharedCodeSource {
  /** The rows of the `keboola.shared-code` configuration, by id, or undefined when it is missing. */
  sharedCodeRows(configId: string): Map<string, JsonObject> | undefined;
}

/** `value` with its links to shared code replaced (see the top of the file). */
export function resolveLinks(value: JsonObject, use: SharedCodeUse, source: SharedCodeSource): JsonObject {
  const rows = source.sharedCodeRows(use.configId);
  if (!rows) throw new VariablesError(`Shared code configuration cannot be read: Configuration ${use.configId} not found`);
  const codes = new Map<string, string[]>();
  for (const id of use.rowIds) {
    const row = rows.get(id);
    if (!row) throw new VariablesError(`Shared code configuration cannot be read: Row ${id} not found`);
    const code = codeOf(row);
    if (!code) throw new VariablesError('Shared code configuration is invalid: The child config "code_content" under "configuration" must be configured.');
    codes.set(id, code);
  }
  // Stryker disable next-line ArrayDeclaration: equivalent: resolveSharedCode asks only for ids of use.rowIds, each in codes
  return resolveSharedCode(value, use.rowIds, (id) => codes.get(id) ?? []);
}

export interface VariableValuesData {
  values?: Array<{ name: unknown; value: unknown }> | null;
}

/** The values to render with, or null when the configuration uses no variables. */
export function loadVariables(
  configuration: JsonObject,
  variableValuesId: string | null,
  variableValuesData: VariableValuesData | null,
  source: VariablesSource,
): Record<string, string> | null {
  const inline = variableValuesData?.values && variableValuesData.values.length ? variableValuesData.values : null;
  if (variableValuesId && inline) throw new VariablesError("Only one of variableValuesId and variableValuesData can be entered.");
  const variablesId = scalar(configuration.variables_id);
  const defaultValuesId = scalar(configuration.variables_values_id);
  if (!variablesId) return null;

  const vConfig = source.variablesConfiguration(variablesId);
  if (!vConfig) throw new VariablesError(`Variable configuration cannot be read: Configuration "${variablesId}" not found`);
  const declared = vConfig.variables;
  if (!Array.isArray(declared)) {
    throw new VariablesError('Variable configuration is invalid: The child config "variables" under "configuration" must be configured.');
  }

  let rows: readonly unknown[];
  if (inline) rows = inline;
  else {
    const rowId = variableValuesId || defaultValuesId;
    if (!rowId) throw new VariablesError(`No variable values provided for variables configuration "${variablesId}".`);
    const row = source.valuesRow(variablesId, rowId);
    if (!row) throw new VariablesError(`Cannot read variable values "${rowId}" of variables configuration "${variablesId}".`);
    if (!Array.isArray(row.values)) {
      throw new VariablesError('Variable values configuration is invalid: The child config "values" under "configuration" must be configured.');
    }
    rows = row.values;
  }

  const values: Record<string, string> = {};
  for (const item of rows) {
    // An item that is not an object has no name.
    const r = isRecord(item) ? item : {};
    const name = String(r.name ?? "");
    if (name === "") throw new VariablesError("Variable name cannot be empty.");
    values[name] = r.value === null || r.value === undefined ? "" : String(r.value);
  }
  const names = declared.map((v) => ({ name: isRecord(v) ? String(v.name) : String(v) }));
  const [missing] = missingValues(names, Object.keys(values));
  if (missing !== undefined) throw new VariablesError(noValueMessage(missing));
  return values;
}

const TAG = /\{\{\{\s*([^{}\s]+)\s*\}\}\}|\{\{\s*(&?)\s*([^{}#^/!>=\s&][^{}\s]*)\s*\}\}/g;

/** Renders `{{name}}` placeholders (JSON-escaped) and `{{{name}}}` / `{{& name}}` (raw) in the JSON of `value`. */
export function render(value: JsonObject, values: Record<string, string>, missing: string[]): JsonObject {
  const json = JSON.stringify(value);
  const out = json.replace(TAG, (_m, triple: string | undefined, amp: string, name: string | undefined) => {
    // The pattern captures one of the two.
    // Stryker disable next-line StringLiteral: equivalent: never reached (one of the two is captured)
    const key = triple ?? name ?? "";
    if (!(key in values)) {
      missing.push(key);
      return "";
    }
    const v = values[key];
    return triple !== undefined || amp === "&" ? v : JSON.stringify(v).slice(1, -1);
  });
  let rendered: JsonValue;
  try {
    rendered = parseJson(out);
  } catch (err) {
    throw new VariablesError(`Variable replacement resulted in invalid configuration, error: ${err instanceof Error ? err.message : String(err)}`);
  }
  // The text still starts with `{` and ends with `}`: parsed, it is an object.
  // Stryker disable all: never reached, kept so the type is proven rather than asserted
  if (rendered === null || typeof rendered !== "object" || Array.isArray(rendered)) {
    throw new VariablesError("Variable replacement resulted in invalid configuration, error: not an object");
  }
  // Stryker restore all
  return rendered;
}

export function missingPlaceholdersError(missing: string[]): VariablesError {
  return new VariablesError(`Missing values for placeholders: "${missing.join(", ")}"`);
}

/** An id given as text or a number; null for anything else ("" stays "": the callers read it as none). */
function scalar(v: JsonValue | undefined): string | null {
  return typeof v === "string" || typeof v === "number" ? String(v) : null;
}
