import type { KindRow } from "../row";
import { str } from "../row";
import { isOneOf } from "../../../keboola/json";
import { BUCKET_STAGES, bucketIdOf } from "../../../keboola/storage";

export const bucketRow = {
  type: "Bucket",
  load: () => import("./kind"),
  resource: "kinds/bucket/resource",
  manifest: { section: "buckets" },
  review: {
    id: (facts) => {
      const stage = str(facts.stage);
      const name = str(facts.name);
      return str(facts.bucketId) ?? (isOneOf(BUCKET_STAGES, stage) && name ? bucketIdOf(stage, name) : undefined);
    },
    deleted: (facts) => (facts.forceDelete === true ? "the bucket is deleted with every table in it (`forceDelete: true`)" : "the bucket is deleted (refused while it holds tables this stack does not manage)"),
    replaced: "a new bucket is created and the old one deleted",
  },
  docs: {
    id: "<stage>.c-<name>",
    idParts: "the bucket's id, e.g. `in.c-ref`",
    idExample: "in.c-sales",
    importNote: "The id names no branch: the bucket is read in the default branch.",
    idFrom: "`bucketIdOf` in keboola/storage.ts",
    exported: "every bucket, with `adoptExisting: true`",
  },
  drift: { provenance: "none" },
} as const satisfies KindRow;
