// The Pulumi package schema of the kinds (https://www.pulumi.com/docs/iac/extending-pulumi/schema/),
// made from their zod schemas, the one source of truth: what `schema.json` holds, what the provider
// plugin will answer to GetSchema, and what `pulumi package gen-sdk` makes the SDKs from.
//
// zod writes JSON Schema; Pulumi's schema is a different language. The translation:
// - an object with properties is a named type, `keboola:index:<Kind><Path>` (the path of its first
//   place, in PascalCase); an object alike in all but its descriptions elsewhere reuses that name;
// - a string of a fixed set of values is a named enum type, reused by any field of the same values;
// - a union is a `oneOf` of its distinct variants (`T | null` is an optional T); a discriminated
//   union is Pulumi's tagged union: a `oneOf` of one object type per value of its tag, with a
//   `discriminator` mapping each value to its type (a variant whose tag takes several values, such
//   as a Sink column of type "uuid" or "ip", is a type per value), so that the code Pulumi writes
//   for a value (`pulumi import`, `pulumi convert`) picks its type by the tag;
// - an object of free keys is a map of its values' type; a JSON value of any shape (a component's
//   configuration, a recursive $def) is `pulumi.json#/Any`;
// - validation keywords (pattern, minimum, lengths) have no place here: the kinds' checks enforce
//   them, with the same refusals through either front door.
import type { AnyDefinition } from "../lifecycle/define";
import { describedAs, jsonSchemaOf, referenced, type JsonSchema as Json } from "../json-schema";
import { CONFIG_KEYS, type ConfigKey } from "../config";

export const PACKAGE = "keboola";

/**
 * Where the project lives and publishes its plugin archives (`npm run build:plugin`): Pulumi's
 * `github://` scheme downloads `pulumi-resource-keboola-v<version>-<os>-<arch>.tar.gz` from the
 * repository's GitHub releases when a program's SDK asks for a plugin not installed yet.
 */
const REPOSITORY = "https://github.com/keboola/keboola-pulumi";
const PLUGIN_DOWNLOAD_URL = "github://api.github.com/keboola/keboola-pulumi";
const ANY = { $ref: "pulumi.json#/Any" } as const;

/** Pulumi's TypeSpec. */
export interface TypeSpec {
  type?: "string" | "number" | "integer" | "boolean" | "array" | "object";
  items?: TypeSpec;
  additionalProperties?: TypeSpec;
  $ref?: string;
  oneOf?: TypeSpec[];
  /** A tagged union's tag: the property, and the type (a `$ref`) each of its values means. */
  discriminator?: { propertyName: string; mapping: Record<string, string> };
}

/** Pulumi's PropertySpec. */
export interface PropertySpec extends TypeSpec {
  description: string;
  default?: string | number | boolean;
  const?: string | number | boolean;
  secret?: boolean;
  replaceOnChanges?: boolean;
}

export interface ObjectTypeSpec {
  type: "object";
  description: string;
  properties: Record<string, PropertySpec>;
  required?: string[];
}

export interface EnumTypeSpec {
  type: "string";
  description: string;
  enum: Array<{ value: string }>;
}

export interface ResourceSpec {
  description: string;
  inputProperties: Record<string, PropertySpec>;
  requiredInputs: string[];
  properties: Record<string, PropertySpec>;
  required: string[];
}

export interface PackageSpec {
  name: string;
  displayName: string;
  description: string;
  version: string;
  repository: string;
  pluginDownloadURL: string;
  meta: { supportPack: boolean };
  language: { go: { importBasePath: string }; nodejs: { packageName: string } };
  config: { variables: Record<string, PropertySpec> };
  provider: { description: string; inputProperties: Record<string, PropertySpec> };
  resources: Record<string, ResourceSpec>;
  functions: Record<string, FunctionSpec>;
  types: Record<string, ObjectTypeSpec | EnumTypeSpec>;
}

export interface FunctionSpec {
  description: string;
  inputs: ObjectSpec;
  outputs: ObjectSpec;
}

/** A function's inputs or outputs: `required` left out when empty (as the CLI writes a schema back). */
interface ObjectSpec {
  properties: Record<string, PropertySpec>;
  required?: string[];
}

/** What of a lookup the package schema reads (provider/lookups/lookups.ts). */
export type FunctionSource = { name: string; description: string; args: AnyDefinition["outputs"] } & ({ kind: string } | { outputs: AnyDefinition["outputs"] });

/** The provider's configuration: `keboola:<name>` stack config (each with its environment variable), from config.ts. */
export const CONFIG_VARIABLES: Record<string, PropertySpec> = Object.fromEntries(
  Object.entries(CONFIG_KEYS).map(([name, key]: [string, ConfigKey]) => [name, { type: key.type, description: key.description, ...(key.secret ? { secret: true } : {}) }]),
);

export const resourceToken = (type: string): string => `${PACKAGE}:index:${type}`;

/** What of a kind's definition the package schema reads. */
export type SchemaSource = Pick<AnyDefinition, "type" | "description" | "inputs" | "outputs" | "secretOutputs"> & { lifecycle: Pick<AnyDefinition["lifecycle"], "replace"> };

