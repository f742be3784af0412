import type { KindRow } from "../row";
import { DECLARED_BRANCH, str } from "../row";

const review = (id: KindRow["review"]["id"]): KindRow["review"] => ({
  id,
  deleted: () => "the settings it manages go back to the service defaults",
  replaced: "a new object is created and the old one deleted",
});

export const sourceSettingsRow = {
  type: "SourceSettings",
  load: () => import("./source-settings"),
  resource: "kinds/settings/resource",
  manifest: { nestedIn: "sources", field: "settings" },
  review: review((facts) => str(facts.sourceId)),
  docs: {
    id: "<branch>/<sourceId>/settings",
    idParts: DECLARED_BRANCH,
    idExample: "default/app-events/settings",
    importNote: "The imported settings manage the keys Keboola reports as set on the source.",
    idFrom: "`idOf` in provider/kinds/settings/handler.ts",
    exported: "the settings of each source that differ from the defaults, as the source's `settings`",
  },
  drift: { provenance: "stream" },
} as const satisfies KindRow;

export const sinkSettingsRow = {
  type: "SinkSettings",
  load: () => import("./sink-settings"),
  resource: "kinds/settings/resource",
  manifest: { nestedIn: "sinks", field: "settings" },
  review: review((facts) => {
    const source = str(facts.sourceId);
    const sink = str(facts.sinkId);
    return source && sink ? `${source}/${sink}` : undefined;
  }),
  docs: {
    id: "<branch>/<sourceId>/<sinkId>/settings",
    idParts: DECLARED_BRANCH,
    idExample: "default/app-events/raw/settings",
    importNote: "The imported settings manage the keys Keboola reports as set on the sink.",
    idFrom: "`idOf` in provider/kinds/settings/handler.ts",
    exported: "the settings of each sink that differ from the defaults, as the sink's `settings`",
  },
  drift: { provenance: "stream" },
} as const satisfies KindRow;
