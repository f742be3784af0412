import * as pulumi from "@pulumi/pulumi";
import { normalizeId } from "../validation/ids";
import { formatPath, isEncrypted, isSecretKey, passesUnencrypted, type JsonStep } from "../../keboola/secrets";

// What one Pulumi program declares, known in the program process while it runs (the provider
// process sees one resource at a time). Two resources that would address the same remote object
// are refused when the second is constructed, so the mistake surfaces at preview; and what a
// resource's inputs say about it (a Source's type) follows its outputs to the resources that
// reference them, so their checks can use it before the object exists.

const declared = new Map<string, string>();
const sources = new WeakMap<object, { type: string }>();

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

/** After the Source registered: its sourceId output carries its type to the sinks that reference it. */
export function declaredSource(args: SourceDeclaration, resource: { sourceId: pulumi.Output<string> }): void {
  sources.set(resource.sourceId, { type: literal(args.type) ? args.type : "http" });
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