export function packageSchema(catalog: readonly SchemaSource[], version: string, lookups: readonly FunctionSource[] = []): PackageSpec {
  const types = new TypeNames();
  const resources: Record<string, ResourceSpec> = {};
  /** The properties of a schema's fields, their types named after `owner`. */
  const propsOf = (schema: Json, owner: string, marks: { secret?: ReadonlySet<string>; replace?: ReadonlySet<string> } = {}): Record<string, PropertySpec> =>
    Object.fromEntries(
      Object.entries(schema.properties ?? {}).map(([name, field]) => {
        const spec = types.property(field, `${owner}${pascal(name)}`, schema, `${owner}.${name}`);
        if (marks.secret?.has(name)) spec.secret = true;
        if (marks.replace?.has(name)) spec.replaceOnChanges = true;
        return [name, spec];
      }),
    );
  for (const def of catalog) {
    const inputs = jsonSchemaOf(def.inputs, "input");
    const outputs = jsonSchemaOf(def.outputs, "output");
    const marks = { secret: new Set(def.secretOutputs), replace: new Set(def.lifecycle.replace) };
    const inputProperties = propsOf(inputs, def.type, marks);
    resources[resourceToken(def.type)] = {
      description: def.description,
      inputProperties,
      requiredInputs: inputs.required ?? [],
      properties: { ...inputProperties, ...propsOf(outputs, def.type, marks) },
      required: [...new Set([...(inputs.required ?? []), ...(outputs.required ?? [])])],
    };
  }
  // A lookup of a kind's objects answers the kind's properties (the types the resource names).
  const functions: Record<string, FunctionSpec> = {};
  for (const l of lookups) {
    const args = jsonSchemaOf(l.args, "input");
    const inputs = objectSpec(propsOf(args, pascal(l.name)), args.required);
    if ("kind" in l) {
      const resource = resources[resourceToken(l.kind)];
      if (!resource) throw new Error(`package schema: lookup ${l.name} answers a ${l.kind}, which is not a kind`);
      functions[resourceToken(l.name)] = { description: l.description, inputs, outputs: objectSpec(resource.properties, resource.required) };
    } else {
      const outputs = jsonSchemaOf(l.outputs, "output");
      functions[resourceToken(l.name)] = { description: l.description, inputs, outputs: objectSpec(propsOf(outputs, pascal(l.name)), outputs.required) };
    }
  }
  if (types.undescribed.length) {
    throw new Error(`package schema: no description for ${types.undescribed.join(", ")}: give each field's zod schema a .describe()`);
  }
  return {
    name: PACKAGE,
    displayName: "Keboola",
    description: "Keboola Stream sources, sinks and settings, component configurations, variables and job runs, Storage buckets and tables, flows, schedules and dev branches.",
    version,
    repository: REPOSITORY,
    pluginDownloadURL: PLUGIN_DOWNLOAD_URL,
    // The SDKs under sdk/ (npm run sdk): versioned like the package, with their own module files.
    meta: { supportPack: true },
    language: {
      go: { importBasePath: "github.com/keboola/keboola-pulumi/sdk/go/keboola" },
      nodejs: { packageName: "@keboola/pulumi-keboola" },
    },
    config: { variables: CONFIG_VARIABLES },
    provider: { description: "The Keboola provider: one project, by its Storage API host and token.", inputProperties: CONFIG_VARIABLES },
    resources,
    functions,
    types: types.all,
  };
}

const objectSpec = (properties: Record<string, PropertySpec>, required: string[] | undefined): ObjectSpec => ({ properties, ...(required?.length ? { required } : {}) });

/** The named types met so far, by name and by shape (so that alike types share one name). */
class TypeNames {
  readonly all: Record<string, ObjectTypeSpec | EnumTypeSpec> = {};
  /** Fields with no description (every property of a package schema needs one). */
  readonly undescribed: string[] = [];
  private readonly byShape = new Map<string, string>();

  property(s: Json, name: string, root: Json, where: string): PropertySpec {
    const target = s.$ref ? referenced(s.$ref, root.$defs) : undefined;
    const description = describedAs(s) ?? (target && describedAs(target.schema));
    if (!description) this.undescribed.push(where);
    const spec: PropertySpec = { ...this.type(s, name, root, where), description: description ?? "" };
    const scalar = (v: unknown): v is string | number | boolean => ["string", "number", "boolean"].includes(typeof v);
    if (scalar(s.default)) spec.default = s.default;
    if (scalar(s.const)) spec.const = s.const;
    return spec;
  }

