// The plugin's resource methods: Check, Diff, Create, Read, Update, Delete of every kind, through
// the same dispatch the dynamic resources use (lifecycle/dispatch.ts). The engine tells the plugin
// who each call is about in the request itself (its URN and name): the call's identity is built
// from it once, apart from the properties, and nothing of it is answered: a plugin resource's
// state holds its inputs and outputs, nothing else.
import * as grpc from "@grpc/grpc-js";
import { Any } from "google-protobuf/google/protobuf/any_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import { Status } from "@pulumi/pulumi/proto/status_pb";
import { runMethod, type KindModule, type RawRequests, type Responses } from "../lifecycle/dispatch";
import type { CallIdentity } from "../lifecycle/call";
import type { ProgramFacts } from "../lifecycle/facts";
import { isResourceKind, KINDS, loadKind, type KindTable, type ResourceKind } from "../kinds/registry";
import { ownerOfUrn, resourceTypeOf } from "../lifecycle/ownership";
import { PartialFailure, type Method, type Props, type ResourceContext } from "../lifecycle/types";
import { fromStruct, toStruct, visible } from "./values";
import { clientFor } from "../api/client";
import { configuredProjectId, resolveSettings } from "../config";
import type { PluginConfig } from "./provider-config";
import type { EngineLog } from "./engine-log";
import { isRecord } from "../../keboola/json";
import { PACKAGE, resourceToken } from "./package-schema";
import { CallError, type CallFailure } from "./call-error";

/** The resource type tokens a table's kinds are served under (`keboola:index:Bucket`), in its order. */
export function resourceTokens(table: KindTable = KINDS): string[] {
  return Object.values(table).map((row) => resourceToken(row.type));
}

/** The kind (its key in the table) a resource type token names, if any. */
export function kindKeyOfToken(token: string, table: KindTable = KINDS): string | undefined {
  return Object.keys(table).find((k) => resourceToken(table[k].type) === token);
}

/** The kind a resource type token names; refused naming the tokens served. */
export function kindOfToken(token: string): ResourceKind {
  const kind = kindKeyOfToken(token);
  if (kind === undefined || !isResourceKind(kind)) throw new CallError({ code: grpc.status.INVALID_ARGUMENT, details: `${PACKAGE}: unknown resource type "${token}"; this provider serves ${resourceTokens().join(", ")}` });
  return kind;
}

/** What one request says about its resource. */
interface About {
  urn: string;
  name: string;
  type: string;
}

function about(req: { getUrn(): string; getName(): string; getType(): string }): About {
  const urn = req.getUrn();
  return { urn, name: req.getName() || urn.split("::").pop() || "", type: req.getType() || resourceTypeOf(urn) };
}

/**
 * The call's identity, from the request: the resource's name and URN, its owner (the same marker
 * for both front doors, see ownerOfUrn) and the program's directory, which a Table's relative data
 * path is relative to (the engine starts a plugin in the program's directory). A plugin sees one
 * resource at a time: it knows no program facts, but what a check assumes (see check).
 */
function identity(a: About, options: { facts?: ProgramFacts; importing?: boolean; preview?: boolean } = {}): CallIdentity {
  return { name: a.name, urn: a.urn, owner: ownerOfUrn(a.urn), root: process.cwd(), facts: options.facts ?? {}, importing: options.importing ?? false, preview: options.preview ?? false };
}

/**
 * What a check assumes when it cannot know whether an object it references is created by the same
 * program (see PluginResources.check): that it is, as program facts say for the dynamic resources.
 */
function assumedDeclared(news: Props): ProgramFacts {
  const phases = Array.isArray(news.phases) ? news.phases : [];
  const declaredTasks = phases.map((p: unknown) => (isRecord(p) && Array.isArray(p.tasks) ? p.tasks.map(() => true) : []));
  return { declared: true, declaredTasks };
}

const sameFailure = (a: Failure, b: Failure) => a.property === b.property && a.reason === b.reason;

type Failure = { property: string; reason: string };

/**
 * The client of the plugin's configuration: the one client of its resolved settings (api/client.ts
 * clientFor); and its project guard, which the first call after Configure runs before anything else
 * (the verdict is kept per settings, so a process verifies each configuration's project once).
 */
