import type { KindRow } from "../row";
import { str } from "../row";

export const branchRow = {
  type: "Branch",
  load: () => import("./kind"),
  resource: "kinds/branch/resource",
  manifest: { stackConfig: "keboola:branch" },
  review: {
    id: (facts) => str(facts.branchId) ?? (typeof facts.branchId === "number" ? String(facts.branchId) : undefined),
    deleted: () => "the development branch and everything in it are deleted",
    replaced: "a new development branch is created and the old one deleted with everything in it",
  },
  docs: {
    id: "<branchId>",
    idParts: "the development branch's numeric id",
    idExample: "102",
    importNote: "The default branch is no Branch: only a development branch is imported.",
    idFrom: "the handler's `create` in provider/kinds/branch/kind.ts",
    exported: "nothing: export reads one branch (`--branch <id>`) and writes what is in it",
  },
  drift: { provenance: "none" },
} as const satisfies KindRow;
