import { isRecord } from "../../keboola/json";
import type { KeboolaClient } from "../api/client";
import { FLOW_COMPONENT_ID } from "../../keboola/flow";
import { SCHEDULER_COMPONENT_ID } from "../../keboola/scheduler";
import { configOwner, VARIABLES_COMPONENT } from "../lifecycle/configurations";
import { METADATA_PROVIDER, OWNER_KEY, splitMarker } from "../lifecycle/ownership";
import type { ResourceKind } from "../kinds/registry";
import { exportProject } from "../manifest/export";
import type { ManifestInput } from "../manifest/schema";
import { bucketIdOf } from "../validation/storage";
import type { ManagedResource, StackSnapshot } from "./stack";

// `pull --include-new`: objects that exist in the stack's Keboola project but that no resource of
// the stack manages (made in the UI), as manifest entries. They are read by `export` (the same
// entries, `adoptExisting: true`, so the next `up` takes them over and changes nothing in
// Keboola), matched with the stack's resources by their ids, and their references (a table's
// `bucket`, a sink's `source`, a configuration's `variables`, a flow task's `configuration`, a
// schedule's `flow`) pointed at the manifest's own keys. Left out, each with a note:
// - an object that carries another stack's owner marker (it is that stack's: never ours to take);
// - a bucket or table a job made: Keboola's output mapping marks what it creates with the system
//   metadata KBC.createdBy.component.id (keboola/docker-bundle
//   Tests/StorageApiWriterMetadataTest.php: testMetadataWritingTest), and such a table is the
//   data of a configuration, not an object declared beside it; likewise a Stream sink's table
//   (metadata KBC.stream.sink.id of provider `stream`), and a bucket holding only such tables;
// - what refers to an object left out.

export type Section = "buckets" | "tables" | "sources" | "sinks" | "variables" | "configurations" | "flows" | "schedules";

/** In the order an entry's references come before it. */
const SECTIONS: readonly Section[] = ["buckets", "tables", "sources", "sinks", "variables", "configurations", "flows", "schedules"];

export interface NewEntry {
  section: Section;
  key: string;
  entry: Record<string, unknown>;
  /** The object's id in Keboola, for messages. */
  id: string;
}

/** The system metadata Keboola's output mapping puts on the tables (and buckets) a job creates. */
const CREATED_BY_JOB = "KBC.createdBy.component.id";
/** The metadata (provider `stream`) the Stream service puts on a sink's table (emulator/stream/sinkstorage.ts says where). */
const STREAM_SINK = "KBC.stream.sink.id";
const STREAM_SOURCE = "KBC.stream.source.id";

type Entries = Record<string, Record<string, unknown>>;

/** The id an object of a section is known by: from a resource's recorded outputs, or from an export entry (with the export's other entries for its bucket or source). */
function stateId(r: ManagedResource): [Section, string] | undefined {
  const o = r.outputs;
  const s = (k: string) => (typeof o[k] === "string" ? String(o[k]) : undefined);
  const ids: Partial<Record<ResourceKind, () => [Section, string | undefined]>> = {
    bucket: () => ["buckets", s("bucketId")],
    table: () => ["tables", s("tableId")],
    source: () => ["sources", s("sourceId")],
    sink: () => ["sinks", s("sourceId") && s("sinkId") ? `${s("sourceId")}/${s("sinkId")}` : undefined],
    variableConfig: () => ["variables", s("configId")],
    componentConfig: () => ["configurations", s("componentId") && s("configId") ? `${s("componentId")}/${s("configId")}` : undefined],
    flow: () => ["flows", s("configId")],
    schedule: () => ["schedules", s("configId")],
  };
  const found = ids[r.kind]?.();
  return found && found[1] !== undefined ? [found[0], found[1]] : undefined;
}

