import { z } from "zod";
import { SECTIONS, sectionsShape } from "./sections";
import { configSectionSchema } from "./config-values";
import { isRecord } from "../../keboola/json";
import { READ_FILE } from "./file-values";

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
  const properties = { ...Object.fromEntries(Object.entries(sections).map(([k, v]) => [k, takesValues(v, false)])), config };
  const definitions = { ...(isRecord(schema.definitions) ? schema.definitions : {}), [READ_FILE_DEFINITION]: READ_FILE_SCHEMA };
  return { ...schema, properties, definitions, title: "keboola.yaml" };
}

/** A whole string `${name}`: where an entry may use a config value instead of a value of its own type. */
const VALUE = { type: "string", pattern: "^\\$\\{[A-Za-z_][A-Za-z0-9_]*\\}$", description: "A value of config: (${name}), of this type." };

/** `{ fn::readFile: <path> }`: where an entry takes a string, the text of a file (file-values.ts); once, among the definitions. */
const READ_FILE_DEFINITION = "readFile";
const READ_FILE_SCHEMA = {
  type: "object",
  properties: {
    [READ_FILE]: {
      type: "string",
      minLength: 1,
      description: "A file's path, relative to the manifest (within its directory). Its text is the value; a transformation code's script is split into statements as kbc splits it.",
    },
  },
  required: [READ_FILE],
  additionalProperties: false,
  description: "The text of a file (Pulumi YAML's fn::readFile), e.g. { fn::readFile: transformations/orders/001-load.sql }.",
};
const READ_FILE_REF = { $ref: `#/definitions/${READ_FILE_DEFINITION}` };

/**
 * An entry's JSON Schema that also takes `${name}` wherever it takes a number, a boolean, an enum
 * or a constrained string (a string takes it as any other text), and `{ fn::readFile: <path> }`
 * wherever it takes a string (not as a key: `inKeys`): the YAML language server then accepts what
 * parse.ts resolves. A free-form value (a configuration) takes both already.
 */
function takesValues(node: unknown, inKeys: boolean): unknown {
  if (!isRecord(node)) return node;
  const out: Record<string, unknown> = { ...node };
  const here = (x: unknown) => takesValues(x, inKeys);
  // Only the keywords that hold schemas: a property named `type` is not the keyword.
  const map = (v: unknown) => (isRecord(v) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, here(x)])) : v);
  const list = (v: unknown) => (Array.isArray(v) ? v.map(here) : here(v));
  for (const k of ["properties", "definitions", "$defs", "patternProperties"]) if (k in out) out[k] = map(out[k]);
  for (const k of ["additionalProperties", "not"]) if (k in out) out[k] = here(out[k]);
  if ("propertyNames" in out) out.propertyNames = takesValues(out.propertyNames, true);
  for (const k of ["items", "anyOf", "oneOf", "allOf"]) if (k in out) out[k] = list(out[k]);
  const leaf =
    (typeof out.type === "string" && out.type !== "object" && out.type !== "array" && (out.type !== "string" || out.pattern !== undefined || out.format !== undefined || out.enum !== undefined)) ||
    (out.type === undefined && (out.enum !== undefined || out.const !== undefined));
  const text =
    !inKeys && (out.type === "string" || (out.type === undefined && ((Array.isArray(out.enum) && out.enum.some((v) => typeof v === "string")) || typeof out.const === "string")));
  if (!leaf && !text) return out;
  const { description, default: dflt, ...rest } = out;
  return { ...(description !== undefined ? { description } : {}), ...(dflt !== undefined ? { default: dflt } : {}), anyOf: [rest, ...(leaf ? [VALUE] : []), ...(text ? [READ_FILE_REF] : [])] };
}
