import type * as dynamic from "@pulumi/pulumi/dynamic";
import type { ResourceKind } from "./resources/types";

// The provider object Pulumi serializes into state for every resource and runs again (the old
// copy!) on refresh and delete. It must stay tiny and stable: no clients, classes or secrets,
// only the resource kind and a `require` of the runtime resolved at call time from the
// program's node_modules. All logic lives in `runtime` and can change without touching state.

export function providerFor(kind: ResourceKind): dynamic.ResourceProvider {
  const rt = () => require("keboola-pulumi/runtime") as typeof import("./runtime");
  return {
    configure: async (req) => rt().configure(req.config),
    check: async (olds, news) => (await rt().call(kind, "check", [olds, news])) as dynamic.CheckResult,
    diff: async (id, olds, news) => (await rt().call(kind, "diff", [id, olds, news])) as dynamic.DiffResult,
    create: async (inputs) => (await rt().call(kind, "create", [inputs])) as dynamic.CreateResult,
    read: async (id, props) => (await rt().call(kind, "read", [id, props])) as dynamic.ReadResult,
    update: async (id, olds, news) => (await rt().call(kind, "update", [id, olds, news])) as dynamic.UpdateResult,
    delete: async (id, props) => {
      await rt().call(kind, "delete", [id, props]);
    },
  };
}
