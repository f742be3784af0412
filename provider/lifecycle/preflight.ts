import type { KeboolaClient } from "../api/client";
import { KeboolaApiError } from "../api/errors";
import { nearest } from "../validation/messages";
import { MAX_SINKS_PER_SOURCE, MAX_SOURCES_PER_BRANCH } from "../validation/ids";
import { describeOwner, splitMarker } from "./ownership";
import { STACK_BRANCH_RESOURCE } from "./facts";
import { configOwner, findLiveConfig, VARIABLES_COMPONENT } from "./configurations";
import type { ProgramConfiguration, ProgramFacts } from "./facts";
import type { ConfigRow, Configuration, StorageApi } from "../api/storage";
import { containsUnknown, isUnknown, UNKNOWN, whenKnown, type Partly } from "../validation/check";
import { declarationsIn, missingValues, noValueMessage, valueIssues, type VariableDeclaration } from "../validation/variables";
import { isRecord } from "../../keboola/json";
import type { Props, ResourceContext } from "./types";
import type { CheckFailure } from "../validation/messages";

// What `check` asks the stack before anything is written, so that preview refuses what the
// service would refuse only later, in the middle of an `up`: references that do not exist, ids
// taken by somebody else's object, the service's limits, components the stack does not have.
// Each answers a check failure (property and reason with the fix) or undefined.


type Failure = CheckFailure | undefined;

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

/** Whether a check is about a deployed resource (the engine passes its old inputs), not a new one. */
export const isDeployed = (olds: Props): boolean => Object.keys(olds).some((k) => !k.startsWith("__"));

/**
 * Whether the inputs address another remote object than the resource's recorded one: a new
 * resource, or a replacement (then the new object must be free, and the limits apply to it).
 * `olds` are the old *inputs*, which is what the engine passes a provider's check (never the
 * outputs), so the object is told by the input fields that address it (`ids`: the new values, an
 * id derived on our side included; a field missing from both counts as the same).
 */
export function isNew(olds: Props, ids: Readonly<Record<string, unknown>>): boolean {
  if (!isDeployed(olds)) return true;
  return Object.entries(ids).some(([field, value]) => String(olds[field] ?? (field === "branchId" ? "default" : "")) !== String(value ?? (field === "branchId" ? "default" : "")));
}

/** A listing the preflights read once per client (one provider process, one token); a failed read is asked again. */
function oncePerClient<T>(load: (client: KeboolaClient) => Promise<T>): (client: KeboolaClient) => Promise<T> {
  const cached = new WeakMap<KeboolaClient, Promise<T>>();
  return (client) => {
    let p = cached.get(client);
    if (!p) {
      p = load(client);
      cached.set(client, p);
      p.catch(() => cached.delete(client));
    }
    return p;
  };
}

const branchesCache = new WeakMap<KeboolaClient, Promise<Array<{ id: number; isDefault: boolean }>>>();

/**
 * The project's branches, read once per client; a branch not in a listing is looked for in a new
 * one (a Branch of the program may have been created since, in this very process).
 */
async function branchesOf(client: KeboolaClient, fresh = false): Promise<Array<{ id: number; isDefault: boolean }>> {
  let p = fresh ? undefined : branchesCache.get(client);
  if (!p) {
    p = client.storage.devBranches();
    branchesCache.set(client, p);
    p.catch(() => branchesCache.delete(client));
  }
  return p;
}

/** A branch's numeric id as inputs declare it: "default" for the default branch's (or none), else the id. */
export async function declaredBranchId(client: KeboolaClient, numericId: string | null | undefined): Promise<string> {
  if (!numericId) return "default";
  const branches = await branchesOf(client);
  return branches.some((b) => b.isDefault && String(b.id) === String(numericId)) ? "default" : String(numericId);
}

/** Drops the listing of branches after this process created, renamed or deleted one. */
export function forgetBranches(client: KeboolaClient): void {
  branchesCache.delete(client);
}

async function branchListed(client: KeboolaClient, branchId: string): Promise<Array<{ id: number; isDefault: boolean }> | undefined> {
  const listed = await branchesOf(client);
  if (listed.some((b) => String(b.id) === branchId)) return undefined;
  const fresh = await branchesOf(client, true);
  return fresh.some((b) => String(b.id) === branchId) ? undefined : fresh;
}
const componentsOf = oncePerClient((client) => client.storage.components());

