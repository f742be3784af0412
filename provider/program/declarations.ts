import * as pulumi from "@pulumi/pulumi";
import { streamObjectId } from "../validation/ids";
import { bucketIdOf } from "../../keboola/storage";
import { formatPath, isEncrypted, isSecretKey, passesUnencrypted, type JsonStep } from "../../keboola/secrets";
import { VARIABLES_COMPONENT } from "../lifecycle/configurations";
import { isRecord } from "../../keboola/json";
import type { ProgramConfiguration, ProgramFacts } from "../lifecycle/facts";


// What one Pulumi program declares, known in the program process while it runs (the provider
// process sees one resource at a time). Two resources that would address the same remote object
// are refused when the second is constructed, so the mistake surfaces at preview; and what a
// resource's inputs say about it (a Source's type) follows its outputs to the resources that
// reference them, so their checks can use it before the object exists.

const declared = new Map<string, string>();

/** What a registered Source or Sink offers to the resources referencing it. */
type IdOutputs<K extends string> = pulumi.Resource & { readonly [P in K | "branchId"]: pulumi.Output<string> };

const literal = (v: unknown): v is string => typeof v === "string";
const isOutput = (v: unknown): v is object => pulumi.Output.isInstance(v);
/**
 * The branch a `branchId` input names, as this program tells branches apart: its literal id, or a
 * token for a Branch of this program (its id unknown until it exists); undefined when not known.
 * The registries below are written only under a known branch, so their lookups need no guard: a
 * key made with an unknown one (`undefined/...`) finds nothing.
 */
const branchOf = (v: unknown): string | undefined => {
  if (v === undefined) return "default";
  if (typeof v === "string" || typeof v === "number") return String(v);
  const b = isOutput(v) ? branches.get(v) : undefined;
  return b && `<Branch ${b.resource}>`;
};

/** Records the remote object a resource addresses; throws when another resource of this program addresses it. */
function claim(key: string | undefined, type: string, name: string, what: string, fix: string): void {
  if (key === undefined) return; // not known yet: the service's 409 and the owner markers guard it
  const other = declared.get(key);
  if (other !== undefined && other !== `${type}:${name}`) {
    // A RunError is reported as its message alone, without the program's stack.
    throw new pulumi.RunError(`keboola:${type} "${name}": ${what} is already declared by keboola:${other.replace(":", ' "')}" in this program; two resources would manage one object. ${fix}`);
  }
  declared.set(key, `${type}:${name}`);
}

// ---------------------------------------------------------------------------------------------
// Branches


/** A Branch of this program: a development branch, which may not exist yet at preview. */
export interface DeclaredBranch {
  resource: string;
  /** Its name, when the program gives it literally. */
  name?: string;
}

/** The Branches of this program, each by its branchId output. */
const branches = new WeakMap<object, DeclaredBranch>();

/** Before the Branch registers: claims its name (the service keeps branch names unique). */
export function declareBranch(name: string, args: { name?: unknown }): DeclaredBranch {
  const branchName = literal(args.name) ? args.name.trim() : undefined;
  claim(branchName ? `branch:${branchName}` : undefined, "Branch", name, `branch name "${branchName}"`, "Give one of them another name.");
  return { resource: name, ...(branchName !== undefined ? { name: branchName } : {}) };
}

/** After the Branch registered: its branchId output stands for it in the resources that live in it. */
export function declaredBranch(decl: DeclaredBranch, resource: { branchId: pulumi.Output<string> }): void {
  branches.set(resource.branchId, decl);
}

