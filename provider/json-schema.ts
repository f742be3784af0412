import { z } from "zod";

// The kinds' zod schemas as JSON Schema (z.toJSONSchema), the way the two documents made from
// them read it: schema.json (plugin/package-schema.ts) and the reference docs (scripts/gen-docs.ts).

/** A JSON Schema node as zod writes it: the keywords those readers use. */
export interface JsonSchema {
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  /** A discriminated union's tag (OpenAPI's keyword: JSON Schema has none), see jsonSchemaOf. */
  discriminator?: { propertyName: string };
  minItems?: number;
  maxItems?: number;
}

/** A schema's JSON Schema as it reads (`input`: what a program writes) or comes out (`output`). */
export function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  // zod writes a discriminated union as a plain `oneOf`, so the field that tells its variants
  // apart would be lost on the way; the package schema names it to Pulumi (package-schema.ts).
  // zod's own type is every keyword of every draft; JsonSchema names the ones read here.
  return z.toJSONSchema(schema, {
    io,
    unrepresentable: "any",
    override: ({ zodSchema, jsonSchema }) => {
      if (zodSchema instanceof z.core.$ZodDiscriminatedUnion) jsonSchema.discriminator = { propertyName: zodSchema._zod.def.discriminator };
    },
  }) as JsonSchema;
}

/** A field's description: its own, else the one its single variant carries. */
export function describedAs(f: JsonSchema): string | undefined {
  return f.description ?? (f.allOf?.length === 1 ? f.allOf[0].description : undefined);
}

/**
 * The definition a `$ref` names among `defs`, and whether it refers to itself. The only shared
 * definitions zod writes for these schemas are recursive ones: JSON values.
 */
export function referenced(ref: string, defs: Record<string, JsonSchema> | undefined): { schema: JsonSchema; recursive: boolean } | undefined {
  const name = ref.replace(/^#\/\$defs\//, "");
  const schema = defs?.[name];
  return schema && { schema, recursive: JSON.stringify(schema).includes(`"#/$defs/${name}"`) };
}
