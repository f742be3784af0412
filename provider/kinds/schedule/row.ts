import type { KindRow } from "../row";
import { CONFIGURATION_ID_FROM, NEW_CONFIGURATION, configurationId, trashOrPurge } from "../row";
import { SCHEDULER_COMPONENT_ID } from "../../../keboola/scheduler";


export const scheduleRow = {
  type: "Schedule",
  load: () => import("./kind"),
  resource: "kinds/schedule/resource",
  manifest: { section: "schedules" },
  review: {
    id: (facts) => configurationId(SCHEDULER_COMPONENT_ID, facts),
    deleted: (facts) => `the schedule stops: its activation is removed and its configuration ${trashOrPurge(facts)}`,
    replaced: NEW_CONFIGURATION,
  },
  docs: {
    id: "default/keboola.scheduler/<configId>",
    idParts: "a schedule lives in the default branch only",
    idExample: "default/keboola.scheduler/234",
    idFrom: CONFIGURATION_ID_FROM,
    exported: "every schedule, naming its flow or configuration by key, with its configId and `adoptExisting: true`",
  },
  // The Scheduler API serves the default branch only.
  drift: { provenance: { configuration: SCHEDULER_COMPONENT_ID, branch: "default" } },
} as const satisfies KindRow;
