import type * as dynamic from "@pulumi/pulumi/dynamic";
import type { ConfigSource } from "../config";
import type { Method } from "../lifecycle/types";
import type { Responses } from "../lifecycle/dispatch";
import type { ResourceKind } from "../kinds/registry";

// The provider object of resources whose state an earlier version wrote: their `__provider`
// requires `keboola-pulumi/kinds/<kind>` (the build writes those modules from the registry:
// scripts/gen-kinds.ts), whose whole export is this object; the oldest serialized a copy of it.
// It names only the kind: the identity is in the resource's properties (dynamic/props.ts
// legacyIdentity). Today's resources name themselves in their reference (program/reference.ts). It must
// stay tiny and stable: only a `require` of the runtime, resolved at call time.

/**
 * What the shim asks of the runtime module it requires. Declared here rather than taken from
 * runtime.ts, which the shim must never load at import time; runtime.ts is checked against it.
 */
export interface Runtime {
  configure(source: ConfigSource): void;
  /** Runs one method of a kind with the host's positional arguments; answers the method's result. */
  call<M extends Method>(kind: ResourceKind, method: M, args: unknown[]): Promise<Responses[M]>;
}

export function providerFor(kind: ResourceKind): dynamic.ResourceProvider {
  const rt = (): Runtime => require("keboola-pulumi/runtime");
  return {
    configure: async (req) => rt().configure(req.config),
    check: (olds, news) => rt().call(kind, "check", [olds, news]),
    diff: (id, olds, news) => rt().call(kind, "diff", [id, olds, news]),
    create: (inputs) => rt().call(kind, "create", [inputs]),
    read: (id, props) => rt().call(kind, "read", [id, props]),
    update: (id, olds, news) => rt().call(kind, "update", [id, olds, news]),
    delete: async (id, props) => {
      await rt().call(kind, "delete", [id, props]);
    },
  };
}