  type(s: Json, name: string, root: Json, where: string): TypeSpec {
    if (s.$ref) {
      const target = referenced(s.$ref, root.$defs);
      return !target || target.recursive ? ANY : this.type(target.schema, name, root, where);
    }
    if (s.allOf?.length === 1) return this.type(s.allOf[0], name, root, where);
    if (s.const !== undefined) return primitive(typeof s.const);
    if (s.enum) {
      if (s.enum.every((v): v is string => typeof v === "string")) return this.enumType(s.enum, s.description ?? where, name);
      return primitive(typeof s.enum[0]);
    }
    const variants = s.anyOf ?? s.oneOf ?? (Array.isArray(s.type) ? s.type.map((t) => ({ ...s, type: t })) : undefined);
    if (variants) {
      const tagged = s.discriminator && s.oneOf ? this.taggedUnion(s.oneOf, s.discriminator.propertyName, name, root, where) : undefined;
      if (tagged) return tagged;
      const kept = variants.filter((v) => v.type !== "null");
      const specs = kept.map((v, i) => this.type(v, kept.length > 1 ? `${name}${variantName(v, i)}` : name, root, where));
      const distinct = [...new Map(specs.map((t) => [JSON.stringify(t), t])).values()];
      return distinct.length === 1 ? distinct[0] : { oneOf: distinct };
    }
    switch (s.type) {
      case "string":
      case "number":
      case "integer":
      case "boolean":
        return { type: s.type };
      case "array":
        return { type: "array", items: s.items ? this.type(s.items, singular(name), root, `${where}[]`) : ANY };
      case "object":
        return this.objectType(s, name, root, where);
      default:
        return ANY;
    }
  }

  /**
   * A discriminated union's variants as object types, one per value of the tag `tag` (the variant
   * with its tag fixed to that value), and the mapping from each value to its type; undefined when a
   * variant's tag is not a string of fixed values (Pulumi's mapping is by string).
   */
  private taggedUnion(variants: Json[], tag: string, name: string, root: Json, where: string): TypeSpec | undefined {
    const cases: Array<{ variant: Json; field: Json; value: string }> = [];
    for (const variant of variants) {
      const field = variant.properties?.[tag];
      const values = typeof field?.const === "string" ? [field.const] : field?.enum?.every((v): v is string => typeof v === "string") ? field.enum : undefined;
      if (!field || !values) return undefined;
      for (const value of values) cases.push({ variant, field, value });
    }
    const oneOf: TypeSpec[] = [];
    const mapping: Record<string, string> = {};
    for (const { variant, field, value } of cases) {
      const { enum: _values, ...rest } = field;
      const fixed: Json = {
        ...variant,
        description: variant.description ?? `The ${where} object of ${tag} "${value}".`,
        properties: { ...variant.properties, [tag]: { ...rest, const: value } },
      };
      const ref = this.objectType(fixed, `${name}${pascal(value)}`, root, where);
      oneOf.push(ref);
      if (ref.$ref) mapping[value] = ref.$ref;
    }
    return { oneOf, discriminator: { propertyName: tag, mapping } };
  }

  private objectType(s: Json, name: string, root: Json, where: string): TypeSpec {
    const props = Object.entries(s.properties ?? {});
    if (props.length === 0) {
      const extra = typeof s.additionalProperties === "object" ? s.additionalProperties : undefined;
      if (!extra || Object.keys(extra).length === 0) return ANY;
      return { type: "object", additionalProperties: this.type(extra, `${name}Value`, root, `${where}.*`) };
    }
    const shape = JSON.stringify(s, (k, v: unknown) => (k === "description" ? undefined : v));
    const known = this.byShape.get(shape);
    if (known) return { $ref: `#/types/${known}` };
    const token = this.freeName(name);
    this.byShape.set(shape, token);
    const spec: ObjectTypeSpec = { type: "object", description: s.description ?? `The ${where} object.`, properties: {} };
    this.all[token] = spec; // before its fields: a field of the same shape refers to it
    for (const [field, f] of props) spec.properties[field] = this.property(f, `${name}${pascal(field)}`, root, `${where}.${field}`);
    if (s.required?.length) spec.required = s.required;
    return { $ref: `#/types/${token}` };
  }

  private enumType(values: string[], description: string, name: string): TypeSpec {
    const shape = JSON.stringify(["enum", ...values]);
    let token = this.byShape.get(shape);
    if (!token) {
      token = this.freeName(name);
      this.byShape.set(shape, token);
      this.all[token] = { type: "string", description, enum: values.map((value) => ({ value })) };
    }
    return { $ref: `#/types/${token}` };
  }

  private freeName(name: string): string {
    let token = resourceToken(name);
    for (let n = 2; token in this.all; n++) token = resourceToken(`${name}${n}`);
    return token;
  }
}

function primitive(t: string): TypeSpec {
  return t === "string" || t === "number" || t === "boolean" ? { type: t } : ANY;
}

/** A union variant's part of its type's name: its constant property's value, else its position. */
function variantName(v: Json, i: number): string {
  for (const p of Object.values(v.properties ?? {})) if (typeof p.const === "string") return pascal(p.const);
  return v.type === "object" ? `Variant${i + 1}` : pascal(typeof v.type === "string" ? v.type : `variant${i + 1}`);
}

/** An array's item type name: `SinkColumns` -> `SinkColumn`, else `<name>Item`. */
function singular(name: string): string {
  return /[^s]s$/.test(name) ? name.slice(0, -1) : `${name}Item`;
}

function pascal(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join("");
}
