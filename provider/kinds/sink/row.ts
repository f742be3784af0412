import type { KindRow } from "../row";
import { STREAM_BRANCH, str } from "../row";

export const sinkRow = {
  type: "Sink",
  load: () => import("./kind"),
  resource: "kinds/sink/resource",
  manifest: { section: "sinks" },
  review: {
    id: (facts) => {
      const source = str(facts.sourceId);
      const sink = str(facts.sinkId);
      return source && sink ? `${source}/${sink}` : undefined;
    },
    deleted: (facts) => `events stop flowing into ${str(facts.tableId) ? `\`${str(facts.tableId)}\`` : "its table"} (the table and its rows stay)`,
    replaced: "a new object is created and the old one deleted",
  },
  docs: {
    id: "<branchId>/<sourceId>/<sinkId>",
    idParts: STREAM_BRANCH,
    idExample: "101/app-events/raw",
    idFrom: "`idOf` in provider/kinds/sink/kind.ts",
    exported: "every sink, with its sinkId and `adoptExisting: true`, under its source's key",
  },
  drift: { provenance: "stream" },
} as const satisfies KindRow;