function exportId(section: Section, entry: Record<string, unknown>, exported: ManifestInput): string {
  const str = (v: unknown) => String(v ?? "");
  switch (section) {
    case "buckets":
      return bucketIdOf(entry.stage === "out" ? "out" : "in", str(entry.name));
    case "tables": {
      const bucket = (exported.buckets ?? {})[str(entry.bucket)];
      return `${bucket ? bucketIdOf(bucket.stage === "out" ? "out" : "in", bucket.name) : str(entry.bucket)}.${str(entry.name)}`;
    }
    case "sources":
      return str(entry.sourceId);
    case "sinks":
      return `${str((exported.sources ?? {})[str(entry.source)]?.sourceId ?? entry.source)}/${str(entry.sinkId)}`;
    case "configurations":
      return `${str(entry.componentId)}/${str(entry.configId)}`;
    default:
      return str(entry.configId);
  }
}

type Metadata = ReadonlyArray<{ key: string; value: string; provider?: string }> | undefined;

/** What made a bucket or table, when its metadata says a job or a Stream sink did (then it is theirs, not declared beside them). */
function madeFor(metadata: Metadata): { by: string; key: string } | undefined {
  const job = metadata?.find((m) => m.provider === "system" && m.key === CREATED_BY_JOB)?.value;
  if (job) return { by: `a job of ${job}`, key: CREATED_BY_JOB };
  const sink = metadata?.find((m) => m.provider === "stream" && m.key === STREAM_SINK)?.value;
  const source = metadata?.find((m) => m.provider === "stream" && m.key === STREAM_SOURCE)?.value;
  if (sink) return { by: `Stream sink ${source ? `${source}/` : ""}${sink}`, key: STREAM_SINK };
  return undefined;
}

/** Why it is not ours to add: another stack's owner marker, or a job's or sink's output. Undefined: it may be added. */
async function notOurs(client: KeboolaClient, branch: string, section: Section, id: string, entry: Record<string, unknown>, ourStack: string): Promise<string | undefined> {
  let owner: string | undefined;
  let made: string | undefined;
  const ownerIn = (metadata: Metadata) => metadata?.find((m) => m.provider === METADATA_PROVIDER && m.key === OWNER_KEY)?.value;
  if (section === "buckets") {
    const bucket = await client.storage.findBucket(branch, id);
    owner = ownerIn(bucket?.metadata);
    const mark = madeFor(bucket?.metadata);
    if (mark) made = `${mark.by} (Storage metadata ${mark.key})`;
    // A bucket whose every table a job or a sink made was made for them (Stream creates the bucket of a sink's table unmarked).
    const tables = made ? [] : ((await client.storage.listBucketTables(branch, id)) ?? []);
    const makers = tables.map((t) => madeFor(t.metadata));
    if (tables.length && makers.every((m) => m !== undefined)) made = `${[...new Set(makers.map((m) => m!.by))].sort().join(", ")}: it holds only their tables (Storage metadata ${[...new Set(makers.map((m) => m!.key))].join(", ")})`;
  } else if (section === "tables") {
    const table = await client.storage.findTableDetail(branch, id);
    owner = ownerIn(table?.metadata);
    const mark = madeFor(table?.metadata);
    if (mark) made = `${mark.by} (Storage metadata ${mark.key})`;
  } else if (section === "sources" || section === "sinks") {
    const stream = await client.stream();
    const found = section === "sources" ? await stream.findSource(branch, id) : await stream.findSink(branch, ...(id.split("/") as [string, string]));
    owner = splitMarker(found?.description).owner;
  } else {
    const componentId = section === "configurations" ? String(entry.componentId) : section === "variables" ? VARIABLES_COMPONENT : section === "flows" ? FLOW_COMPONENT_ID : SCHEDULER_COMPONENT_ID;
    const configId = String(entry.configId);
    owner = await configOwner(client.storage, { branch, componentId, configId }, await client.storage.getConfig(branch, componentId, configId));
  }
  if (made) return `made by ${made}`;
  // An owner URN is urn:pulumi:<stack>::<project>::...: another stack's object is never taken.
  const stack = owner?.replace(/^urn:pulumi:/, "").split("::")[0];
  if (owner && stack !== ourStack) return `it belongs to stack ${stack} (its owner marker)`;
  return undefined;
}

