import { KeboolaClient } from "./api/client";
import { resolveSettings, type ConfigSource } from "./config";
import { PartialFailure, type Method, type Props, type ResourceContext, type ResourceKind } from "./resources/types";
import { markerDiff, type AnyDefinition, type CallContext, type Handler } from "./resources/define";
import { ownerOf } from "./resources/ownership";
import { programFacts } from "./resources/preflight";
import { failuresForEngine, parseChecked } from "./validation/check";
import { userFacingError } from "./errors";
import { resourceName } from "./resources/common";
import { KINDS } from "./kinds/table";

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

/** What each module under resources/ exports for its kind. */
export interface ResourceModule {
  definition: AnyDefinition;
  handler: Handler<AnyDefinition>;
}

// Resource modules load lazily so a process handling only sources never loads the jsonnet engine.
function load(kind: ResourceKind): ResourceModule {
  // A path built from the kinds table: resources/<file>.js beside this module.
  return require(`./resources/${KINDS[kind].file}`) as ResourceModule;
}

const props = (v: unknown): Props => (v && typeof v === "object" ? (v as Props) : {});

/**
 * Runs one method of a kind's handler: inputs parsed by the kind's schema (create, update), state
 * parsed by it (diff, read, update, delete), and errors made presentable.
 */
export async function call(kind: ResourceKind, method: Method, args: unknown[]): Promise<unknown> {
  const result = await invoke(load(kind), kind, method, args, context);
  if (method !== "check" || !result || typeof result !== "object") return result;
  const r = result as { failures?: unknown };
  return Array.isArray(r.failures) ? { ...result, failures: failuresForEngine(r.failures) } : result;
}

/** `call` for a loaded module and a given client: what tests use to drive a handler as the host does. */
export async function invoke(mod: ResourceModule, kind: ResourceKind, method: Method, args: unknown[], base: ResourceContext): Promise<unknown> {
  const { definition: def, handler: h } = mod;
  const about = propsOf(method, args);
  // State written by 0.1.0 has no name in a source's or sink's outputs: errors name it by its id then.
  const named = resourceName(about) === "(unnamed)" && method !== "create" && method !== "check" && typeof args[0] === "string" ? { ...about, __resourceName: args[0] } : about;
  const ctx: CallContext = { client: () => base.client(), call: { name: resourceName(named), owner: ownerOf(named), facts: programFacts(named), ...(typeof about.__root === "string" ? { root: about.__root } : {}) } };
  const label = `${def.type} "${ctx.call.name}"`;
  try {
    const result = await (async (): Promise<unknown> => {
      switch (method) {
        case "check":
          return h.check(ctx, props(args[0]), props(args[1]));
        case "diff": {
          const olds = def.parseState(props(args[1]));
          return h.diff ? h.diff(ctx, String(args[0]), olds, props(args[2])) : markerDiff(def, olds, props(args[2]));
        }
        case "create":
          return h.create(ctx, parseChecked(def.inputs, props(args[0]), label));
        case "read":
          return h.read(ctx, String(args[0]), def.parseState(props(args[1])));
        case "update":
          return h.update(ctx, String(args[0]), def.parseState(props(args[1])), parseChecked(def.inputs, props(args[2]), label));
        case "delete":
          return h.delete(ctx, String(args[0]), def.parseState(props(args[1])));
      }
    })();
    return withoutUndefined(withIdentity(method, result, about));
  } catch (err) {
    if (err instanceof PartialFailure) {
      const failed = userFacingError(kind, method, named, err);
      // The object exists: its state keeps the provider, so delete and refresh can find it.
      const properties = { ...err.properties, __provider: about.__provider, ...identity(about) };
      throw new PartialFailure(failed.message, err.id, withoutUndefined(properties) as Props, err.reasons);
    }
    throw userFacingError(kind, method, named, err);
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

/**
 * Results carry the resource's name and owner into state, so that delete and refresh (which see
 * only the state) can name the resource and recognise its objects.
 */
function withIdentity(method: Method, result: unknown, props: Props): unknown {
  if (!result || typeof result !== "object") return result;
  const r = result as { outs?: Props; props?: Props; inputs?: Props };
  if ((method === "create" || method === "update") && r.outs) return { ...r, outs: { ...r.outs, ...identity(props) } };
  if (method === "read" && r.props) {
    return { ...r, props: { ...r.props, ...identity(props) }, ...(r.inputs ? { inputs: { ...r.inputs, ...identity(props) } } : {}) };
  }
  return result;
}

/** The host turns results into protobuf Structs, which reject `undefined`: absent means absent. */
export function withoutUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUndefined);
  if (value && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, withoutUndefined(v)]),
    );
  }
  return value;
}

export type { Props };