/** The Branch of this program a `branchId` input names (its branchId output), if any. */
export function branchDeclaration(branchId: unknown): DeclaredBranch | undefined {
  return isOutput(branchId) ? branches.get(branchId) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Sources and sinks

/** A Source of this program. `key` is its id when the program gives it (or its name) literally, else a token standing for it. */
export interface DeclaredSource {
  name: string;
  key: string;
  id?: string;
  /** Its type, when the program gives it literally (or leaves the default). */
  type?: string;
  /** The branch as its arguments give it. */
  branchId: unknown;
}

/** The one registry of the Sources of this program: each by its sourceId output (`src.sourceId`), once registered. */
const sources = new WeakMap<object, DeclaredSource & { resource: IdOutputs<"sourceId"> }>();
/** The Sources whose id (and branch) the program gives literally, by `branch/id`. */
const sourcesById = new Map<string, DeclaredSource>();
let anonymousSources = 0;

export interface SourceDeclaration {
  branchId?: unknown;
  sourceId?: unknown;
  name?: unknown;
  type?: unknown;
}

/** Before the Source registers: claims its id. Returns its declaration, for declaredSource. */
export function declareSource(name: string, args: SourceDeclaration): DeclaredSource {
  const branch = branchOf(args.branchId);
  const id = literal(args.sourceId) ? args.sourceId : literal(args.name) && args.sourceId === undefined ? streamObjectId(undefined, args.name) : undefined;
  claim(branch && id ? `source:${branch}/${id}` : undefined, "Source", name, `source id "${id}" in branch ${branch}`, "Give one of them another sourceId (or name).");
  const type = args.type === undefined ? "http" : literal(args.type) ? args.type : undefined;
  const decl: DeclaredSource = { name, key: id ?? `#${++anonymousSources}`, ...(id !== undefined ? { id } : {}), ...(type !== undefined ? { type } : {}), branchId: args.branchId };
  if (branch && id) {
    sourcesById.set(`${branch}/${id}`, decl);
    sourcesOfBranch.set(branch, [...(sourcesOfBranch.get(branch) ?? []), { name, id }]);
  }
  return decl;
}

/** The ids of the Sources (of each branch) and the Sinks (of each source) this program declares, in order. */
const sourcesOfBranch = new Map<string, Array<{ name: string; id: string }>>();
const sinksOfSource = new Map<string, Array<{ name: string; id: string }>>();
const declaredBefore = (list: Array<{ name: string; id: string }> | undefined, name: string): string[] => {
  const all = list ?? [];
  const at = all.findIndex((e) => e.name === name);
  return (at < 0 ? all : all.slice(0, at)).map((e) => e.id);
};

/** What a Source's check may use: the ids of the other Sources of its branch this program declares before it (they count against the branch's limit). */
export function sourceFacts(name: string, args: SourceDeclaration): FactsInput {
  const branch = branchOf(args.branchId);
  const before = branch ? declaredBefore(sourcesOfBranch.get(branch), name) : [];
  return before.length ? { declaredBefore: before } : {};
}

/** After the Source registered: its sourceId output stands for it in the resources that reference it (a sink takes its type). */
export function declaredSource(decl: DeclaredSource, resource: IdOutputs<"sourceId">): void {
  sources.set(resource.sourceId, { ...decl, resource });
}

/** The Source of this program a `sourceId` input names: its sourceId output, or its literal id. */
function sourceOf(branchId: unknown, sourceId: unknown): DeclaredSource | undefined {
  if (isOutput(sourceId)) return sources.get(sourceId);
  return literal(sourceId) ? sourcesById.get(`${branchOf(branchId)}/${sourceId}`) : undefined;
}

/** How the claims of sinks name their source: its literal id, or the token of the Source of this program whose output it is. */
function sourceKey(branchId: unknown, sourceId: unknown): string | undefined {
  return literal(sourceId) ? sourceId : sourceOf(branchId, sourceId)?.key;
}

const describeSource = (branchId: unknown, sourceId: unknown): string => {
  if (literal(sourceId)) return `source "${sourceId}"`;
  const decl = sourceOf(branchId, sourceId);
  return decl?.id !== undefined ? `source "${decl.id}"` : `the source of keboola:Source "${decl?.name}"`;
};

/** The first Sink of this program writing each table (`branch/tableId`), with its columns. */
const tables = new Map<string, { sink: string; columns: unknown }>();

/** A Sink of this program, as its arguments give it. */
export interface DeclaredSink {
  name: string;
  branchId: unknown;
  sourceId: unknown;
}

/** The one registry of the Sinks of this program: each by its sinkId output (`snk.sinkId`), once registered. */
const sinks = new WeakMap<object, DeclaredSink & { resource: IdOutputs<"sinkId" | "sourceId"> }>();

export interface SinkDeclaration {
  branchId?: unknown;
  sourceId?: unknown;
  sinkId?: unknown;
  name?: unknown;
  tableId?: unknown;
  columns?: unknown;
}

/**
 * Before the Sink registers: claims its id within its source (also when the source is a Source of
 * this program given as its output), and records the table it writes.
 */
export function declareSink(name: string, args: SinkDeclaration): DeclaredSink {
  const branch = branchOf(args.branchId);
  const derived = args.sinkId === undefined;
  const id = literal(args.sinkId) ? args.sinkId : literal(args.name) && derived ? streamObjectId(undefined, args.name) : undefined;
  const source = sourceKey(args.branchId, args.sourceId);
  const key = branch && source !== undefined && id ? `sink:${branch}/${source}/${id}` : undefined;
  const origin = derived ? `derived from its name "${String(args.name)}"` : "its sinkId";
  claim(key, "Sink", name, `sink id "${id}" (${origin}) of ${describeSource(args.branchId, args.sourceId)}`, "Give one of them another sinkId (or name).");
  if (branch && literal(args.tableId) && !tables.has(`${branch}/${args.tableId}`)) tables.set(`${branch}/${args.tableId}`, { sink: name, columns: args.columns });
  if (branch && source !== undefined && id) sinksOfSource.set(`${branch}/${source}`, [...(sinksOfSource.get(`${branch}/${source}`) ?? []), { name, id }]);
  return { name, branchId: args.branchId, sourceId: args.sourceId };
}

/** After the Sink registered: its sinkId output stands for it in the settings that reference it. */
export function declaredSink(decl: DeclaredSink, resource: IdOutputs<"sinkId" | "sourceId">): void {
  sinks.set(resource.sinkId, { ...decl, resource });
}

/** What a Sink's check may use: its Source's type and whether it is declared here; another sink of this program writing its table. */
export function sinkFacts(name: string, args: SinkDeclaration): FactsInput {
  const source = sourceOf(args.branchId, args.sourceId);
  const branch = branchOf(args.branchId);
  const table = literal(args.tableId) ? tables.get(`${branch}/${args.tableId}`) : undefined;
  const declaredTable = tableOf(args.branchId, args.tableId);
  const key = sourceKey(args.branchId, args.sourceId);
  const before = declaredBefore(sinksOfSource.get(`${branch}/${key}`), name);
  const tableId = declaredTable ? tableIdIn(declaredTable.args) : undefined;
  return {
    ...(before.length ? { declaredBefore: before } : {}),
    ...(source?.type ? { sourceType: source.type } : {}),
    declared: source !== undefined,
    // The ids the Source and the Table of this program will have, when the program says them.
    ...(source?.id !== undefined ? { sourceId: source.id } : {}),
    ...(table && table.sink !== name ? { sharedTable: { sink: table.sink, columns: table.columns } } : {}),
    ...(declaredTable
      ? {
          declaredTable: {
            resource: declaredTable.name,
            ...(tableId !== undefined ? { tableId } : {}),
            columns: declaredTable.args.columns,
            primaryKey: declaredTable.args.primaryKey ?? [],
          },
        }
      : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Buckets and tables

interface DeclaredTable {
  name: string;
  args: TableDeclaration;
  resource: pulumi.Resource;
}
/** Buckets of this program by their bucketId output: the id their literal stage and name make, undefined when the program does not say them. */
const bucketIdsByOutput = new WeakMap<object, string | undefined>();
const bucketArgs = new WeakMap<object, string>();
const tablesById = new Map<string, DeclaredTable>();
const tablesByOutput = new WeakMap<object, DeclaredTable>();

export interface BucketDeclaration {
  branchId?: unknown;
  stage?: unknown;
  name?: unknown;
}

/** Before the Bucket registers: claims its id. */
export function declareBucket(name: string, args: BucketDeclaration): void {
  const branch = branchOf(args.branchId);
  const stage = args.stage === undefined ? "in" : args.stage;
  const id = (stage === "in" || stage === "out") && literal(args.name) ? bucketIdOf(stage, args.name) : undefined;
  claim(branch && id ? `bucket:${branch}/${id}` : undefined, "Bucket", name, `bucket "${id}" in branch ${branch}`, "Give one of them another name.");
  if (id) bucketArgs.set(args, id);
}

export function declaredBucket(args: BucketDeclaration, resource: { bucketId: pulumi.Output<string> }): void {
  const id = bucketArgs.get(args);
  bucketIdsByOutput.set(resource.bucketId, id);
  const branch = branchOf(args.branchId);
  if (id && branch) declaredBucketIds.add(`${branch}/${id}`);
}
/** The Buckets of this program whose branch and id it says, by `branch/bucketId`. */
const declaredBucketIds = new Set<string>();

/**
 * Table: whether its bucketId names a Bucket of this program (its output, or the literal id a
 * declared Bucket makes), and that Bucket's id when its literal stage and name say it: the table's
 * checks and diff use it while the output is not known yet.
 */
export function tableFacts(args: TableDeclaration): FactsInput {
  if (isOutput(args.bucketId)) {
    const id = bucketIdsByOutput.get(args.bucketId);
    return { declared: bucketIdsByOutput.has(args.bucketId), ...(id !== undefined ? { bucketId: id } : {}) };
  }
  // A branch this program cannot name (undefined) is in no key of declaredBucketIds.
  return { declared: literal(args.bucketId) && declaredBucketIds.has(`${branchOf(args.branchId)}/${args.bucketId}`) };
}

/** The bucket id a Table's `bucketId` input names, when known in the program: literal, or a Bucket's output with literal stage and name. */
function bucketIdIn(v: unknown): string | undefined {
  return literal(v) ? v : isOutput(v) ? bucketIdsByOutput.get(v) : undefined;
}

/** The id a Table of this program will have, when the program says its bucket's id and its name. */
function tableIdIn(args: TableDeclaration): string | undefined {
  const bucket = bucketIdIn(args.bucketId);
  return bucket !== undefined && literal(args.name) ? `${bucket}.${args.name}` : undefined;
}

export interface TableDeclaration {
  branchId?: unknown;
  bucketId?: unknown;
  name?: unknown;
  columns?: unknown;
  primaryKey?: unknown;
}

/** Before the Table registers: claims its id. */
export function declareTable(name: string, args: TableDeclaration): void {
  const branch = branchOf(args.branchId);
  const bucket = bucketIdIn(args.bucketId);
  const id = bucket && literal(args.name) ? `${bucket}.${args.name}` : undefined;
  claim(branch && id ? `table:${branch}/${id}` : undefined, "Table", name, `table "${id}" in branch ${branch}`, "Give one of them another name.");
}

/** After the Table registered: Sinks writing its id (literal, or its tableId output) check their mapping against its declaration and depend on it. */
export function declaredTable(name: string, args: TableDeclaration, resource: pulumi.Resource & { tableId: pulumi.Output<string> }): void {
  const decl: DeclaredTable = { name, args, resource };
  tablesByOutput.set(resource.tableId, decl);
  const branch = branchOf(args.branchId);
  const bucket = bucketIdIn(args.bucketId);
  if (branch && bucket && literal(args.name)) tablesById.set(`${branch}/${bucket}.${args.name}`, decl);
}

function tableOf(branchId: unknown, tableId: unknown): DeclaredTable | undefined {
  if (isOutput(tableId)) return tablesByOutput.get(tableId);
  return literal(tableId) ? tablesById.get(`${branchOf(branchId)}/${tableId}`) : undefined;
}

/** The Table of this program a Sink writes: the Sink depends on it (the table exists before the sink is created). */
export function tableResourceOf(args: { branchId?: unknown; tableId?: unknown }): pulumi.Resource | undefined {
  return tableOf(args.branchId, args.tableId)?.resource;
}

/** For settings: whether the source (for SourceSettings) or the sink (for SinkSettings) they target is declared in this program. */
export function settingsFacts(args: { branchId?: unknown; sourceId?: unknown; sinkId?: unknown }): FactsInput {
  if (args.sinkId === undefined) return { declared: sourceOf(args.branchId, args.sourceId) !== undefined };
  if (isOutput(args.sinkId)) return { declared: sinks.has(args.sinkId) };
  // A sink of a Source this program declares exists only when a Sink of this program declares it,
  // or when it already exists: the check asks the stack then.
  const branch = branchOf(args.branchId);
  const source = sourceKey(args.branchId, args.sourceId);
  return { declared: !!branch && source !== undefined && literal(args.sinkId) && declared.has(`sink:${branch}/${source}/${args.sinkId}`) };
}

// ---------------------------------------------------------------------------------------------
// Configurations

/** What the program's arguments of a ComponentConfig or VariableConfig say that other resources' checks use. */
export interface ConfigDeclaration {
  branchId?: unknown;
  configId?: unknown;
  /** ComponentConfig: its binding; VariableConfig: its declared variables. */
  variables?: unknown;
  isDisabled?: unknown;
  defaultValues?: unknown;
}

interface DeclaredConfig {
  type: "ComponentConfig" | "VariableConfig" | "Flow" | "Schedule";
  name: string;
  args: ConfigDeclaration;
  configId: pulumi.Output<string>;
  valuesRowId?: pulumi.Output<string | undefined>;
}

const configsByKey = new Map<string, DeclaredConfig>();
const configsByOutput = new WeakMap<object, DeclaredConfig>();

const configKey = (branch: string, componentId: string, configId: string) => `config:${branch}/${componentId}/${configId}`;

export function declareConfig(type: string, name: string, args: { branchId?: unknown; componentId?: unknown; configId?: unknown }): void {
  const branch = branchOf(args.branchId);
  const key = branch && literal(args.componentId) && literal(args.configId) ? configKey(branch, args.componentId, args.configId) : undefined;
  claim(key, type, name, `configuration "${String(args.configId)}" of ${String(args.componentId)}`, "Give one of them another configId.");
}

/** After a configuration registered: its configId output (or its literal id) stands for it in the resources that reference it. */
export function declaredConfig(type: DeclaredConfig["type"], name: string, args: ConfigDeclaration, componentId: unknown, resource: { configId: pulumi.Output<string>; valuesRowId?: pulumi.Output<string | undefined> }): void {
  const decl: DeclaredConfig = { type, name, args, configId: resource.configId, ...(resource.valuesRowId ? { valuesRowId: resource.valuesRowId } : {}) };
  configsByOutput.set(resource.configId, decl);
  const branch = branchOf(args.branchId);
  if (branch && literal(componentId) && literal(args.configId)) configsByKey.set(configKey(branch, componentId, args.configId), decl);
}

/** The configuration of this program a `configId` input names: its configId output, or its literal id. */
function configOf(branchId: unknown, componentId: unknown, configId: unknown, type: DeclaredConfig["type"]): DeclaredConfig | undefined {
  const branch = branchOf(branchId);
  const decl = isOutput(configId) ? configsByOutput.get(configId) : branch && literal(componentId) && literal(configId) ? configsByKey.get(configKey(branch, componentId, configId)) : undefined;
  return decl?.type === type ? decl : undefined;
}

const plainObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !isOutput(v) && !Array.isArray(v);

/** The VariableConfig of this program a ComponentConfig's `variables` binding names. */
function boundVariablesOf(branchId: unknown, binding: unknown): DeclaredConfig | undefined {
  return plainObject(binding) ? configOf(branchId, VARIABLES_COMPONENT, binding.configId, "VariableConfig") : undefined;
}

/** What a ComponentConfig's check may use: the variables a VariableConfig of this program that it binds declares. */
export function componentConfigFacts(args: { branchId?: unknown; variables?: unknown }): FactsInput {
  const vars = boundVariablesOf(args.branchId, args.variables);
  return vars ? { boundVariables: { resource: vars.name, declared: vars.args.variables } } : {};
}

/** What a JobRun's check may use: the ComponentConfig of this program it runs, and the VariableConfig that one binds. */
export function jobFacts(args: { branchId?: unknown; componentId?: unknown; configId?: unknown }): FactsInput {
  const config = configOf(args.branchId, args.componentId, args.configId, "ComponentConfig");
  if (!config) {
    // A Flow of this program runs as a job too (and takes no variable values).
    const flow = configOf(args.branchId, args.componentId, args.configId, "Flow");
    return flow ? flowTargetFacts(flow) : { declared: false };
  }
  const binding = config.args.variables;
  const facts: ProgramConfiguration = { resource: config.name, isDisabled: config.args.isDisabled ?? false };
  if (binding === undefined) facts.bound = false;
  else if (plainObject(binding)) {
    facts.bound = true;
    facts.variablesId = binding.configId;
    const vars = boundVariablesOf(config.args.branchId, binding);
    if (vars) {
      const defaults = vars.args.defaultValues;
      facts.variables = {
        resource: vars.name,
        declared: vars.args.variables,
        // Only the names (not secret): the values, which may be, are not needed.
        ...(defaults !== undefined ? { defaultValueNames: plainObject(defaults) ? Object.keys(defaults) : pulumi.unsecret(pulumi.output(defaults).apply((d) => (isRecord(d) ? Object.keys(d) : []))) } : {}),
        ...(vars.valuesRowId ? { valuesRowId: vars.valuesRowId } : {}),
        defaultRow: binding.valuesRowId === undefined ? "none" : binding.valuesRowId === vars.valuesRowId ? "declared" : "other",
      };
    }
  }
  return { declared: true, configuration: facts };
}

/**
 * What a Flow's check may use: for each task of each phase, whether the configuration it runs is a
 * ComponentConfig of this program (then it may not exist yet at preview).
 */
export function flowFacts(args: { branchId?: unknown; phases?: unknown }): FactsInput {
  if (!Array.isArray(args.phases)) return {};
  const declaredTasks = args.phases.map((phase: unknown) =>
    plainObject(phase) && Array.isArray(phase.tasks) ? phase.tasks.map((t: unknown) => plainObject(t) && configOf(args.branchId, t.componentId, t.configId, "ComponentConfig") !== undefined) : [],
  );
  return { declaredTasks };
}

/**
 * What a Schedule's check may use about its target: what a job of that configuration would find
 * (jobFacts: a ComponentConfig of this program, else a Flow of it, which takes no variable values).
 */
export function scheduleFacts(args: { target?: unknown }): FactsInput {
  const target = plainObject(args.target) ? args.target : {};
  return jobFacts({ componentId: target.componentId, configId: target.configId });
}

/** What a job of a Flow of this program would find: the flow, enabled or not, which takes no variable values. */
function flowTargetFacts(flow: DeclaredConfig): FactsInput {
  return { declared: true, configuration: { type: "Flow", resource: flow.name, isDisabled: flow.args.isDisabled ?? false, bound: false } };
}

// ---- deletedWith ------------------------------------------------------------------------------
// Deleting a source deletes its sinks, and their settings, with it in one step of the service
// (keboola/keboola-as-code internal/pkg/service/stream/definition/repository/sink/sink_delete.go:
// deleteSinksOnSourceDelete soft-deletes every active sink of the source in the source's delete
// operation, marked `deleted.directly: false`; a sink's and a source's settings are part of them).
// So a resource that lives inside another one of this program gets Pulumi's `deletedWith` option:
// when both are deleted in one operation (destroy, or both removed from the program), Pulumi skips
// the inner resource's delete and sends only the outer one; deleted alone, it runs its own delete.
// Derived only from an actual output of that resource (`sourceId: src.sourceId`), in the same
// branch: a literal id may name an object of another program, which this one must not assume gone.

/** Whether the branch a dependent gives (`branchId` argument) is certainly that of the referenced Source or Sink. */
function sameBranch(dependent: unknown, of: { branchId: unknown; resource: { branchId: unknown } }): boolean {
  if (dependent === of.resource.branchId || dependent === of.branchId) return true;
  const branch = branchOf(dependent);
  return branch !== undefined && branch === branchOf(of.branchId);
}

/** The Source of this program whose deletion deletes the object addressed by these arguments (a Sink, a SourceSettings). */
export function deletedWithSource(args: { branchId?: unknown; sourceId?: unknown }): pulumi.Resource | undefined {
  const source = isOutput(args.sourceId) ? sources.get(args.sourceId) : undefined;
  return source && sameBranch(args.branchId, source) ? source.resource : undefined;
}

/**
 * The resource of this program whose deletion deletes a SinkSettings: its Sink (deleted in turn
 * with its Source, which Pulumi follows: a delete skipped for `deletedWith` still counts as a
 * deletion), else the Source the settings' sink belongs to.
 */
export function deletedWithSink(args: { branchId?: unknown; sourceId?: unknown; sinkId?: unknown }): pulumi.Resource | undefined {
  const sink = isOutput(args.sinkId) ? sinks.get(args.sinkId) : undefined;
  const sameSource = sink !== undefined && (args.sourceId === sink.sourceId || args.sourceId === sink.resource.sourceId);
  if (sink && sameSource && sameBranch(args.branchId, sink)) return sink.resource;
  return deletedWithSource(args);
}

/** The options a resource registers with: `deletedWith` as derived, unless the program's options set it (even to undefined). */
export function withDeletedWith(opts: pulumi.CustomResourceOptions | undefined, target: pulumi.Resource | undefined): pulumi.CustomResourceOptions | undefined {
  if (!target || (opts && "deletedWith" in opts)) return opts;
  return { ...opts, deletedWith: target };
}

/**
 * Paths of `#` values a program gives as literal, non-secret text (`"#token": "abc"`). Keboola
 * gets them encrypted all the same, but Pulumi keeps a non-secret input in plain text in the
 * program's state, so `check` warns about each (see plainSecretWarning). Secretness is known only
 * here, in the program: the provider process receives secrets unwrapped. Unknown at preview when
 * a value is computed; ciphertext literals (`KBC::...Secure::`) and values inside a secret are fine.
 */
export function plainSecretPaths(value: unknown, path: JsonStep[] = []): pulumi.Output<string[]> {
  if (pulumi.Output.isInstance<unknown>(value)) {
    return pulumi.output(pulumi.isSecret(value)).apply((secretValue): pulumi.Output<string[]> => (secretValue ? pulumi.output([]) : value.apply((v) => plainSecretPaths(v, path))));
  }
  if (Array.isArray(value)) return pulumi.all(value.map((v, i) => plainSecretPaths(v, [...path, i]))).apply((lists) => lists.flat());
  if (value && typeof value === "object" && !pulumi.Resource.isInstance(value)) {
    return pulumi.all(Object.entries(value).map(([k, v]) => plainSecretPaths(v, [...path, k]))).apply((lists) => lists.flat());
  }
  const last = path[path.length - 1];
  const plain = typeof value === "string" && typeof last === "string" && isSecretKey(last) && !isEncrypted(value) && !passesUnencrypted(value);
  return pulumi.output(plain ? [formatPath(path)] : []);
}

/** The warning for a literal, non-secret `#` value. */
/** ProgramFacts as a resource class passes them: any of them may still be an Output. */
export type FactsInput = { [K in keyof ProgramFacts]?: pulumi.Input<NonNullable<ProgramFacts[K]>> };
