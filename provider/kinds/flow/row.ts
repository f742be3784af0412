import type { KindRow } from "../row";
import { CONFIGURATION_ID_FROM, DECLARED_BRANCH, NEW_CONFIGURATION, configurationId, trashOrPurge } from "../row";
import { FLOW_COMPONENT_ID } from "../../../keboola/flow";


export const flowRow = {
  type: "Flow",
  load: () => import("./kind"),
  resource: "kinds/flow/resource",
  manifest: { section: "flows" },
  review: {
    id: (facts) => configurationId(FLOW_COMPONENT_ID, facts),
    deleted: (facts) => `the configuration ${trashOrPurge(facts)}`,
    replaced: NEW_CONFIGURATION,
  },
  docs: {
    id: "<branch>/keboola.flow/<configId>",
    idParts: DECLARED_BRANCH,
    idExample: "default/keboola.flow/901",
    idFrom: CONFIGURATION_ID_FROM,
    exported: "every flow, its tasks naming the exported configurations by key, with its configId and `adoptExisting: true`",
  },
  drift: { provenance: { configuration: FLOW_COMPONENT_ID } },
} as const satisfies KindRow;
