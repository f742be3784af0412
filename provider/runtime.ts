import { KeboolaClient } from "./api/client";
import { resolveSettings, type ConfigSource } from "./config";
import { PartialFailure, type Method, type Props, type ResourceContext, type ResourceHandler, type ResourceKind } from "./resources/types";
import { userFacingError } from "./errors";
import { resourceName } from "./resources/common";

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

// Resource modules load lazily so a process handling only sources never loads the jsonnet engine.
function handler(kind: ResourceKind): ResourceHandler {
  switch (kind) {
    case "source":
      return (require("./resources/source") as { handler: ResourceHandler }).handler;
    case "sink":
      return (require("./resources/sink") as { handler: ResourceHandler }).handler;
    case "sourceSettings":
      return (require("./resources/source-settings") as { handler: ResourceHandler }).handler;
    case "sinkSettings":
      return (require("./resources/sink-settings") as { handler: ResourceHandler }).handler;
    case "componentConfig":
      return (require("./resources/component-config") as { handler: ResourceHandler }).handler;
    case "variableConfig":
      return (require("./resources/variable-config") as { handler: ResourceHandler }).handler;
    case "jobRun":
      return (require("./resources/job-run") as { handler: ResourceHandler }).handler;
  }
}

export async function call(kind: ResourceKind, method: Method, args: unknown[]): Promise<unknown> {
  const h = handler(kind);
  const fn = h[method] as (ctx: ResourceContext, ...a: unknown[]) => Promise<unknown>;
  const props = propsOf(method, args);
  // State written by 0.1.0 has no name in a source's or sink's outputs: errors name it by its id then.
  const named = resourceName(props) === "(unnamed)" && method !== "create" && method !== "check" && typeof args[0] === "string" ? { ...props, __resourceName: args[0] } : props;
  try {
    return withoutUndefined(withIdentity(method, await fn.call(h, context, ...args), props));
  } catch (err) {
    if (err instanceof PartialFailure) {
      const failed = userFacingError(kind, method, named, err);
      throw new PartialFailure(failed.message, err.id, withoutUndefined({ ...err.properties, ...identity(props) }) as Props, err.reasons);
    }
    throw userFacingError(kind, method, named, err);
  }
}

/** The inputs (or recorded state) a call is about: where the resource's name and owner are found. */
function propsOf(method: Method, args: unknown[]): Props {
  const pick = (i: number) => (args[i] && typeof args[i] === "object" ? (args[i] as Props) : {});
  switch (method) {
    case "check":
    case "diff":
    case "update":
      return pick(method === "check" ? 1 : 2);
    case "create":
      return pick(0);
    case "read":
    case "delete":
      return pick(1);
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
