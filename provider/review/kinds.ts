import type { JsonValue } from "../../keboola/json";
import { isOneOf } from "../../keboola/json";
import { BUCKET_STAGES, bucketIdOf, tableIdOf } from "../../keboola/storage";
import { UNKNOWN } from "./values";

// What the review knows of each kind of resource: its place in the report, how its Keboola id
// reads, and what deleting or replacing it does in Keboola (as the kinds under provider/kinds/
// implement it). Branch is the kind of a development branch (inputs `name`,
// `description`, output `branchId`). test/review/kinds.test.ts holds this list against the kinds
// table (provider/lifecycle/kinds.ts), so a new kind is placed here before it ships.

export const KIND_ORDER = [
  "Branch",
  "Source",
  "SourceSettings",
  "Sink",
  "SinkSettings",
  "Bucket",
  "Table",
  "VariableConfig",
  "ComponentConfig",
  "Flow",
  "Schedule",
  "JobRun",
] as const;

/** Our kinds in KIND_ORDER, then other packages' resources. */
export function kindRank(kind: string | undefined): number {
  const i = KIND_ORDER.findIndex((k) => k === kind);
  return i === -1 ? KIND_ORDER.length : i;
}

/** The component of configurations whose kind fixes it. */
export const FIXED_COMPONENT: Readonly<Record<string, string>> = {
  VariableConfig: "keboola.variables",
  Flow: "keboola.flow",
  Schedule: "keboola.scheduler",
};

type Facts = Record<string, JsonValue | undefined>;

const str = (v: JsonValue | undefined): string | undefined => (typeof v === "string" && v !== UNKNOWN ? v : undefined);

/** The Keboola id a resource's facts (inputs over recorded outputs) give, when they give one. */
export function keboolaId(kind: string, facts: Facts): string | undefined {
  switch (kind) {
    case "Branch":
      return str(facts.branchId) ?? (typeof facts.branchId === "number" ? String(facts.branchId) : undefined);
    case "Source":
    case "SourceSettings":
      return str(facts.sourceId);
    case "Sink":
    case "SinkSettings": {
      const source = str(facts.sourceId);
      const sink = str(facts.sinkId);
      return source && sink ? `${source}/${sink}` : undefined;
    }
    case "Bucket": {
      const stage = str(facts.stage);
      const name = str(facts.name);
      return str(facts.bucketId) ?? (isOneOf(BUCKET_STAGES, stage) && name ? bucketIdOf(stage, name) : undefined);
    }
    case "Table": {
      const bucket = str(facts.bucketId);
      const name = str(facts.name);
      return str(facts.tableId) ?? (bucket && name ? tableIdOf(bucket, name) : undefined);
    }
    case "JobRun":
      return str(facts.jobId) ? `job ${str(facts.jobId)}` : undefined;
    default: {
      const component = FIXED_COMPONENT[kind] ?? str(facts.componentId);
      const config = str(facts.configId);
      return component && config ? `${component}/${config}` : undefined;
    }
  }
}

/** What deleting an object of this kind does in Keboola (provider/kinds/<kind>.ts `delete`). */
export function deleteEffect(kind: string, facts: Facts): string {
  const trash = facts.purgeOnDelete === true ? "is purged (`purgeOnDelete: true`: it cannot be restored)" : "goes to Keboola's trash (restorable there)";
  switch (kind) {
    case "Branch":
      return "the development branch and everything in it are deleted";
    case "Source":
      return "its ingestion URL stops accepting events, and the service deletes its sinks and their settings with it";
    case "Sink":
      return `events stop flowing into ${str(facts.tableId) ? `\`${str(facts.tableId)}\`` : "its table"} (the table and its rows stay)`;
    case "SourceSettings":
    case "SinkSettings":
      return "the settings it manages go back to the service defaults";
    case "Bucket":
      return facts.forceDelete === true ? "the bucket is deleted with every table in it (`forceDelete: true`)" : "the bucket is deleted (refused while it holds tables this stack does not manage)";
    case "Table":
      return "the table is deleted with all its rows";
    case "JobRun":
      return "nothing happens in Keboola: a job that ran cannot be undone";
    case "Schedule":
      return `the schedule stops: its activation is removed and its configuration ${trash}`;
    default:
      return `the configuration ${trash}`;
  }
}

/** What replacing an object of this kind does in Keboola. */
export function replaceEffect(kind: string): string {
  switch (kind) {
    case "JobRun":
      return "the job runs again";
    case "Source":
      return "a new source is created, with a new ingestion URL, and the old one deleted (its URL stops accepting events)";
    case "Table":
      return "a new table is created and the old one deleted with its rows (only declared `data` is loaded into the new one)";
    case "Bucket":
      return "a new bucket is created and the old one deleted";
    case "Branch":
      return "a new development branch is created and the old one deleted with everything in it";
    case "Sink":
    case "SourceSettings":
    case "SinkSettings":
      return "a new object is created and the old one deleted";
    default:
      return "a new configuration is created under the new id and the old one deleted";
  }
}