export async function branchFailure(ctx: ResourceContext, branchId: string): Promise<Failure> {
  if (branchId === "default") return undefined;
  const branches = await branchListed(ctx.client(), branchId);
  if (!branches) return undefined;
  return {
    property: "branchId",
    reason: `branch ${branchId} does not exist in the project (its branches: ${branches.map((b) => (b.isDefault ? `${b.id} (default)` : String(b.id))).join(", ")}): use "default" or one of these ids`,
  };
}

/** What the Stream service answers for a development branch (see streamBranchFailure). */
const STREAM_DEFAULT_ONLY = (id: string) =>
  `the Stream service serves only the default branch (it answers "Currently only default branch is supported, branch "${id}" is not default."; keboola/keboola-as-code internal/pkg/service/stream/dependencies/reqbranch.go)`;

/** Why a kind the service keeps out of development branches may not live in the Branch of this program its branchId names. */
export function declaredBranchFailure(facts: ProgramFacts, service: string, fixElsewhere: string): Failure {
  const b = facts.branch;
  if (!b) return undefined;
  if (b.resource === STACK_BRANCH_RESOURCE) {
    return {
      property: "branchId",
      reason:
        `this stack deploys into development branch ${b.name !== undefined ? `"${b.name}"` : "of its keboola:branch"} (stack config keboola:branch), and ${service}: ` +
        `declare them only in the production stack (in a program, when keboola.stackBranch() is undefined; a keboola.yaml manifest leaves them out of a development-branch stack itself)`,
    };
  }
  return { property: "branchId", reason: `branchId is the development branch of Branch "${b.resource}" of this program, and ${service}: ${fixElsewhere}` };
}

/**
 * For Stream objects: the branch exists and is the default one. The Stream service serves only
 * the default branch: any other answers 400 "Currently only default branch is supported, branch
 * "<id>" is not default." (keboola/keboola-as-code
 * internal/pkg/service/stream/dependencies/reqbranch.go; emulator/stream/auth.ts). A Branch of
 * the program is a development branch before it exists.
 */
export async function streamBranchFailure(ctx: ResourceContext & { call: { facts: ProgramFacts } }, branchId: Partly<string>): Promise<Failure> {
  const fix = 'keep Stream sources, sinks and their settings in the default branch (branchId: "default")';
  const declared = declaredBranchFailure(ctx.call.facts, STREAM_DEFAULT_ONLY(isUnknown(branchId) ? "<id>" : branchId), fix);
  if (declared || isUnknown(branchId)) return declared;
  const missing = await branchFailure(ctx, branchId);
  if (missing || branchId === "default") return missing;
  if ((await declaredBranchId(ctx.client(), branchId)) === "default") return undefined;
  return { property: "branchId", reason: `branch ${branchId} is a development branch, and ${STREAM_DEFAULT_ONLY(branchId)}: ${fix}` };
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
  /** Ids of other new objects of the same parent that this program creates (before this one). */
  planned: string[],
): Failure {
  if (existing) {
    const found = splitMarker(existing.description).owner;
    if (adoptExisting || (owner !== undefined && found === owner)) return undefined;
    return {
      property,
      reason: `${kind} "${id}" already exists ${where} and belongs to ${describeOwner(found)}; this resource is ${describeOwner(owner)}. Choose another ${kind}Id (or name), or set adoptExisting: true to take it over`,
    };
  }
  if (count + planned.length >= limit) {
    const more = planned.length ? ` and this program creates ${planned.length} more before this one (${planned.map((q) => `"${q}"`).join(", ")})` : "";
    return { property, reason: `${where} already has ${count} ${kind}s${more}, the service's limit is ${limit}: delete one first, or use another ${kind === "sink" ? "source" : "branch"}` };
  }
  return undefined;
}

/** The ids of the objects a program declares before this one that do not exist yet (they count against the limit too). */
function plannedOf(facts: ProgramFacts | undefined, self: string, existing: ReadonlyArray<string>): string[] {
  const before = Array.isArray(facts?.declaredBefore) ? facts.declaredBefore.filter((id): id is string => typeof id === "string" && !isUnknown(id)) : [];
  const have = new Set(existing);
  return [...new Set(before)].filter((id) => id !== self && !have.has(id));
}