/** Rewrites an export entry's references from export keys to the manifest's keys; undefined names a reference to an object left out. */
function remap(section: Section, entry: Record<string, unknown>, keyOf: (section: Section, exportKey: string) => string | undefined): { entry: Record<string, unknown>; missing?: string } {
  const out = structuredClone(entry);
  const missing: string[] = [];
  const ref = (target: Section, holder: Record<string, unknown>, field: string) => {
    if (typeof holder[field] !== "string") return;
    const key = keyOf(target, holder[field] as string);
    if (key === undefined) missing.push(`${field} ${String(holder[field])}`);
    else holder[field] = key;
  };
  if (section === "tables") ref("buckets", out, "bucket");
  if (section === "sinks") ref("sources", out, "source");
  if (section === "configurations") {
    ref("variables", out, "variables");
    for (const row of Array.isArray(out.rows) ? out.rows : []) if (isRecord(row)) ref("variables", row, "variables");
  }
  if (section === "flows") {
    for (const phase of Array.isArray(out.phases) ? out.phases : []) {
      for (const task of isRecord(phase) && Array.isArray(phase.tasks) ? phase.tasks : []) if (isRecord(task)) ref("configurations", task, "configuration");
    }
  }
  if (section === "schedules") {
    ref("flows", out, "flow");
    ref("configurations", out, "configuration");
  }
  return missing.length ? { entry: out, missing: missing.join(", ") } : { entry: out };
}

/**
 * The entries to add for objects of the default branch that the stack does not manage. `taken`:
 * the keys the manifest already uses, per section (a new entry gets another).
 */
export async function newEntries(client: KeboolaClient, snapshot: StackSnapshot, taken: (section: Section) => ReadonlySet<string>): Promise<{ entries: NewEntry[]; notes: string[] }> {
  const exported = (await exportProject(client, { branch: "default" })).manifest;
  const known = new Map<string, string>(); // `<section> <id>` -> the manifest key of the resource managing it
  for (const r of snapshot.resources) {
    const id = stateId(r);
    if (id) known.set(`${id[0]} ${id[1]}`, r.name);
  }
  const keys = new Map<string, string | undefined>(); // `<section> <export key>` -> our key (undefined: left out)
  const keyOf = (section: Section, exportKey: string) => keys.get(`${section} ${exportKey}`);
  const entries: NewEntry[] = [];
  const notes: string[] = [];
  for (const section of SECTIONS) {
    const used = new Set(taken(section));
    for (const [exportKey, raw] of Object.entries((exported[section] ?? {}) as Entries)) {
      const id = exportId(section, raw, exported);
      const ours = known.get(`${section} ${id}`);
      if (ours !== undefined) {
        keys.set(`${section} ${exportKey}`, ours);
        continue;
      }
      keys.set(`${section} ${exportKey}`, undefined);
      const why = await notOurs(client, "default", section, id, raw, snapshot.stack);
      if (why) {
        notes.push(`${section} ${id}: not added, ${why}`);
        continue;
      }
      const { entry, missing } = remap(section, raw, keyOf);
      if (missing) {
        notes.push(`${section} ${id}: not added, it refers to what is not added (${missing})`);
        continue;
      }
      let key = exportKey;
      for (let n = 2; used.has(key); n++) key = `${exportKey}-${n}`;
      used.add(key);
      keys.set(`${section} ${exportKey}`, key);
      entries.push({ section, key, entry, id });
      if (isRecord(entry.secrets)) {
        for (const [p, configKey] of Object.entries(entry.secrets)) notes.push(`${section}.${key}.${p}: a # value Keboola holds in plain text, not written; set it with \`pulumi config set --secret ${String(configKey)} <value>\` before the next up`);
      }
    }
  }
  return { entries, notes };
}
