import type { KindRow } from "../row";
import { str } from "../row";

export const jobRunRow = {
  type: "JobRun",
  load: () => import("./kind"),
  resource: "kinds/job-run/resource",
  manifest: { section: "jobs" },
  review: {
    id: (facts) => (str(facts.jobId) ? `job ${str(facts.jobId)}` : undefined),
    deleted: () => "nothing happens in Keboola: a job that ran cannot be undone",
    replaced: "the job runs again",
  },
  docs: {
    id: "<jobId>",
    idParts: "the Queue job's id",
    idExample: "5678",
    importNote: "Only a job that succeeded and ran a stored configuration is imported; nothing runs again.",
    idFrom: "the handler's `create` in provider/kinds/job-run/kind.ts",
    exported: "nothing: job runs are never exported",
    replacement: "Replacing a JobRun runs the job again: a new job starts, and the finished one stays in the Queue's history (deleting a JobRun undoes nothing).",
  },
  drift: { provenance: "none" },
} as const satisfies KindRow;
