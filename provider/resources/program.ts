import * as pulumi from "@pulumi/pulumi";
import { normalizeId } from "../validation/ids";
import { formatPath, isEncrypted, isSecretKey, passesUnencrypted, type JsonStep } from "../validation/secrets";

// What one Pulumi program declares, known in the program process while it runs (the provider
// process sees one resource at a time). Two resources that would address the same remote object
// are refused when the second is constructed, so the mistake surfaces at preview; and what a
// resource's inputs say about it (a Source's type) follows its outputs to the resources that
// reference them, so their checks can use it before the object exists.

const declared = new Map<string, string>();

/** A Source or Sink of this program, keyed by its id output (`src.sourceId`, `snk.sinkId`). */
interface Registered {
  resource: pulumi.Resource;
  /** The branch as the resource's arguments give it, and its branchId output. */
  branch: { arg: unknown; output: unknown };
}
const sources = new WeakMap<object, Registered & { type: string }>();
/** `sourceId`: what the Sink's arguments give, and its own sourceId output. */
const sinks = new WeakMap<object, Registered & { sourceId: { arg: unknown; output: unknown } }>();

const literal = (v: unknown): v is string => typeof v === "string";
const branchOf = (v: unknown): string | undefined => (v === undefined ? "default" : typeof v === "string" || typeof v === "number" ? String(v) : undefined);

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

export interface SourceDeclaration {
  branchId?: unknown;
  sourceId?: unknown;
  name?: unknown;
  type?: unknown;
}

/** Before the Source registers: claims its id. */
export function declareSource(name: string, args: SourceDeclaration): void {
  const branch = branchOf(args.branchId);
  const id = literal(args.sourceId) ? args.sourceId : literal(args.name) && args.sourceId === undefined ? normalizeId(args.name) : undefined;
  claim(branch && id ? `source:${branch}/${id}` : undefined, "Source", name, `source id "${id}" in branch ${branch}`, "Give one of them another sourceId (or name).");
}

/** What a registered Source or Sink offers to the resources referencing it. */
type IdOutputs<K extends string> = pulumi.Resource & { readonly [P in K | "branchId"]: pulumi.Output<string> };

/** After the Source registered: its sourceId output carries its type (and the Source itself) to the sinks that reference it. */
export function declaredSource(args: SourceDeclaration, resource: IdOutputs<"sourceId">): void {
  sources.set(resource.sourceId, { type: literal(args.type) ? args.type : "http", resource, branch: { arg: args.branchId, output: resource.branchId } });
}

/** After the Sink registered: its sinkId output carries the Sink to the SinkSettings that reference it. */
export function declaredSink(args: { branchId?: unknown; sourceId?: unknown }, resource: IdOutputs<"sinkId" | "sourceId">): void {
  sinks.set(resource.sinkId, { resource, sourceId: { arg: args.sourceId, output: resource.sourceId }, branch: { arg: args.branchId, output: resource.branchId } });
}

/**
 * What a resource's check may use about the objects it references from this program (passed to
 * the provider as the hidden input `__program`): a referenced Source's type, and whether the
 * referenced object is declared here (then it may not exist yet at preview).
 */
export interface ProgramFacts {
  sourceType?: string;
  declared?: boolean;
  /** `#` values the program gives as literal, non-secret text (plainSecretPaths). */
  plainSecrets?: string[];
}

export function sinkFacts(args: { branchId?: unknown; sourceId?: unknown }): ProgramFacts {
  const type = declaredSourceType(args.sourceId);
  return { ...(type ? { sourceType: type } : {}), declared: type !== undefined || isDeclaredSource(args) };
}

export function jobFacts(args: { branchId?: unknown; componentId?: unknown; configId?: unknown }): ProgramFacts {
  return { declared: isDeclaredConfig(args) };
}

/** The type of the Source whose `sourceId` output this is, when that Source is declared in this program. */
export function declaredSourceType(sourceId: unknown): string | undefined {
  return sourceId && typeof sourceId === "object" ? sources.get(sourceId)?.type : undefined;
}

export function declareSink(name: string, args: { branchId?: unknown; sourceId?: unknown; sinkId?: unknown; name?: unknown }): void {
  const branch = branchOf(args.branchId);
  const id = literal(args.sinkId) ? args.sinkId : literal(args.name) && args.sinkId === undefined ? normalizeId(args.name) : undefined;
  const key = branch && literal(args.sourceId) && id ? `sink:${branch}/${args.sourceId}/${id}` : undefined;
  claim(key, "Sink", name, `sink id "${id}" of source "${String(args.sourceId)}"`, "Give one of them another sinkId (or name).");
}

