import type * as dynamic from "@pulumi/pulumi/dynamic";
import type { KeboolaClient } from "../api/client";
import { KeboolaApiError } from "../api/errors";
import { nearest } from "../validation/messages";
import { MAX_SINKS_PER_SOURCE, MAX_SOURCES_PER_BRANCH } from "../validation/ids";
import { describeOwner, splitMarker } from "./ownership";
import { findLiveConfig } from "./configurations";
import type { ProgramFacts } from "./program";
import type { Props, ResourceContext } from "./types";

// What `check` asks the stack before anything is written, so that preview refuses what the
// service would refuse only later, in the middle of an `up`: references that do not exist, ids
// taken by somebody else's object, the service's limits, components the stack does not have.
// Each answers a check failure (property and reason with the fix) or undefined.


type Failure = dynamic.CheckFailure | undefined;

/**
 * A preflight the token may not make (a limited token reading configurations gets 403) checks
 * nothing: the write itself then refuses with the token's own explanation (assertCanManage).
 */
export async function unlessForbidden<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof KeboolaApiError && err.status === 403) return undefined;
    throw err;
  }
}

/** The first failure of the preflights, run one after the other (each asks only when the previous passed). */
export async function firstFailure(...checks: Array<() => Promise<Failure>>): Promise<Failure> {
  return unlessForbidden(
    (async () => {
      for (const check of checks) {
        const failure = await check();
        if (failure) return failure;
      }
      return undefined;
    })(),
  );
}

/** Hidden facts the resource class passed about objects declared in the same program. */
export function programFacts(props: Props): ProgramFacts {
  const f = props.__program;
  return f && typeof f === "object" ? (f as ProgramFacts) : {};
}

/** A resource without a recorded id is new: the checks of ids and limits apply to it. */
export const isNew = (olds: Props, idField: string): boolean => typeof olds[idField] !== "string" || olds[idField] === "";

const cached = new WeakMap<KeboolaClient, Map<string, Promise<unknown>>>();
function once<T>(client: KeboolaClient, key: string, load: () => Promise<T>): Promise<T> {
  let m = cached.get(client);
  if (!m) cached.set(client, (m = new Map()));
  let p = m.get(key) as Promise<T> | undefined;
  if (!p) {
    p = load();
    m.set(key, p);
    p.catch(() => m!.delete(key));
  }
  return p;
}

export async function branchFailure(ctx: ResourceContext, branchId: string): Promise<Failure> {
  if (branchId === "default") return undefined;
  const client = ctx.client();
  const branches = await once(client, "branches", () => client.storage.devBranches());
  if (branches.some((b) => String(b.id) === branchId)) return undefined;
  return {
    property: "branchId",
    reason: `branch ${branchId} does not exist in the project (its branches: ${branches.map((b) => (b.isDefault ? `${b.id} (default)` : String(b.id))).join(", ")}): use "default" or one of these ids`,
  };
}

/** The id a new object would take is free, or ours; and the limit of its parent is not reached. */
function slot(
  kind: "source" | "sink",
  existing: { description: string } | undefined,
  count: number,
  limit: number,
  where: string,
  owner: string | undefined,
  adoptExisting: boolean,
  property: string,
  id: string,
): Failure {
  if (existing) {
    const found = splitMarker(existing.description).owner;
    if (adoptExisting || (owner !== undefined && found === owner)) return undefined;
    return {
      property,
      reason: `${kind} "${id}" already exists ${where} and belongs to ${describeOwner(found)}; this resource is ${describeOwner(owner)}. Choose another ${kind}Id (or name), or set adoptExisting: true to take it over`,
    };
  }
  if (count >= limit) {
    return { property, reason: `${where} already has ${count} ${kind}s, the service's limit is ${limit}: delete one first, or use another ${kind === "sink" ? "source" : "branch"}` };
  }
  return undefined;
}

export async function sourceSlotFailure(ctx: ResourceContext, p: { branchId: string; sourceId: string; adoptExisting: boolean }, owner: string | undefined, property: string): Promise<Failure> {
  const stream = await ctx.client().stream();
  const list = await stream.listSources(p.branchId, undefined, 100);
  const existing = list.sources.find((s) => s.sourceId === p.sourceId) ?? (list.page.totalCount > list.sources.length ? await stream.findSource(p.branchId, p.sourceId) : undefined);
  return slot("source", existing, list.page.totalCount, MAX_SOURCES_PER_BRANCH, `in branch ${p.branchId}`, owner, p.adoptExisting, property, p.sourceId);
}

/** For a new sink: its source exists (unless declared in this program), its id is free or ours, the source has room. */
export async function sinkSlotFailure(
  ctx: ResourceContext,
  p: { branchId: string; sourceId: string; sinkId: string; adoptExisting: boolean },
  owner: string | undefined,
  facts: ProgramFacts,
  property: string,
): Promise<Failure> {
  const stream = await ctx.client().stream();
  // The sinks this process already knows of the source, kept with its own writes (StreamApi.sinkRoster):
  // the sinks of one source are checked one after another, each listing would differ only by ours.
  const list = await stream.sinkRoster(p.branchId, p.sourceId);
  if (!list) {
    if (facts.declared) return undefined; // its Source is created in this same run
    return {
      property: "sourceId",
      reason: `source "${p.sourceId}" does not exist in branch ${p.branchId}: pass the sourceId of a Source (for example events.sourceId, not the source's name), or create that source first`,
    };
  }
  const existing = list.sinks.find((s) => s.sinkId === p.sinkId) ?? (list.totalCount > list.sinks.length ? await stream.findSink(p.branchId, p.sourceId, p.sinkId) : undefined);
  return slot("sink", existing, list.totalCount, MAX_SINKS_PER_SOURCE, `in source "${p.sourceId}"`, owner, p.adoptExisting, property, p.sinkId);
}