export function clientOf(config: PluginConfig): ResourceContext {
  const client = () => clientFor(resolveSettings(config.source));
  return {
    client,
    async guard() {
      if (configuredProjectId(config.source) !== undefined) await client().verifyProject();
    },
  };
}

export class PluginResources {
  /** Per resource (URN), the failures its last Check left to be checked again before it is written. */
  private readonly deferred = new Map<string, Failure[]>();

  constructor(
    private readonly context: ResourceContext,
    private readonly log: EngineLog,
    /** A kind's module (the registry's lazy loading; tests may give theirs). */
    private readonly loadModule: (kind: ResourceKind) => Promise<KindModule> = loadKind,
  ) {}

  private async run<M extends Method>(a: About, method: M, call: CallIdentity, raw: RawRequests[M]): Promise<{ mod: KindModule; result: Responses[M] }> {
    const mod = await this.loadModule(kindOfToken(a.type));
    try {
      return { mod, result: await runMethod(mod, method, { call, client: () => this.context.client(), guard: () => this.context.guard?.() ?? Promise.resolve() }, raw, { forEngine: true }) };
    } catch (err) {
      throw new CallError(failureOf(err, mod));
    }
  }

  /**
   * The kind's check, without program facts. The dynamic resources are told which referenced
   * objects their program declares (those may not exist yet at preview); a plugin sees one resource
   * at a time. So a check runs as for an object declared nowhere, and when it fails, once more as
   * if every object it references were declared by the program. A failure of the second run is the
   * resource's own and refuses it; one only the first run has (a referenced source, sink, bucket or
   * configuration that does not exist yet) may be an object this program creates first: it is
   * reported as a warning, and checked again right before the resource is created or updated,
   * when such an object exists, refusing it then before anything is written.
   */
  async check(req: proto.CheckRequest): Promise<proto.CheckResponse> {
    const a = about(req);
    const olds = fromStruct(req.getOlds());
    const news = fromStruct(req.getNews());
    const strict = (await this.run(a, "check", identity(a), { olds, news })).result;
    let result = strict;
    let deferred: Failure[] = [];
    if (strict.failures?.length) {
      result = (await this.run(a, "check", identity(a, { facts: assumedDeclared(news) }), { olds, news })).result;
      const own = result.failures ?? [];
      deferred = strict.failures.filter((f) => !own.some((o) => sameFailure(o, f)));
    }
    if (deferred.length > 0) {
      this.deferred.set(a.urn, deferred);
      for (const f of deferred) await this.log.warn(a.urn, `not refused yet: ${describeFailure(f)}. If this program creates that object, it exists by the time this resource is created; this is checked again then, before anything is written.`);
    } else {
      this.deferred.delete(a.urn);
    }
    const resp = new proto.CheckResponse().setInputs(toStruct(visible(result.inputs ?? news)));
    return resp.setFailuresList((result.failures ?? []).map((f) => new proto.CheckFailure().setProperty(f.property).setReason(f.reason)));
  }

  /** Before a write: the failures the last Check deferred, checked again now (see check). */
  private async recheck(a: About, olds: Props, news: Props): Promise<void> {
    if (!this.deferred.has(a.urn)) return;
    const { result } = await this.run(a, "check", identity(a), { olds, news });
    const failures = result.failures ?? [];
    if (failures.length === 0) {
      this.deferred.delete(a.urn);
      return;
    }
    const kind = kindOfToken(a.type);
    throw new CallError({ code: grpc.status.FAILED_PRECONDITION, details: `${KINDS[kind].type} "${a.name}": not written: ${failures.map(describeFailure).join("; ")}` });
  }

  async diff(req: proto.DiffRequest): Promise<proto.DiffResponse> {
    const a = about(req);
    const { result } = await this.run(a, "diff", identity(a), { id: req.getId(), olds: fromStruct(req.getOlds()), news: fromStruct(req.getNews()) });
    const changes = result.changes === true ? proto.DiffResponse.DiffChanges.DIFF_SOME : result.changes === false ? proto.DiffResponse.DiffChanges.DIFF_NONE : proto.DiffResponse.DiffChanges.DIFF_UNKNOWN;
    return new proto.DiffResponse()
      .setChanges(changes)
      .setReplacesList(result.replaces ?? [])
      .setStablesList(result.stables ?? [])
      .setDeletebeforereplace(result.deleteBeforeReplace ?? false);
  }

