import type * as dynamic from "@pulumi/pulumi/dynamic";
import { clientFor, type KeboolaClient } from "../api/client";
import { configuredProjectId, resolveSettings, type ConfigSource } from "../config";
import { PartialFailure, type Method, type Props } from "../lifecycle/types";
import type { CallContext, CallIdentity } from "../lifecycle/call";
import { runMethod, type KindModule, type RawRequests, type Responses, type RunOptions } from "../lifecycle/dispatch";
import { ownerOfUrn } from "../lifecycle/ownership";
import type { ProgramFacts } from "../lifecycle/facts";
import { KINDS, KIND_NAMES, loadKind, type ResourceKind } from "../kinds/registry";
import { factsOf, hiddenOf, legacyIdentity, legacyIdentityProps, nameOfUrn, withoutHidden } from "./props";
import type { ProviderReference } from "../program/reference";
import type { Runtime } from "./shim";
import { isRecord } from "../../keboola/json";

// The dynamic resources' door, in the dynamic provider process Pulumi starts for them. Each
// resource's provider reference (program/reference.ts) evaluates to `resourceProvider(ref)`: a provider
// object that knows whose methods it runs. It builds each call's request once (identity from the
// reference, program facts from the check's hidden input, data without hidden keys) and hands it
// to the kind (lifecycle/dispatch.ts). State written by earlier versions names only the kind in its
// reference and keeps the identity in its properties: `call` serves it (shim.ts).
//
// Loaded by the reference at call time, from the program's node_modules: this module can change
// from one version to the next without touching any state.

let config: ConfigSource | undefined;
let settings: { source: ConfigSource | undefined; client: KeboolaClient } | undefined;

/** The stack config the dynamic provider host hands every provider object it makes (the same one). */
export function configure(source: ConfigSource): void {
  config = source;
}

/** The client of the configured stack, made on first use (a check that needs no API works offline). */
function client(): KeboolaClient {
  if (!settings || settings.source !== config) settings = { source: config, client: clientFor(resolveSettings(config)) };
  return settings.client;
}

/**
 * The project guard of the configured stack (keboola:projectId): verified on the first call of the
 * process, before anything else is asked (api/client.ts keeps the verdict); nothing to verify, and
 * nothing resolved, when the stack names no project.
 */
async function guard(): Promise<void> {
  if (configuredProjectId(config) !== undefined) await client().verifyProject();
}

const contextOf = (call: CallIdentity): CallContext => ({ call, client, guard });

/**
 * Per resource (URN), the program facts of its last check. The engine checks a resource and then,
 * in the same run and process, diffs, creates or updates it with the inputs that check returned;
 * the facts ride only in the check's new inputs (`__program`), never in what check returns, so
 * that state keeps none of them.
 */
const factsByUrn = new Map<string, ProgramFacts>();

const props = (v: unknown): Props => (isRecord(v) ? v : {});

/**
 * Runs a method for the dynamic provider host. A partial failure keeps the resource's provider
 * reference (and `kept`, the identity an earlier version's state carries) in what it leaves in
 * state, so that delete and refresh find the object (no orphan).
 */
async function runFor<M extends Method>(mod: KindModule, method: M, ctx: CallContext, raw: RawRequests[M], about: Props, kept: Props = {}, options: RunOptions = { forEngine: true }): Promise<Responses[M]> {
  try {
    return await runMethod(mod, method, ctx, raw, options);
  } catch (err) {
    if (err instanceof PartialFailure) throw new PartialFailure(err.message, err.id, { ...err.properties, __provider: about.__provider, ...kept }, err.reasons);
    throw err;
  }
}

async function run<M extends Method>(kind: ResourceKind, method: M, call: CallIdentity, raw: RawRequests[M], about: Props): Promise<Responses[M]> {
  return runFor(await loadKind(kind), method, contextOf(call), raw, about);
}