export async function sourceSlotFailure(
  ctx: ResourceContext & { call?: { facts: ProgramFacts } },
  p: { branchId: string; sourceId: string; adoptExisting: boolean },
  owner: string | undefined,
  property: string,
): Promise<Failure> {
  const stream = await ctx.client().stream();
  const list = await stream.listSources(p.branchId, undefined, 100);
  const existing = list.sources.find((s) => s.sourceId === p.sourceId) ?? (list.page.totalCount > list.sources.length ? await stream.findSource(p.branchId, p.sourceId) : undefined);
  const planned = plannedOf(ctx.call?.facts, p.sourceId, list.sources.map((s) => s.sourceId));
  return slot("source", existing, list.page.totalCount, MAX_SOURCES_PER_BRANCH, `in branch ${p.branchId}`, owner, p.adoptExisting, property, p.sourceId, planned);
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
  // A source id not known yet at preview: the Source of this program it comes from is created in this run.
  const unknownSource = isUnknown(p.sourceId);
  const list = unknownSource ? undefined : await stream.sinkRoster(p.branchId, p.sourceId);
  if (!list) {
    // Its Source is created in this same run, with the sinks this program declares.
    const where = unknownSource ? "in its source (a Source of this program, created in this run)" : `in source "${p.sourceId}" (created in this run)`;
    if (facts.declared) return slot("sink", undefined, 0, MAX_SINKS_PER_SOURCE, where, owner, p.adoptExisting, property, p.sinkId, plannedOf(facts, p.sinkId, []));
    if (unknownSource) return undefined; // an output of something else than a Source of this program: nothing to tell

    return {
      property: "sourceId",
      reason: `source "${p.sourceId}" does not exist in branch ${p.branchId}: pass the sourceId of a Source (for example events.sourceId, not the source's name), or create that source first`,
    };
  }
  const existing = list.sinks.find((s) => s.sinkId === p.sinkId) ?? (list.totalCount > list.sinks.length ? await stream.findSink(p.branchId, p.sourceId, p.sinkId) : undefined);
  return slot("sink", existing, list.totalCount, MAX_SINKS_PER_SOURCE, `in source "${p.sourceId}"`, owner, p.adoptExisting, property, p.sinkId, plannedOf(facts, p.sinkId, list.sinks.map((s) => s.sinkId)));
}

