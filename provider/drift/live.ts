import { KeboolaClient } from "../api/client";
import { resolveSettings } from "../config";
import { load, invoke } from "../dynamic/runtime";
import { isRecord } from "../../keboola/json";
import { VARIABLES_COMPONENT } from "../lifecycle/configurations";
import { SCHEDULER_COMPONENT_ID } from "../../keboola/scheduler";
import { FLOW_COMPONENT_ID } from "../../keboola/flow";
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
  const made = new Map<string, KeboolaClient>();
  return (r) => {
    const own = r.providerInputs ?? {};
    const get = (key: string) => {
      const name = key.replace(/^keboola:/, "");
      const v = own[name];
      return typeof v === "string" ? v : typeof v === "number" ? String(v) : snapshot.config[key];
    };
    const settings = resolveSettings({ get }, env);
    const key = JSON.stringify(settings);
    let client = made.get(key);
    if (!client) made.set(key, (client = new KeboolaClient(settings)));
    return client;
  };
}

/** The client of the stack's own config (keboola:host, keboola:token): its default provider's. */
export function stackClient(snapshot: StackSnapshot, env: NodeJS.ProcessEnv = process.env): KeboolaClient {
  return new KeboolaClient(resolveSettings({ get: (key: string) => snapshot.config[key] }, env));
}

/** Runs `work` on every item, PARALLEL at a time. */
async function eachParallel<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  const worker = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, queue.length) }, worker));
}

export async function readLive(resources: readonly ManagedResource[], clientOf: ClientOf): Promise<Map<string, Live>> {
  const out = new Map<string, Live>();
  await eachParallel(resources, async (r) => {
    out.set(r.urn, await readOne(r, clientOf(r)));
  });
  return out;
}

/**
 * Who changed each drifted object last, asked only of those (an object that did not drift needs
 * none, and its answer would cost a request more per object). Unknown when Keboola cannot say.
 */
export async function provenanceOfChanged(drift: ReadonlyArray<{ resource: ManagedResource; status: string; found?: { props: Props }; provenance?: Provenance }>, clientOf: ClientOf): Promise<void> {
  await eachParallel(
    drift.filter((d) => d.status === "changed" && d.found),
    async (d) => {
      const provenance = await provenanceOf(d.resource, d.found!.props, clientOf(d.resource)).catch(() => undefined);
      if (provenance) d.provenance = provenance;
    },
  );
}

async function readOne(r: ManagedResource, client: KeboolaClient): Promise<Live> {
  try {
    const read = await invoke(load(r.kind), r.kind, "read", [r.id, r.outputs], { client: () => client });
    if (!read.id || !read.props) return { state: "gone" };
    return { state: "found", id: read.id, props: read.props as Props, inputs: (read.inputs ?? read.props) as Props };
  } catch (err) {
    return { state: "error", message: err instanceof Error ? err.message : String(err) };
  }
}

const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);

/** Who, when and why, from the object's own record: a configuration's current version, a Stream entity's version, a table's last change. */
async function provenanceOf(r: ManagedResource, props: Props, client: KeboolaClient): Promise<Provenance | undefined> {
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
  switch (r.kind) {
    case "componentConfig":
      return config(str(props.componentId), str(props.configId));
    case "variableConfig":
      return config(VARIABLES_COMPONENT, str(props.configId));
    case "flow":
      return config(FLOW_COMPONENT_ID, str(props.configId));
    case "schedule":
      return config(SCHEDULER_COMPONENT_ID, str(props.configId), "default");
    case "source":
    case "sink":
    case "sourceSettings":
    case "sinkSettings":
      return stream();
    case "table": {
      const t = await client.storage.findTable(branch, str(props.tableId) ?? r.id);
      return t?.lastChangeDate ? { at: t.lastChangeDate } : undefined;
    }
    default:
      return undefined;
  }
}