  async create(req: proto.CreateRequest): Promise<proto.CreateResponse> {
    // A preview: nothing is written. The answer is what the engine itself answers for a provider
    // that does not preview (the inputs, no id; an output not among them is unknown to dependents),
    // which is how the dynamic resources preview. The engine asks because the plugin has a
    // handshake: it then takes every plugin to support preview (provider_plugin.go, NewProvider).
    if (req.getPreview()) return new proto.CreateResponse().setProperties(req.getProperties());
    const a = about(req);
    const inputs = fromStruct(req.getProperties());
    await this.recheck(a, {}, inputs);
    const { mod, result } = await this.run(a, "create", identity(a), { inputs });
    return new proto.CreateResponse().setId(result.id).setProperties(outputs(mod, result.outs));
  }

  async read(req: proto.ReadRequest): Promise<proto.ReadResponse> {
    const a = about(req);
    const recorded = fromStruct(req.getProperties());
    // No properties: `pulumi import` (or `get`) reading the object from its id alone.
    const importing = Object.keys(recorded).length === 0;
    const { mod, result } = await this.run(a, "read", identity(a, { importing }), { id: req.getId(), recorded });
    const resp = new proto.ReadResponse().setId(result.id ?? "");
    // Gone: an empty answer, which the engine reads as "deleted outside Pulumi".
    if (!result.props) return resp;
    resp.setProperties(outputs(mod, result.props));
    if (result.inputs) resp.setInputs(toStruct(visible(result.inputs)));
    return resp;
  }

  async update(req: proto.UpdateRequest): Promise<proto.UpdateResponse> {
    // A preview: the new inputs, as for create.
    if (req.getPreview()) return new proto.UpdateResponse().setProperties(req.getNews());
    const a = about(req);
    const news = fromStruct(req.getNews());
    await this.recheck(a, fromStruct(req.getOldInputs()), news);
    const { mod, result } = await this.run(a, "update", identity(a), { id: req.getId(), olds: fromStruct(req.getOlds()), news });
    return new proto.UpdateResponse().setProperties(outputs(mod, result.outs));
  }

  async delete(req: proto.DeleteRequest): Promise<void> {
    const a = about(req);
    await this.run(a, "delete", identity(a), { id: req.getId(), recorded: fromStruct(req.getProperties()) });
  }
}

/** A check failure in one line: its property path (the resource's own when empty) and reason. */
const describeFailure = (f: Failure): string => (f.property ? `${f.property} ${f.reason}` : f.reason);

/** A kind's outputs as the engine keeps them: its secret ones marked, the hidden ones left out. */
function outputs(mod: KindModule, outs: unknown): Struct {
  const props: Props = outs !== null && typeof outs === "object" ? Object.fromEntries(Object.entries(outs)) : {};
  return toStruct(visible(props), mod.definition.secretState);
}

/**
 * A failed call as the engine takes it. A PartialFailure (the object exists but did not reach the
 * declared state) carries the object's id and properties in Pulumi's ErrorResourceInitFailed
 * detail, so the engine keeps tracking the object and the next `up` updates it (no orphan).
 */
function failureOf(err: unknown, mod: KindModule): CallFailure {
  const message = err instanceof Error ? err.message : String(err);
  if (!(err instanceof PartialFailure)) return { code: grpc.status.UNKNOWN, details: message };
  const detail = new proto.ErrorResourceInitFailed().setId(err.id).setProperties(outputs(mod, err.properties)).setReasonsList(err.reasons);
  const any = new Any();
  any.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
  const status = new Status().setCode(grpc.status.UNKNOWN).setMessage(message).setDetailsList([any]);
  const metadata = new grpc.Metadata();
  // gRPC's rich status: the one way grpc-js sends structured details the Go engine reads.
  metadata.add("grpc-status-details-bin", Buffer.from(status.serializeBinary()));
  return { code: grpc.status.UNKNOWN, details: message, metadata };
}
