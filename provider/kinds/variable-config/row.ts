import type { KindRow } from "../row";
import { CONFIGURATION_ID_FROM, DECLARED_BRANCH, NEW_CONFIGURATION, configurationId, trashOrPurge } from "../row";
import { VARIABLES_COMPONENT } from "../../../keboola/storage";


export const variableConfigRow = {
  type: "VariableConfig",
  load: () => import("./kind"),
  resource: "kinds/variable-config/resource",
  manifest: { section: "variables" },
  review: {
    id: (facts) => configurationId(VARIABLES_COMPONENT, facts),
    deleted: (facts) => `the configuration ${trashOrPurge(facts)}`,
    replaced: NEW_CONFIGURATION,
  },
  docs: {
    id: "<branch>/keboola.variables/<configId>",
    idParts: DECLARED_BRANCH,
    idExample: "default/keboola.variables/678",
    idFrom: CONFIGURATION_ID_FROM,
    exported: "the variables the exported configurations name, with their configId and `adoptExisting: true`",
  },
  drift: { provenance: { configuration: VARIABLES_COMPONENT } },
} as const satisfies KindRow;
