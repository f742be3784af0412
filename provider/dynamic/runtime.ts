import { KeboolaClient } from "../api/client";
import { resolveSettings, type ConfigSource } from "../config";
import { PartialFailure, type Method, type Props, type ResourceContext, type Results } from "../lifecycle/types";
import type { ResourceKind } from "../kinds/registry";
import { markerDiff, type AnyDefinition, type CallContext, type Handler } from "../lifecycle/define";
import { ownerOf } from "../lifecycle/ownership";
import { programFacts } from "../lifecycle/facts";
import { failuresForEngine, parseChecked } from "../validation/check";
import { userFacingError } from "../lifecycle/errors";
import { resourceName } from "../lifecycle/common";
import { KINDS } from "../kinds/registry";
import { isRecord } from "../../keboola/json";
import type { Runtime } from "./shim";

// Loaded by the serialized provider shim at call time, inside the dynamic provider process.
// Holds the stack config and the client for that process; nothing here is serialized to state.

let config: ConfigSource | undefined;
let client: KeboolaClient | undefined;

let clientKey: string | undefined;

/**
 * Called once per provider object, so once per resource kind in a process: the client (its
 * service discovery and connection pool) is kept as long as the settings are the same.
 */
export function configure(source: ConfigSource): void {
  config = source;
  let key: string | undefined;
  try {
    key = JSON.stringify(resolveSettings(source));
  } catch {
    key = undefined; // incomplete settings fail on first use, with their own message
  }
  if (key === undefined || key !== clientKey) client = undefined;
  clientKey = key;
}


const context: ResourceContext = {
  client() {
    client ??= new KeboolaClient(resolveSettings(config));
    return client;
  },
};

/** What each module under kinds/ exports for its kind. */
export interface ResourceModule {
  definition: AnyDefinition;
  handler: Handler<AnyDefinition>;
}

// Resource modules load lazily so a process handling only sources never loads the jsonnet engine.
export function load(kind: ResourceKind): ResourceModule {
  // A path built from the kinds table: kinds/<file>.js beside this module.
  const mod: ResourceModule = require(`../kinds/${KINDS[kind].module}`);
  return mod;
}

const props = (v: unknown): Props => (isRecord(v) ? v : {});

/**
 * Runs one method of a kind's handler: inputs parsed by the kind's schema (create, update), state
 * parsed by it (diff, read, update, delete), and errors made presentable.
 */
export function call<M extends Method>(kind: ResourceKind, method: M, args: unknown[]): Promise<Results[M]> {
  return invoke(load(kind), kind, method, args, context, { forEngine: true });
}

/** What one call of a method has: the handler, its definition, the call's context and arguments. */
interface Call {
  mod: ResourceModule;
  ctx: CallContext;
  args: unknown[];
  /** The inputs (or recorded state) the call is about: where the resource's name and owner are found. */
  about: Props;
  label: string;
  /** Check failures at nested paths as the engine prints them (see failuresForEngine); tests read them as they are. */
  forEngine: boolean;
}

// One function per method. Results carry the resource's name and owner into state, so that delete
// and refresh (which see only the state) can name the resource and recognise its objects.
const METHODS: { [M in Method]: (c: Call) => Promise<Results[M]> } = {
  async check({ mod: { handler: h }, ctx, args, forEngine }) {
    const r = await h.check(ctx, props(args[0]), props(args[1]));
    const failures = r.failures && forEngine ? failuresForEngine(r.failures) : r.failures;
    return { ...(r.inputs !== undefined ? { inputs: withoutUndefined(r.inputs) } : {}), ...(failures ? { failures } : {}) };
  },
  async diff({ mod: { definition: def, handler: h }, ctx, args }) {
    const olds = def.parseState(props(args[1]));
    return h.diff ? h.diff(ctx, String(args[0]), olds, props(args[2])) : markerDiff(def, olds, props(args[2]), ctx.call.facts);
  },
  async create({ mod: { definition: def, handler: h }, ctx, args, about, label }) {
    const r = await h.create(ctx, parseChecked(def.inputs, props(args[0]), label));
    return { id: r.id, outs: withIdentity(r.outs, about) };
  },
  async read({ mod: { definition: def, handler: h }, ctx, args, about }) {
    const r = await h.read(ctx, String(args[0]), def.parseState(props(args[1])));
    if (!r.props) return { id: r.id };
    return { id: r.id, props: withIdentity(r.props, about), ...(r.inputs ? { inputs: withIdentity(r.inputs, about) } : {}) };
  },
  async update({ mod: { definition: def, handler: h }, ctx, args, about, label }) {
    const r = await h.update(ctx, String(args[0]), def.parseState(props(args[1])), parseChecked(def.inputs, props(args[2]), label));
    return { outs: withIdentity(r.outs, about) };
  },
  async delete({ mod: { definition: def, handler: h }, ctx, args }) {
    await h.delete(ctx, String(args[0]), def.parseState(props(args[1])));
  },
};

/** `call` for a loaded module and a given client: what tests use to drive a handler as the host does. */
export async function invoke<M extends Method>(mod: ResourceModule, kind: ResourceKind, method: M, args: unknown[], base: ResourceContext, options: { forEngine?: boolean } = {}): Promise<Results[M]> {
  const about = propsOf(method, args);
  // State written by 0.1.0 has no name in a source's or sink's outputs: errors name it by its id then.
  const named = resourceName(about) === "(unnamed)" && method !== "create" && method !== "check" && typeof args[0] === "string" ? { ...about, __resourceName: args[0] } : about;
  const ctx: CallContext = { client: () => base.client(), call: { name: resourceName(named), owner: ownerOf(named), facts: programFacts(named), ...(typeof about.__root === "string" ? { root: about.__root } : {}), ...(about.__import === true ? { importing: true } : {}) } };
  const label = `${mod.definition.type} "${ctx.call.name}"`;
  try {
    return await METHODS[method]({ mod, ctx, args, about, label, forEngine: options.forEngine ?? false });
  } catch (err) {
    if (err instanceof PartialFailure) {
      const failed = userFacingError(mod.definition.type, method, named, err);
      // The object exists: its state keeps the provider, so delete and refresh can find it.
      const properties = { ...err.properties, __provider: about.__provider, ...identity(about) };
      throw new PartialFailure(failed.message, err.id, withoutUndefinedProps(properties), err.reasons);
    }
    throw userFacingError(mod.definition.type, method, named, err);
  }
}

/** The inputs (or recorded state) a call is about: where the resource's name and owner are found. */
function propsOf(method: Method, args: unknown[]): Props {
  switch (method) {
    case "check":
    case "diff":
    case "update":
      return props(args[method === "check" ? 1 : 2]);
    case "create":
      return props(args[0]);
    case "read":
    case "delete":
      return props(args[1]);
  }
}

const identity = (props: Props): Props => ({ __resourceName: props.__resourceName, __owner: props.__owner });

/** Outputs (or read inputs) with the resource's name and owner, ready for the host. */
const withIdentity = (values: unknown, about: Props): Props => withoutUndefinedProps({ ...props(values), ...identity(about) });

/** The host turns results into protobuf Structs, which reject `undefined`: absent means absent. */
export function withoutUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUndefined);
  if (value && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) return withoutUndefinedProps(Object.fromEntries(Object.entries(value)));
  return value;
}

function withoutUndefinedProps(value: Props): Props {
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, withoutUndefined(v)]),
  );
}

export type { Props, Results };

// The module is what the shim requires: it must offer what the shim calls (compile-time check only).
void ({ configure, call } satisfies Runtime);
