import type * as dynamic from "@pulumi/pulumi/dynamic";
import type { ResourceKind } from "./resources/types";

// The provider object Pulumi serializes into state for every resource and runs again (the old
// copy!) on refresh and delete. It must stay tiny and stable: no clients, classes or secrets,
// only the resource kind and a `require` of the runtime resolved at call time from the
// program's node_modules. All logic lives in `runtime` and can change without touching state.

export function providerFor(kind: ResourceKind): dynamic.ResourceProvider {
  // `call` answers each method's own result type (runtime.ts, Results).
  const rt = (): typeof import("./runtime") => require("keboola-pulumi/runtime");
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
