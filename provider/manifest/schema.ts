import { z } from "zod";
import { SECTIONS, sectionsShape } from "./sections";
import { configSectionSchema } from "./config-values";
import { isRecord } from "../../keboola/json";

// The shape of keboola.yaml: a section per kind that has one (each kind says its own beside it:
// provider/kinds/<kind>/manifest.ts; sections.ts puts them together from the kinds table). Every
// field of an entry is the resource's input of the same name, except the references, which name
// another entry by its manifest key (a sink its source, a configuration or one of its rows its
// variables, a job its configuration). The resources' refinements (duplicate row ids, undeclared
// values, ...) are applied to each entry after the references are resolved, see parse.ts.

export const manifestSchema = z
  .object({ ...sectionsShape, config: configSectionSchema })
  .strict()
  .describe("keboola.yaml: a Keboola project declared as data, deployed by keboola-pulumi.");

export type Manifest = z.output<typeof manifestSchema>;
export type ManifestInput = z.input<typeof manifestSchema>;
export type ManifestSection = keyof Manifest;

/**
 * Which section each reference points at, by the section and field holding it; `inRows`: the
 * field of each of the entry's `rows`; `inTasks`: of each task of each of the entry's `phases`.
 */
export const REFERENCES: ReadonlyArray<{ section: string; field: string; target: string; inRows?: true; inTasks?: true }> = SECTIONS.flatMap((s) => s.references.map((r) => ({ section: s.name, ...r })));

/** The manifest's JSON Schema (draft-07, which the YAML language server reads), from the same zod schemas. */
export function manifestJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(manifestSchema, { io: "input", unrepresentable: "any", target: "draft-7" });
  const { config, ...sections } = isRecord(schema.properties) ? schema.properties : {};
  const properties = { ...Object.fromEntries(Object.entries(sections).map(([k, v]) => [k, takesValues(v)])), config };
  return { ...schema, properties, title: "keboola.yaml" };
}

/** A whole string `${name}`: where an entry may use a config value instead of a value of its own type. */
const VALUE = { type: "string", pattern: "^\\$\\{[A-Za-z_][A-Za-z0-9_]*\\}$", description: "A value of config: (${name}), of this type." };

/**
 * An entry's JSON Schema that also takes `${name}` wherever it takes a number, a boolean, an enum
 * or a constrained string (a string takes it as any other text): the YAML language server then
 * accepts what parse.ts resolves.
 */
function takesValues(node: unknown): unknown {
  if (!isRecord(node)) return node;
  const out: Record<string, unknown> = { ...node };
  // Only the keywords that hold schemas: a property named `type` is not the keyword.
  const map = (v: unknown) => (isRecord(v) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, takesValues(x)])) : v);
  const list = (v: unknown) => (Array.isArray(v) ? v.map(takesValues) : takesValues(v));
  for (const k of ["properties", "definitions", "$defs", "patternProperties"]) if (k in out) out[k] = map(out[k]);
  for (const k of ["additionalProperties", "not", "propertyNames"]) if (k in out) out[k] = takesValues(out[k]);
  for (const k of ["items", "anyOf", "oneOf", "allOf"]) if (k in out) out[k] = list(out[k]);
  const leaf =
    (typeof out.type === "string" && out.type !== "object" && out.type !== "array" && (out.type !== "string" || out.pattern !== undefined || out.format !== undefined || out.enum !== undefined)) ||
    (out.type === undefined && (out.enum !== undefined || out.const !== undefined));
  if (!leaf) return out;
  const { description, default: dflt, ...rest } = out;
  return { ...(description !== undefined ? { description } : {}), ...(dflt !== undefined ? { default: dflt } : {}), anyOf: [rest, VALUE] };
}
