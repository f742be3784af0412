import type { AnyDefinition } from "./resources/define";
import { KINDS, KIND_NAMES } from "./kinds/table";

// Every resource's definition (its one schema with the derived pieces), for schema.json and
// documentation: one per row of the kinds table, in its order.

export const CATALOG: readonly AnyDefinition[] = KIND_NAMES.map((kind) => (require(`./resources/${KINDS[kind].file}`) as { definition: AnyDefinition }).definition);
