import type { KindRow } from "../row";
import { CONFIGURATION_ID_FROM, DECLARED_BRANCH, NEW_CONFIGURATION, configurationId, trashOrPurge } from "../row";

export const componentConfigRow = {
  type: "ComponentConfig",
  load: () => import("./kind"),
  resource: "kinds/component-config/resource",
  manifest: { section: "configurations" },
  review: {
    id: (facts) => configurationId(undefined, facts),
    deleted: (facts) => `the configuration ${trashOrPurge(facts)}`,
    replaced: NEW_CONFIGURATION,
  },
  docs: {
    id: "<branch>/<componentId>/<configId>",
    idParts: DECLARED_BRANCH,
    idExample: "default/keboola.ex-generic-v2/12345",
    idFrom: CONFIGURATION_ID_FROM,
    exported: "the configurations of the chosen components (`--components`, default all), with their rows, configId and `adoptExisting: true`",
  },
  drift: { provenance: { configuration: "componentId" } },
} as const satisfies KindRow;
