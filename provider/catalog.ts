import type { AnyDefinition } from "./lifecycle/define";
import { definitionOf } from "./lifecycle/define";
import { KINDS, KIND_NAMES, type KindTable } from "./kinds/registry";
import "./index";

// Every resource's definition (its one schema with the derived pieces), for schema.json and
// documentation: one per row of the kinds table (kinds/registry.ts), in its order.

/** The definitions of a table's kinds, each loaded as the doors load it. */
export async function catalogOf(table: KindTable = KINDS): Promise<AnyDefinition[]> {
  return Promise.all(Object.values(table).map(async (row) => (await row.load()).definition));
}

/** The definitions of this package's kinds, at once: loading the package's classes (index.ts) has defined them all. */
export const CATALOG: readonly AnyDefinition[] = KIND_NAMES.map((kind) => {
  const def = definitionOf(KINDS[kind].type);
  if (!def) throw new Error(`The kinds table's ${KINDS[kind].type} has no class exported by provider/index.ts.`);
  return def;
});