/** An explicit configId of a new configuration is free, or ours (or taken over with adoptExisting). */
export async function configSlotFailure(ctx: ResourceContext, p: { branchId: string; componentId: string; configId?: string; adoptExisting: boolean }, owner: string | undefined): Promise<Failure> {
  if (p.configId === undefined) return undefined;
  const storage = ctx.client().storage;
  const existing = await findLiveConfig(storage, p.branchId, p.componentId, p.configId);
  if (!existing) return undefined;
  const found = await configOwner(storage, { branch: p.branchId, componentId: p.componentId, configId: p.configId }, existing);
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
  const ids = (await componentsOf(client)).map((c) => c.id);
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

// ---------------------------------------------------------------------------------------------
// JobRun: what the job would find when it runs. The configuration it runs (and the variables that
// one binds) is read from the stack, or taken from the program when the program declares it: then
// it may not exist yet at preview, and the program's declaration is what the job will find.

/** The configuration a job runs, as far as `check` can know it. */
interface JobTarget {
  /** How messages name it. */
  label: string;
  /** Why the job would not find it, or undefined. */
  missing?: CheckFailure;
  disabled?: boolean;
  disabledFix: string;
  /** Whether it binds variables (undefined: not known at preview). */
  bound?: boolean;
  bindFix: string;
  variables?: JobVariables | CheckFailure;
}

/** The bound variables configuration, as far as `check` can know it. */
interface JobVariables {
  label: string;
  declared?: VariableDeclaration[];
  /** The names a values row gives; undefined when it has no such row, UNKNOWN when that is not known at preview. */
  row(id: string): Promise<string[] | undefined | typeof UNKNOWN>;
  /** Its rows, for a message. */
  rows(): Promise<string>;
  /** The default values row the configuration names: the names it gives, "none" when it names none, UNKNOWN. */
  defaults(): Promise<string[] | "none" | typeof UNKNOWN>;
  /** How to fix missing values in the default values row. */
  defaultsFix: string;
}

/** The names a values row gives a value. */
const valuesOfRow = (row: ConfigRow): string[] => {
  const list = row.configuration.values;
  return (Array.isArray(list) ? list : []).flatMap((v) => (isRecord(v) && typeof v.name === "string" ? [v.name] : []));
};

/** Variables as the stack has them (a configuration of keboola.variables that exists). */
function stackVariables(vars: Configuration, defaultRowId: string | typeof UNKNOWN): JobVariables {
  const row = async (id: string) => {
    const r = vars.rows.find((x) => x.id === id);
    return r ? valuesOfRow(r) : undefined;
  };
  return {
    label: `variables configuration "${vars.id}"`,
    declared: declarationsIn(vars.configuration.variables),
    row,
    rows: async () => vars.rows.map((r) => r.id).join(", ") || "none",
    defaults: async () => (defaultRowId === UNKNOWN ? UNKNOWN : ((await row(defaultRowId)) ?? "none")),
    defaultsFix: `add them to its default values row`,
  };
}

const knownString = (v: unknown): string | undefined => (typeof v === "string" && !isUnknown(v) && v !== "" ? v : undefined);

function knownDeclarations(v: unknown): VariableDeclaration[] | undefined {
  return !Array.isArray(v) || containsUnknown(v) ? undefined : declarationsIn(v);
}

async function jobTargetFromStack(storage: StorageApi, p: { branchId: string; componentId: string; configId: string }): Promise<JobTarget> {
  const config = await findLiveConfig(storage, p.branchId, p.componentId, p.configId);
  const label = `configuration "${p.configId}"`;
  const base = { label, disabledFix: "enable it (isDisabled: false)", bindFix: "bind a VariableConfig to it (variables: vars.binding())" };
  if (!config) {
    return {
      ...base,
      missing: {
        property: "configId",
        reason: `configuration "${p.configId}" of ${p.componentId} does not exist in branch ${p.branchId} (or is in the trash): pass the configId of a ComponentConfig (for example users.configId), or create the configuration first`,
      },
    };
  }
  const varsId = config.configuration.variables_id;
  const bound = varsId !== undefined && varsId !== null && varsId !== "";
  const target: JobTarget = { ...base, label: `configuration "${p.configId}" of ${p.componentId}`, disabled: config.isDisabled, bound };
  if (!bound) return target;
  const vars = await findLiveConfig(storage, p.branchId, VARIABLES_COMPONENT, String(varsId));
  const defaultRow = config.configuration.variables_values_id;
  target.variables = vars
    ? stackVariables(vars, String(defaultRow ?? "")) // "" names no row: none
    : { property: "configId", reason: `the variables configuration "${String(varsId)}" bound to "${p.configId}" does not exist: bind an existing VariableConfig` };
  return target;
}

async function jobTargetFromProgram(storage: StorageApi, branchId: string, c: ProgramConfiguration): Promise<JobTarget> {
  const type = c.type ?? "ComponentConfig";
  const label = `${type} "${c.resource}" of this program`;
  const target: JobTarget = {
    label,
    disabled: c.isDisabled === true, // not when unknown
    disabledFix: `set isDisabled: false on ${type} "${c.resource}"`,
    bound: c.bound,
    bindFix: type === "ComponentConfig" ? `bind a VariableConfig to ComponentConfig "${c.resource}" (variables: vars.binding())` : `a ${type} takes no variable values`,
  };
  const varsId = knownString(c.variablesId);
  const v = c.variables;
  if (!v) {
    // Bound to variables this program does not declare: as the stack has them.
    const vars = c.bound && varsId !== undefined ? await findLiveConfig(storage, branchId, VARIABLES_COMPONENT, varsId) : undefined;
    if (vars) target.variables = stackVariables(vars, UNKNOWN);
    return target;
  }
  const defaultNames = v.defaultValueNames === undefined ? undefined : !containsUnknown(v.defaultValueNames) && Array.isArray(v.defaultValueNames) ? v.defaultValueNames.map(String) : UNKNOWN;
  const valuesRowId = knownString(v.valuesRowId);
  // The VariableConfig's own rows as the stack has them (it may exist already, with other rows than its values row).
  let remote: Promise<Configuration | undefined> | undefined;
  const existing = () => (remote ??= varsId !== undefined ? findLiveConfig(storage, branchId, VARIABLES_COMPONENT, varsId) : Promise.resolve(undefined));
  const vlabel = `VariableConfig "${v.resource}" of this program`;
  target.variables = {
    label: vlabel,
    declared: knownDeclarations(v.declared),
    async row(id) {
      if (id === valuesRowId) return defaultNames === undefined ? [] : defaultNames;
      if (varsId === undefined) {
        // Its id is not known at preview: it is created in this run, or updated. The row is missing
        // only when no variables configuration of the branch has it.
        const all = await storage.listConfigs(branchId, VARIABLES_COMPONENT);
        return all.some((c) => !c.isDeleted && (c.rows ?? []).some((r) => r.id === id)) ? UNKNOWN : undefined;
      }
      const r = (await existing())?.rows.find((x) => x.id === id);
      return r ? valuesOfRow(r) : undefined;
    },
    async rows() {
      const ids = (await existing())?.rows.map((r) => r.id) ?? [];
      return ids.length ? ids.join(", ") : `none but the default values row it creates: pass ${v.resource}.valuesRowId`;
    },
    async defaults() {
      if (v.defaultRow === "other") return UNKNOWN;
      if (v.defaultRow === "none" || defaultNames === undefined) return "none";
      return defaultNames;
    },
    defaultsFix: `add them to the defaultValues of VariableConfig "${v.resource}"`,
  };
  return target;
}

/**
 * For a JobRun (and a Schedule's target): the configuration exists and is enabled, and the values the job would render with
 * are of the variables its bound variables configuration declares, from a row it has, with a value
 * for each of them (else the job fails).
 */
export async function jobFailures(
  ctx: ResourceContext,
  p: { branchId: string; componentId: string; configId: string; variableValuesData?: Partly<Record<string, string>>; variableValuesId?: string },
  facts: ProgramFacts,
  /** How the fix names the resource that would start the job. */
  starter = "this JobRun",
): Promise<CheckFailure[]> {
  if (facts.declared && !facts.configuration) return []; // declared here, by a program of an older version: not known
  const storage = ctx.client().storage;
  const t = facts.configuration ? await jobTargetFromProgram(storage, p.branchId, facts.configuration) : await jobTargetFromStack(storage, p);
  if (t.missing) return [t.missing];
  if (t.disabled) return [{ property: "configId", reason: `${t.label} is disabled, so its job would fail: ${t.disabledFix}, or remove ${starter}` }];
  const givesValues = p.variableValuesData !== undefined || p.variableValuesId !== undefined;
  const property = p.variableValuesData !== undefined ? "variableValuesData" : "variableValuesId";
  if (t.bound === false) {
    return givesValues ? [{ property, reason: `${t.label} has no variables bound (no variables_id), so the values would be ignored: ${t.bindFix}, or remove ${property}` }] : [];
  }
  const vars = t.variables;
  // The values themselves are compared only when they are known.
  const values = whenKnown(p.variableValuesData);
  if (!t.bound || !vars || (p.variableValuesData !== undefined && values === undefined) || isUnknown(p.variableValuesId)) return [];
  if (!("row" in vars)) return [{ ...vars, property: givesValues ? property : vars.property }];

  const data = values ?? {};
  const failures: CheckFailure[] = [];
  // The values the job renders with, and where a missing one is reported.
  let given: string[] | typeof UNKNOWN;
  let at: { property: string; where: string; declaredBy: string; fix: string };
  if (Object.keys(data).length > 0) {
    given = Object.keys(data);
    at = { property: "variableValuesData", where: "variableValuesData has", declaredBy: vars.label, fix: "add them to variableValuesData" };
    if (vars.declared) failures.push(...valueIssues(data, vars.declared).map((i) => ({ property: `variableValuesData.${i.name}`, reason: i.message })));
  } else if (p.variableValuesId !== undefined) {
    const row = await vars.row(p.variableValuesId);
    if (row === undefined) {
      return [{ property: "variableValuesId", reason: `"${p.variableValuesId}" is not a values row of ${vars.label} (its rows: ${await vars.rows()}): use one of them, or pass variableValuesData` }];
    }
    given = row;
    at = { property: "variableValuesId", where: `values row "${p.variableValuesId}" of ${vars.label} has`, declaredBy: "it", fix: "add them to that row, or pass variableValuesData" };
  } else {
    const defaults = await vars.defaults();
    if (defaults === "none") {
      return [{
        property: "variableValuesData",
        reason: `is not set, and ${t.label} names no default values row of ${vars.label} (variables.valuesRowId), so the job would fail ("No variable values provided"): pass variableValuesData or variableValuesId, or bind with defaultValues (variables: vars.binding() of a VariableConfig with defaultValues)`,
      }];
    }
    given = defaults;
    at = { property: "variableValuesData", where: `is not set, and the default values of ${vars.label} have`, declaredBy: "it", fix: `pass variableValuesData with a value for each, or ${vars.defaultsFix}` };
  }
  if (vars.declared && given !== UNKNOWN) {
    const missing = missingValues(vars.declared, given);
    if (missing.length > 0) {
      const list = missing.map((n) => `"${n}"`).join(", ");
      failures.push({
        property: at.property,
        reason: `${at.where} no value for ${missing.length > 1 ? "variables" : "variable"} ${list}, which ${at.declaredBy} declares, so the job would fail (${noValueMessage(missing[0])}): ${at.fix}`,
      });
    }
  }
  return failures;
}
