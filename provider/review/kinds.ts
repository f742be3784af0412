import type { JsonValue } from "../../keboola/json";
import { KINDS, type KindRow, type KindTable } from "../kinds/registry";

// What the review knows of each kind of resource, from the kinds table (kinds/registry.ts): its
// place in the report (the table's order), how its Keboola id reads, and what deleting or replacing
// it does in Keboola (each kind's row says it, beside the kind that implements it).

/** The kinds' class names in the table's order: the review's order. */
export function reviewOrder(table: KindTable = KINDS): string[] {
  return Object.values(table).map((row) => row.type);
}

export const KIND_ORDER: readonly string[] = reviewOrder();

/** Our kinds in KIND_ORDER, then other packages' resources. */
export function kindRank(kind: string | undefined): number {
  const i = KIND_ORDER.findIndex((k) => k === kind);
  return i === -1 ? KIND_ORDER.length : i;
}

type Facts = Record<string, JsonValue | undefined>;

const rowOf = (kind: string, table: KindTable): KindRow | undefined => Object.values(table).find((row) => row.type === kind);

/** The Keboola id a resource's facts (inputs over recorded outputs) give, when they give one. */
export function keboolaId(kind: string, facts: Facts, table: KindTable = KINDS): string | undefined {
  return rowOf(kind, table)?.review.id(facts);
}

/** What deleting an object of this kind does in Keboola (its kind's `delete`). */
export function deleteEffect(kind: string, facts: Facts, table: KindTable = KINDS): string {
  return rowOf(kind, table)?.review.deleted(facts) ?? "the object is deleted";
}

/** What replacing an object of this kind does in Keboola. */
export function replaceEffect(kind: string, table: KindTable = KINDS): string {
  return rowOf(kind, table)?.review.replaced ?? "a new object is created and the old one deleted";
}