/** An explicit configId of a new configuration is free, or ours (or taken over with adoptExisting). */
export async function configSlotFailure(ctx: ResourceContext, p: { branchId: string; componentId: string; configId?: string; adoptExisting: boolean }, owner: string | undefined): Promise<Failure> {
  if (p.configId === undefined) return undefined;
  const existing = await findLiveConfig(ctx.client().storage, p.branchId, p.componentId, p.configId);
  if (!existing) return undefined;
  const found = splitMarker(existing.changeDescription).owner;
  if (p.adoptExisting || (owner !== undefined && found === owner)) return undefined;
  return {
    property: "configId",
    reason: `configuration "${p.configId}" of ${p.componentId} already exists in branch ${p.branchId} and belongs to ${describeOwner(found)}; this resource is ${describeOwner(owner)}. Choose another configId, or set adoptExisting: true to take it over`,
  };
}

/**
 * The component is one the stack has: listed by the Storage API index, or, when the index does
 * not list it (a legacy component, one the stack stopped listing), one the branch already has
 * configurations of. `keboola-pulumi export` writes every configured component's configurations
 * (GET /v2/storage/branch/{b}/components), so refusing those would refuse the export's own
 * entries. Not cached: asked only for an id the index does not list, and it changes with the run.
 */
export async function componentFailure(ctx: ResourceContext, componentId: string, branchId: string): Promise<Failure> {
  const client = ctx.client();
  const ids = (await once(client, "components", () => client.storage.components())).map((c) => c.id);
  if (ids.includes(componentId)) return undefined;
  // A token that may not list configurations (403) gets the index's answer alone.
  const configured = (await unlessForbidden(client.storage.listComponents(branchId))) ?? [];
  if (configured.some((c) => c.id === componentId)) return undefined;
  const near = nearest(componentId, ids);
  return {
    property: "componentId",
    reason: `"${componentId}" is not a component of this stack (the Storage API index lists ${ids.length})${near ? `: did you mean "${near}"?` : ": check the id in the component's page of the Keboola UI"}`,
  };
}

/**
 * For a JobRun: the configuration exists and is enabled (unless declared in this program), and the
 * values given are of variables its bound variables configuration declares, from a row it has.
 */
export async function jobFailures(
  ctx: ResourceContext,
  p: { branchId: string; componentId: string; configId: string; variableValuesData?: Record<string, string>; variableValuesId?: string },
  facts: ProgramFacts,
  valueIssues: (values: Record<string, string>, declared: Array<{ name: string; type: "string" | "int" }>) => Array<{ name: string; message: string }>,
): Promise<dynamic.CheckFailure[]> {
  if (facts.declared) return [];
  const storage = ctx.client().storage;
  const config = await findLiveConfig(storage, p.branchId, p.componentId, p.configId);
  if (!config) {
    return [{
      property: "configId",
      reason: `configuration "${p.configId}" of ${p.componentId} does not exist in branch ${p.branchId} (or is in the trash): pass the configId of a ComponentConfig (for example users.configId), or create the configuration first`,
    }];
  }
  if (config.isDisabled) {
    return [{ property: "configId", reason: `configuration "${p.configId}" of ${p.componentId} is disabled, so its job would fail: enable it (isDisabled: false), or remove this JobRun` }];
  }
  if (p.variableValuesData === undefined && p.variableValuesId === undefined) return [];
  const varsId = config.configuration.variables_id;
  const property = p.variableValuesData !== undefined ? "variableValuesData" : "variableValuesId";
  if (varsId === undefined || varsId === null || varsId === "") {
    return [{ property, reason: `configuration "${p.configId}" has no variables bound (no variables_id), so the values would be ignored: bind a VariableConfig to it (variables: vars.binding()), or remove ${property}` }];
  }
  const vars = await findLiveConfig(storage, p.branchId, "keboola.variables", String(varsId));
  if (!vars) return [{ property, reason: `the variables configuration "${String(varsId)}" bound to "${p.configId}" does not exist: bind an existing VariableConfig` }];
  if (p.variableValuesId !== undefined && !vars.rows.some((r) => r.id === p.variableValuesId)) {
    return [{ property: "variableValuesId", reason: `"${p.variableValuesId}" is not a values row of variables configuration "${vars.id}" (its rows: ${vars.rows.map((r) => r.id).join(", ") || "none"}): use one of them, or pass variableValuesData` }];
  }
  const list = (vars.configuration as { variables?: unknown }).variables;
  const declared = (Array.isArray(list) ? list : [])
    .filter((v): v is { name: string; type?: string } => !!v && typeof v === "object" && typeof (v as { name?: unknown }).name === "string")
    .map((v) => ({ name: v.name, type: v.type === "int" ? ("int" as const) : ("string" as const) }));
  return valueIssues(p.variableValuesData ?? {}, declared).map((i) => ({ property: `variableValuesData.${i.name}`, reason: i.message }));
}
