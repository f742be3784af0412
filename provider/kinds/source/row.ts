import type { KindRow } from "../row";
import { STREAM_BRANCH, str } from "../row";

export const sourceRow = {
  type: "Source",
  load: () => import("./kind"),
  resource: "kinds/source/resource",
  manifest: { section: "sources" },
  review: {
    id: (facts) => str(facts.sourceId),
    deleted: () => "its ingestion URL stops accepting events, and the service deletes its sinks and their settings with it",
    replaced: "a new source is created, with a new ingestion URL, and the old one deleted (its URL stops accepting events)",
  },
  docs: {
    id: "<branchId>/<sourceId>",
    idParts: STREAM_BRANCH,
    idExample: "101/app-events",
    idFrom: "`idOf` in provider/kinds/source/kind.ts",
    exported: "every source, with its sourceId and `adoptExisting: true`",
  },
  drift: { provenance: "stream" },
} as const satisfies KindRow;
