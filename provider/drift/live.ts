import { clientFor, type KeboolaClient } from "../api/client";
import { resolveSettings } from "../config";
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

/** A client per distinct setting: the stack's config, or an explicit provider's own host and token. */
export function clientsOf(snapshot: StackSnapshot, env: NodeJS.ProcessEnv = process.env): ClientOf {
  return (r) => {
    const own = r.providerInputs ?? {};
    const get = (key: string) => {
      const name = key.replace(/^keboola:/, "");
      const v = own[name];
      return typeof v === "string" ? v : typeof v === "number" ? String(v) : snapshot.config[key];
    };
    return clientFor(resolveSettings({ get }, env));
  };
}

/** The client of the stack's own config (keboola:host, keboola:token): its default provider's. */
export function stackClient(snapshot: StackSnapshot, env: NodeJS.ProcessEnv = process.env): KeboolaClient {
  return clientFor(resolveSettings({ get: (key: string) => snapshot.config[key] }, env));
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
