import { z } from "zod";
import { settingsShape } from "../validation/settings";
import { optionalBranchSchema } from "../validation/ids";

// What a section of keboola.yaml is, for the kind whose entries it holds: the shape of an entry
// (the kind's own inputs, with references naming other entries by their manifest key), which of
// its fields are such references, which sections it is declared after, and how an entry is checked
// against its resource's complete schema. Each kind with a section of its own says it beside itself
// (provider/kinds/<kind>/manifest.ts), and declares its entries as resources in declare.ts there;
// provider/manifest/sections.ts and declare-sections.ts, generated from the kinds table
// (scripts/gen-kinds.ts), put the sections together: the manifest's schema (schema.ts), its
// reading (parse.ts) and its deployment (deploy.ts) are derived from them.

/** A manifest key: also the Pulumi resource name of the entry. */
export const keySchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "must start with a letter or digit and hold only letters, digits, '.', '_' and '-'");

/** A field naming an entry of another section by its key. */
export const reference = (section: string, what: string) =>
  z.string({ error: `must be the key of an entry under ${section}` }).min(1, "must not be empty").describe(`${what}: the key of an entry under \`${section}\`.`);

/**
 * An entry's fields with its branchId optional: an entry that names no branch lives in the
 * stack's development branch when stack config keboola:branch names one (kinds/branch/resource.ts
 * stackBranch), which the default the resource's schema fills in would hide.
 */
export function inStackBranch<S extends z.ZodRawShape>(shape: S): Omit<S, "branchId"> & { branchId: typeof optionalBranchSchema } {
  return { ...shape, branchId: optionalBranchSchema };
}

/** Stream settings nested in a source or sink entry (SourceSettings / SinkSettings inputs). */
export const settingsSchema = z
  .object(settingsShape)
  .strict()
  .describe("Trigger settings (SourceSettings / SinkSettings): only the keys set are managed.");

/** Stands in for a reference when an entry is checked against its resource's schema: only the entry's own fields can fail. */
export const PLACEHOLDER = "manifest-reference";

/** A field of an entry (or of each of its rows, or of each task of each of its phases) that names an entry of `target`. */
export interface SectionReference {
  field: string;
  target: string;
  inRows?: true;
  inTasks?: true;
}

/** An entry checked against a resource's complete schema (refinements included), once its references resolve. */
export interface EntryCheck {
  schema: z.ZodType;
  /** The entry as that resource's inputs, each reference a placeholder. */
  toInputs(entry: Record<string, unknown>): unknown;
}

export interface ManifestSection<E extends z.ZodType = z.ZodType> {
  /** Its key in keboola.yaml, e.g. `sinks`. */
  name: string;
  /** An entry in messages ("a map of key to sink"). */
  what: string;
  /** The section's description (keboola.schema.json). */
  description: string;
  entry: E;
  references: readonly SectionReference[];
  /** Sections declared before this one besides those it references (a sink is checked against a table of the manifest it writes). */
  after?: readonly string[];
  checks: readonly EntryCheck[];
}

/** A section, its entry's type kept. */
export function defineSection<E extends z.ZodType>(section: ManifestSection<E>): ManifestSection<E> {
  return section;
}

/**
 * `options:` of an entry: Pulumi's resource options by Pulumi YAML's names
 * (pulumi.com/docs/iac/languages-sdks/yaml/yaml-language-reference, "Resource options"), one entry
 * at a time (provider/manifest/entry-options.ts applies them).
 */
export const entryOptionsSchema = z
  .object({
    protect: z.boolean().optional().describe("Refuse to delete the object: `pulumi destroy` and removing the entry fail until this is false."),
    retainOnDelete: z.boolean().optional().describe("Removing the entry (or destroy) forgets the object and leaves it in Keboola."),
    ignoreChanges: z.array(z.string().min(1, "must not be empty")).optional().describe("Property paths of the entry (e.g. configuration.parameters.limit) whose changes `up` leaves alone, and drift lists as ignored."),
    dependsOn: z.array(z.string().min(1, "must not be empty")).optional().describe("Keys of other entries this one is created after (and deleted before)."),
    deleteBeforeReplace: z.boolean().optional().describe("When the object must be replaced, delete it first (the name is kept unique)."),
  })
  .strict()
  .describe("Pulumi resource options for this entry's resources (Pulumi YAML's names).");

/** The schema of a section: a map of key to entry (the kind's fields and `options`), optional. */
export function sectionSchema<S extends z.ZodRawShape, C extends z.core.$ZodObjectConfig>(section: ManifestSection<z.ZodObject<S, C>>) {
  // extend() makes a new schema without the entry's description, which the docs and keboola.schema.json show.
  const extended = section.entry.extend({ options: entryOptionsSchema.optional() });
  const entry = section.entry.description === undefined ? extended : extended.describe(section.entry.description);
  return z.record(keySchema, entry, { error: `must be a map of key to ${section.what}` }).optional().describe(section.description);
}

/**
 * The order sections are declared in: each after the sections it references and those it names in
 * `after`, otherwise in the order given (the kinds table's).
 */
export function declarationOrder(sections: readonly Pick<ManifestSection, "name" | "references" | "after">[]): string[] {
  const names = sections.map((s) => s.name);
  const needs = new Map(sections.map((s) => [s.name, new Set([...s.references.map((r) => r.target), ...(s.after ?? [])].filter((n) => n !== s.name && names.includes(n)))]));
  const order: string[] = [];
  while (order.length < names.length) {
    const next = names.find((n) => !order.includes(n) && [...(needs.get(n) ?? [])].every((d) => order.includes(d)));
    if (next === undefined) throw new Error(`manifest sections reference each other in a circle: ${names.filter((n) => !order.includes(n)).join(", ")}`);
    order.push(next);
  }
  return order;
}