/** The provider object of one resource (what its `__provider` reference evaluates to). */
export function resourceProvider(ref: ProviderReference): dynamic.ResourceProvider {
  const kind = KIND_NAMES.find((k) => KINDS[k].type === ref.type);
  if (!kind) throw new Error(`keboola-pulumi: no kind ${ref.type} in this version (kinds/registry.ts): the state was written by a newer version; install it`);
  const identity = (facts: ProgramFacts): CallIdentity => ({
    name: nameOfUrn(ref.urn),
    urn: ref.urn,
    owner: ownerOfUrn(ref.urn),
    ...(ref.root !== undefined ? { root: ref.root } : {}),
    facts,
    importing: false,
    preview: false,
  });
  const remembered = () => identity(factsByUrn.get(ref.urn) ?? {});
  return {
    configure: async (req) => configure(req.config),
    async check(olds, news) {
      const facts = factsOf(props(news));
      factsByUrn.set(ref.urn, facts);
      return run(kind, "check", identity(facts), { olds: withoutHidden(props(olds)), news: withoutHidden(props(news)) }, props(news));
    },
    diff: async (id, olds, news) => run(kind, "diff", remembered(), { id, olds: withoutHidden(props(olds)), news: withoutHidden(props(news)) }, props(news)),
    create: async (inputs) => run(kind, "create", remembered(), { inputs: withoutHidden(props(inputs)) }, props(inputs)),
    read: async (id, recorded) => run(kind, "read", identity({}), { id, recorded: withoutHidden(props(recorded)) }, props(recorded)),
    update: async (id, olds, news) => run(kind, "update", remembered(), { id, olds: withoutHidden(props(olds)), news: withoutHidden(props(news)) }, props(news)),
    async delete(id, recorded) {
      await run(kind, "delete", identity({}), { id, recorded: withoutHidden(props(recorded)) }, props(recorded));
    },
  };
}

type Legacy<M extends Method> = (mod: KindModule, client: () => KeboolaClient, args: unknown[], options: RunOptions) => Promise<Responses[M]>;

/** A legacy call's context and the properties its answer keeps the identity in. */
function legacy(client: () => KeboolaClient, about: Props, id?: string): { ctx: CallContext; kept: Props } {
  return { ctx: { call: legacyIdentity(about, id), client, guard }, kept: legacyIdentityProps(about) };
}

// The host's positional arguments, per method, as the shim passes them on.
const LEGACY: { [M in Method]: Legacy<M> } = {
  async check(mod, client, [olds, news], options) {
    const { ctx } = legacy(client, props(news));
    const r = await runFor(mod, "check", ctx, { olds: withoutHidden(props(olds)), news: withoutHidden(props(news)) }, props(news), {}, options);
    // Those versions' create and update read the identity and facts from the checked inputs.
    return r.inputs ? { ...r, inputs: { ...r.inputs, ...hiddenOf(props(news)) } } : r;
  },
  async diff(mod, client, [id, olds, news], options) {
    const { ctx } = legacy(client, props(news), String(id));
    return runFor(mod, "diff", ctx, { id: String(id), olds: withoutHidden(props(olds)), news: withoutHidden(props(news)) }, props(news), {}, options);
  },
  async create(mod, client, [inputs], options) {
    const { ctx, kept } = legacy(client, props(inputs));
    const r = await runFor(mod, "create", ctx, { inputs: withoutHidden(props(inputs)) }, props(inputs), kept, options);
    return { ...r, outs: { ...r.outs, ...kept } };
  },
  async read(mod, client, [id, recorded], options) {
    const { ctx, kept } = legacy(client, props(recorded), String(id));
    const r = await runFor(mod, "read", ctx, { id: String(id), recorded: withoutHidden(props(recorded)) }, props(recorded), kept, options);
    return r.props ? { ...r, props: { ...r.props, ...kept }, ...(r.inputs ? { inputs: { ...r.inputs, ...kept } } : {}) } : r;
  },
  async update(mod, client, [id, olds, news], options) {
    const { ctx, kept } = legacy(client, props(news), String(id));
    const r = await runFor(mod, "update", ctx, { id: String(id), olds: withoutHidden(props(olds)), news: withoutHidden(props(news)) }, props(news), kept, options);
    return { outs: { ...r.outs, ...kept } };
  },
  async delete(mod, client, [id, recorded], options) {
    const { ctx } = legacy(client, props(recorded), String(id));
    await runFor(mod, "delete", ctx, { id: String(id), recorded: withoutHidden(props(recorded)) }, props(recorded), {}, options);
  },
};

/**
 * A method with the host's positional arguments and the identity in the properties, as state
 * written by earlier versions has it: identity from the hidden properties those versions kept, and
 * kept in what is answered, so that the resource's next read or delete (run by its recorded
 * reference, this same path) finds it again. `client`: the stack's client (the tests give theirs).
 */
export function legacyCall<M extends Method>(mod: KindModule, method: M, args: unknown[], client: () => KeboolaClient, options: RunOptions = { forEngine: true }): Promise<Responses[M]> {
  const run: Legacy<M> = LEGACY[method];
  return run(mod, client, args, options);
}

/** The provider objects of state written by earlier versions (shim.ts). */
export async function call<M extends Method>(kind: ResourceKind, method: M, args: unknown[]): Promise<Responses[M]> {
  return legacyCall(await loadKind(kind), method, args, client);
}

// The module is what the shim requires: it must offer what the shim calls (compile-time check only).
void ({ configure, call } satisfies Runtime);
