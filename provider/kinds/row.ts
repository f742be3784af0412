import type { JsonValue } from "../../keboola/json";
import type { KindModule } from "../lifecycle/dispatch";
import { UNKNOWN } from "../validation/check";

// What one row of the kinds table (registry.ts) says of a kind: everything about it that a list of
// kinds elsewhere needs and its schema cannot say. Each kind's folder holds its row (row.ts), light
// on purpose (it imports neither the kind's schema nor its class): the table loads every row, a
// process loads a kind's schema and lifecycle only when it runs one of its methods.

/** A resource's facts as the review reads them: its inputs over its recorded outputs. */
export type Facts = Readonly<Record<string, JsonValue | undefined>>;

/** How a keboola.yaml manifest produces a kind. */
export type ManifestPlace =
  /** Each entry of a section of its own. */
  | { section: string }
  /** A field of another section's entries (a source's `settings`). */
  | { nestedIn: string; field: string }
  /** Not from any entry: from stack config. */
  | { stackConfig: string };

/** Where drift learns who changed an object last: a configuration's current version, a Stream entity's version, a table's last change. */
export type Provenance =
  /** A configuration of this component (`componentId`: of the one its state names), in its branch (or the one given). */
  | { configuration: string; branch?: "default" }
  | "stream"
  | "table"
  | "none";

export interface KindRow {
  /** Its class name, and its type token's last part (`keboola:index:Source`). */
  type: string;
  /** Its schema and lifecycle, loaded on first use: a process running only sources never loads the jsonnet engine. */
  load(): Promise<KindModule>;
  /** Its class's module under provider/ (the package index exports it). */
  resource: string;
  /** How a manifest produces it. */
  manifest: ManifestPlace;
  /** What the review report says of its objects (provider/review/). */
  review: {
    /** The Keboola id its facts give, when they give one. */
    id(facts: Facts): string | undefined;
    /** What deleting an object of it does in Keboola. */
    deleted(facts: Facts): string;
    /** What replacing one does in Keboola. */
    replaced: string;
  };
  /** Its reference page's facts (docs/resources/, scripts/gen-docs.ts). */
  docs: {
    /** The Pulumi resource id that create returns and read (and `pulumi import`) takes, its parts in angle brackets. */
    id: string;
    /** What the id's parts are. */
    idParts: string;
    /** An id of that format, for the reference page's `pulumi import` example (test/unit/reference-docs.test.ts matches it to the format). */
    idExample: string;
    /** What `pulumi import` through the provider plugin reads besides the id says, where that narrows it (a branch, a job's state). */
    importNote?: string;
    /** Where the handler makes it, for whoever changes it. */
    idFrom: string;
    /** What `keboola-pulumi export` writes of the kind. */
    exported: string;
    /** What a replacement amounts to, where it is not a new object made and the old one deleted. */
    replacement?: string;
  };
  /** What drift reads besides the kind's own read. */
  drift: { provenance: Provenance };
}

// Pieces the rows share.

/** A fact's text, when it is known text. */
export const str = (v: JsonValue | undefined): string | undefined => (typeof v === "string" && v !== UNKNOWN ? v : undefined);

/** The id of a configuration of a fixed component (or of the one the facts name). */
export const configurationId = (component: string | undefined, facts: Facts): string | undefined => {
  const c = component ?? str(facts.componentId);
  const id = str(facts.configId);
  return c && id ? `${c}/${id}` : undefined;
};

/** What deleting a configuration does: to the trash, or purged. */
export const trashOrPurge = (facts: Facts): string => (facts.purgeOnDelete === true ? "is purged (`purgeOnDelete: true`: it cannot be restored)" : "goes to Keboola's trash (restorable there)");

export const STREAM_BRANCH = "`<branchId>` is the numeric id of the branch as the Stream service reports it (the default branch's id too, never `default`)";
export const DECLARED_BRANCH = "`<branch>` is the branch as declared (`default` or a numeric development-branch id)";
export const CONFIGURATION_ID_FROM = "`configResourceId` in provider/lifecycle/configurations.ts";
export const NEW_CONFIGURATION = "a new configuration is created under the new id and the old one deleted";
