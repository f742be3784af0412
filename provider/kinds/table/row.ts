import type { KindRow } from "../row";
import { str } from "../row";
import { tableIdOf } from "../../../keboola/storage";

export const tableRow = {
  type: "Table",
  load: () => import("./kind"),
  resource: "kinds/table/resource",
  manifest: { section: "tables" },
  review: {
    id: (facts) => {
      const bucket = str(facts.bucketId);
      const name = str(facts.name);
      return str(facts.tableId) ?? (bucket && name ? tableIdOf(bucket, name) : undefined);
    },
    deleted: () => "the table is deleted with all its rows",
    replaced: "a new table is created and the old one deleted with its rows (only declared `data` is loaded into the new one)",
  },
  docs: {
    id: "<bucketId>.<name>",
    idParts: "the table's id, e.g. `in.c-ref.countries`",
    idExample: "in.c-sales.orders",
    importNote: "The id names no branch: the table is read in the default branch, and its rows are not part of the declaration (no `data`).",
    idFrom: "`tableIdOf` in keboola/storage.ts",
    exported: "every table's schema (never its rows), with `adoptExisting: true`",
  },
  drift: { provenance: "table" },
} as const satisfies KindRow;
