import { z } from "zod";

// What a walk along a property path reads of a zod schema: the schema a wrapper holds, a pipe's
// input, a union's options, an object's shape, an array's element, a record's values. Read through
// zod's own classes (`instanceof` checks the schema's traits), so the walkers of messages.ts and
// ../manifest/parse.ts read no internals by type assertion.

export type Schema = z.core.$ZodType;

export interface SchemaDef {
  /** zod's `def.type`: "optional", "object", "union", "pipe", ... */
  type: string;
  /** The schema an optional, default, nullable, prefault, readonly or catch wraps. */
  innerType?: Schema;
  /** A pipe's input side. */
  in?: Schema;
  options?: readonly Schema[];
  shape?: Readonly<Record<string, Schema>>;
  element?: Schema;
  valueType?: Schema;
  /** A default's value (what the schema fills in when the value is absent). */
  defaultValue?: unknown;
}

export function schemaDef(schema: Schema): SchemaDef {
  const { type } = schema._zod.def;
  if (
    schema instanceof z.core.$ZodOptional ||
    schema instanceof z.core.$ZodDefault ||
    schema instanceof z.core.$ZodNullable ||
    schema instanceof z.core.$ZodPrefault ||
    schema instanceof z.core.$ZodReadonly ||
    schema instanceof z.core.$ZodCatch
  ) {
    return { type, innerType: schema._zod.def.innerType, ...(schema instanceof z.core.$ZodDefault ? { defaultValue: schema._zod.def.defaultValue } : {}) };
  }
  if (schema instanceof z.core.$ZodPipe) return { type, in: schema._zod.def.in };
  if (schema instanceof z.core.$ZodUnion) return { type, options: schema._zod.def.options };
  if (schema instanceof z.core.$ZodObject) return { type, shape: schema._zod.def.shape };
  if (schema instanceof z.core.$ZodArray) return { type, element: schema._zod.def.element };
  if (schema instanceof z.core.$ZodRecord) return { type, valueType: schema._zod.def.valueType };
  return { type };
}

/** A field's `.describe()` text (what zod's `description` getter reads). */
export function descriptionOf(schema: Schema): string | undefined {
  return z.globalRegistry.get(schema)?.description;
}
