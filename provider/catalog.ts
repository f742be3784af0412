import type { AnyDefinition } from "./lifecycle/define";
import { definitionOf } from "./lifecycle/define";
import { KINDS, KIND_NAMES } from "./kinds/registry";
import "./index";

// Every resource's definition (its one schema with the derived pieces), for schema.json and
// documentation: one per row of the kinds table (lifecycle/kinds.ts), in its order. Loading the
// package's classes (index.ts) defines them all.

export const CATALOG: readonly AnyDefinition[] = KIND_NAMES.map((kind) => {
  const def = definitionOf(KINDS[kind].type);
  if (!def) throw new Error(`The kinds table's ${KINDS[kind].type} has no class exported by provider/index.ts.`);
  return def;
});
