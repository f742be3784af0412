import { clientFor, type ClientSettings, type KeboolaClient } from "../api/client";
import { layered, resolveSettings, type ConfigSource } from "../config";
import { runMethod } from "../lifecycle/dispatch";
import { KINDS, type KindRow, type KindTable } from "../kinds/registry";
import { ownerOfUrn } from "../lifecycle/ownership";
import { withoutHidden } from "../dynamic/props";
import { isRecord } from "../../keboola/json";
import type { Props } from "../lifecycle/types";
import type { ManagedResource, StackSnapshot } from "./stack";

// What Keboola holds now for each managed resource: the kind's own `read`, the same call a
// `pulumi refresh` makes (so drift and refresh never disagree); and for the objects that drifted,
// where Keboola records it, who changed them last, when, and with what change description.
// Nothing is written.

export interface Provenance {
  at?: string;
  by?: string;
  description?: string;
}

export type Live =
  | { state: "found"; id: string; props: Props; inputs: Props }
  | { state: "gone" }
  | { state: "error"; message: string };

/** The reads run this many at a time (as Pulumi's default parallelism would). */
const PARALLEL = 8;

export type ClientOf = (r: ManagedResource) => KeboolaClient;

/**
 * The settings a resource is read with, as its provider has them: an explicit provider's own
 * arguments, then the stack's config, then the environment (config.ts resolveSettings).
 */
export function settingsOf(snapshot: StackSnapshot, r: Pick<ManagedResource, "providerInputs">, env: NodeJS.ProcessEnv = process.env): ClientSettings {
  const own = r.providerInputs ?? {};
  const explicit: ConfigSource = {
    get(key) {
      const v = own[key.replace(/^keboola:/, "")];
      return typeof v === "string" ? v : typeof v === "number" ? String(v) : undefined;
    },
  };
  return resolveSettings(layered(explicit, { get: (key) => snapshot.config[key] }), env);
}

/** A client per distinct setting: the stack's config, or an explicit provider's own host and token. */
export function clientsOf(snapshot: StackSnapshot, env: NodeJS.ProcessEnv = process.env): ClientOf {
  return (r) => clientFor(settingsOf(snapshot, r, env));
}

/** The client of the stack's own config (keboola:host, keboola:token): its default provider's. */
export function stackClient(snapshot: StackSnapshot, env: NodeJS.ProcessEnv = process.env): KeboolaClient {
  return clientFor(settingsOf(snapshot, {}, env));
}

/** Runs `work` on every item, PARALLEL at a time. */
async function eachParallel<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  const worker = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, queue.length) }, worker));
}

/** A resource as drift reads it: what the state names (its kind a key of the kinds table). */
export type ReadResource = Pick<ManagedResource, "urn" | "name" | "id" | "outputs"> & { kind: string };

/** Each resource's kind's own read, as a refresh runs it (`table`: the kinds table, which the tests extend). */
export async function readLive<R extends ReadResource>(resources: readonly R[], clientOf: (r: R) => KeboolaClient, table: KindTable = KINDS): Promise<Map<string, Live>> {
  const out = new Map<string, Live>();
  await eachParallel(resources, async (r) => {
    out.set(r.urn, await readOne(r, table[r.kind], clientOf(r)));
  });
  return out;
}

/**
 * Who changed each drifted object last, asked only of those (an object that did not drift needs
 * none, and its answer would cost a request more per object). Unknown when Keboola cannot say.
 */
export async function provenanceOfChanged(drift: ReadonlyArray<{ resource: ManagedResource; status: string; found?: { props: Props }; provenance?: Provenance }>, clientOf: ClientOf, table: KindTable = KINDS): Promise<void> {
  await eachParallel(
    drift.filter((d) => d.status === "changed" && d.found),
    async (d) => {
      const provenance = await provenanceOf(d.resource, table[d.resource.kind], d.found!.props, clientOf(d.resource)).catch(() => undefined);
      if (provenance) d.provenance = provenance;
    },
  );
}

async function readOne(r: ReadResource, row: KindRow | undefined, client: KeboolaClient): Promise<Live> {
  if (!row) return { state: "error", message: `no kind "${r.kind}" in this version` };
  try {
    // The read a refresh makes, for the resource the state names (its owner from its URN, as both doors know it).
    const call = { name: r.name, urn: r.urn, owner: ownerOfUrn(r.urn), facts: {}, importing: false, preview: false };
    const read = await runMethod(await row.load(), "read", { call, client: () => client }, { id: r.id, recorded: withoutHidden(r.outputs) });
    if (!read.id || !read.props) return { state: "gone" };
    return { state: "found", id: read.id, props: read.props, inputs: read.inputs ?? read.props };
  } catch (err) {
    return { state: "error", message: err instanceof Error ? err.message : String(err) };
  }
}

const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);

/** Who, when and why, from the object's own record: a configuration's current version, a Stream entity's version, a table's last change. */
async function provenanceOf(r: ManagedResource, row: KindRow | undefined, props: Props, client: KeboolaClient): Promise<Provenance | undefined> {
  const branch = str(props.branchId) ?? "default";
  const config = async (componentId: string | undefined, configId: string | undefined, inBranch = branch): Promise<Provenance | undefined> => {
    if (!componentId || !configId) return undefined;
    const c = await client.storage.getConfig(inBranch, componentId, configId);
    const v = c.currentVersion;
    if (!v) return undefined;
    const who = v.creatorToken ? `${v.creatorToken.description ?? "token"}${v.creatorToken.id !== undefined ? ` (token ${String(v.creatorToken.id)})` : ""}` : undefined;
    return { ...(v.created ? { at: v.created } : {}), ...(who ? { by: who } : {}), ...(v.changeDescription ? { description: v.changeDescription } : {}) };
  };
  const stream = async (): Promise<Provenance | undefined> => {
    const s = await client.stream();
    const sourceId = str(props.sourceId);
    if (!sourceId) return undefined;
    const sinkId = str(props.sinkId);
    const entity = sinkId ? await s.getSink(branch, sourceId, sinkId) : await s.getSource(branch, sourceId);
    const v = isRecord(entity) && isRecord(entity.version) ? entity.version : undefined;
    if (!v) return undefined;
    const by = isRecord(v.by) ? (str(v.by.tokenDesc) ?? str(v.by.userName) ?? str(v.by.type)) : undefined;
    return { ...(str(v.at) ? { at: str(v.at) } : {}), ...(by ? { by } : {}), ...(str(v.description) ? { description: str(v.description) } : {}) };
  };
  // What the kind's row says Keboola records of who changed one of its objects.
  const from = row?.drift.provenance ?? "none";
  if (from === "stream") return stream();
  if (from === "table") {
    const t = await client.storage.findTable(branch, str(props.tableId) ?? r.id);
    return t?.lastChangeDate ? { at: t.lastChangeDate } : undefined;
  }
  if (from === "none") return undefined;
  return config(from.configuration === "componentId" ? str(props.componentId) : from.configuration, str(props.configId), from.branch ?? branch);
}
