import { KeboolaClient } from "./api/client";
import { resolveSettings, type ConfigSource } from "./config";
import { PartialFailure, type Method, type Props, type ResourceContext, type ResourceHandler, type ResourceKind } from "./resources/types";

// Loaded by the serialized provider shim at call time, inside the dynamic provider process.
// Holds the stack config and the client for that process; nothing here is serialized to state.

let config: ConfigSource | undefined;
let client: KeboolaClient | undefined;

export function configure(source: ConfigSource): void {
  config = source;
  client = undefined;
}

/** For tests and embedding: use this client instead of one built from config. */
export function useClient(c: KeboolaClient | undefined): void {
  client = c;
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
  try {
    return withoutUndefined(await fn.call(h, context, ...args));
  } catch (err) {
    if (err instanceof PartialFailure) {
      throw new PartialFailure(err.message, err.id, withoutUndefined(err.properties) as Props, err.reasons);
    }
    throw err;
  }
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
