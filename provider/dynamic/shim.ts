import type * as dynamic from "@pulumi/pulumi/dynamic";
import type { ConfigSource } from "../config";
import type { Method, Results } from "../lifecycle/types";
import type { ResourceKind } from "../kinds/registry";

// The provider object Pulumi serializes into state for every resource and runs again (the old
// copy!) on refresh and delete. It must stay tiny and stable: no clients, classes or secrets,
// only the resource kind and a `require` of the runtime resolved at call time from the
// program's node_modules. All logic lives in `runtime` and can change without touching state.

/**
 * What the shim asks of the runtime module it requires. Declared here rather than taken from
 * runtime.ts, which the shim must never load at import time; runtime.ts is checked against it.
 */
export interface Runtime {
  configure(source: ConfigSource): void;
  /** Runs one method of a kind's handler; answers the method's own result type. */
  call<M extends Method>(kind: ResourceKind, method: M, args: unknown[]): Promise<Results[M]>;
}

export function providerFor(kind: ResourceKind): dynamic.ResourceProvider {
  const rt = (): Runtime => require("keboola-pulumi/runtime");
  return {
    configure: async (req) => rt().configure(req.config),
    check: async (olds, news) => rt().call(kind, "check", [olds, news]),
    diff: async (id, olds, news) => rt().call(kind, "diff", [id, olds, news]),
    create: async (inputs) => rt().call(kind, "create", [inputs]),
    read: async (id, props) => rt().call(kind, "read", [id, props]),
    update: async (id, olds, news) => rt().call(kind, "update", [id, olds, news]),
    delete: async (id, props) => {
      await rt().call(kind, "delete", [id, props]);
    },
  };
}
