import { z } from "zod";
import { SECTIONS, sectionsShape } from "./sections";
import { configSectionSchema } from "./config-values";

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
  return { ...schema, title: "keboola.yaml" };
}