export function declareConfig(type: string, name: string, args: { branchId?: unknown; componentId?: unknown; configId?: unknown }): void {
  const branch = branchOf(args.branchId);
  const key = branch && literal(args.componentId) && literal(args.configId) ? `config:${branch}/${args.componentId}/${args.configId}` : undefined;
  claim(key, type, name, `configuration "${String(args.configId)}" of ${String(args.componentId)}`, "Give one of them another configId.");
}

/** Whether a configuration with this literal id is declared in this program (so it may not exist yet). */
export function isDeclaredConfig(args: { branchId?: unknown; componentId?: unknown; configId?: unknown }): boolean {
  const branch = branchOf(args.branchId);
  return !!branch && literal(args.componentId) && literal(args.configId) && declared.has(`config:${branch}/${args.componentId}/${args.configId}`);
}

/** Whether a source with this literal id is declared in this program. */
export function isDeclaredSource(args: { branchId?: unknown; sourceId?: unknown }): boolean {
  const branch = branchOf(args.branchId);
  return !!branch && literal(args.sourceId) && declared.has(`source:${branch}/${args.sourceId}`);
}

/** For settings: whether the source (and sink) they target are declared in this program. */
export function settingsFacts(args: { branchId?: unknown; sourceId?: unknown; sinkId?: unknown }): ProgramFacts {
  const branch = branchOf(args.branchId);
  const sourceDeclared = declaredSourceType(args.sourceId) !== undefined || isDeclaredSource(args);
  if (args.sinkId === undefined) return { declared: sourceDeclared };
  const sinkDeclared = !!branch && literal(args.sourceId) && literal(args.sinkId) && declared.has(`sink:${branch}/${args.sourceId}/${args.sinkId}`);
  // A sink of a source this program creates may not exist yet either.
  return { declared: sourceDeclared || sinkDeclared };
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

/** Whether the branch a dependent gives (`branchId` argument) is certainly that of the referenced resource. */
function sameBranch(dependent: unknown, of: Registered["branch"]): boolean {
  if (dependent === of.output || dependent === of.arg) return true;
  const branch = branchOf(dependent);
  return branch !== undefined && branch === branchOf(of.arg);
}

/** The Source of this program whose deletion deletes the object addressed by these arguments (a Sink, a SourceSettings). */
export function deletedWithSource(args: { branchId?: unknown; sourceId?: unknown }): pulumi.Resource | undefined {
  const source = args.sourceId && typeof args.sourceId === "object" ? sources.get(args.sourceId) : undefined;
  return source && sameBranch(args.branchId, source.branch) ? source.resource : undefined;
}

/**
 * The resource of this program whose deletion deletes a SinkSettings: its Sink (deleted in turn
 * with its Source, which Pulumi follows: a delete skipped for `deletedWith` still counts as a
 * deletion), else the Source the settings' sink belongs to.
 */
export function deletedWithSink(args: { branchId?: unknown; sourceId?: unknown; sinkId?: unknown }): pulumi.Resource | undefined {
  const sink = args.sinkId && typeof args.sinkId === "object" ? sinks.get(args.sinkId) : undefined;
  const sameSource = sink !== undefined && (args.sourceId === sink.sourceId.arg || args.sourceId === sink.sourceId.output);
  if (sink && sameSource && sameBranch(args.branchId, sink.branch)) return sink.resource;
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
  if (pulumi.Output.isInstance(value)) {
    const out = value as pulumi.Output<unknown>;
    return pulumi.output(pulumi.isSecret(out)).apply((secretValue): pulumi.Output<string[]> => (secretValue ? pulumi.output([]) : out.apply((v) => plainSecretPaths(v, path))));
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
export function plainSecretWarning(what: string, path: string): string {
  return (
    `warning: ${what}: ${path} is a literal, non-secret value, so Pulumi keeps it in plain text in the program and in its state ` +
    `(Keboola gets it encrypted). Pass pulumi.secret(...) or read it from stack config (pulumi config set --secret <key> <value>, then config.requireSecret("<key>")).`
  );
}
