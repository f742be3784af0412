import type * as dynamic from "@pulumi/pulumi/dynamic";
import { invoke, type ResourceModule } from "../../provider/runtime";
import type { Props, ResourceContext, ResourceKind } from "../../provider/resources/types";
import * as sourceModule from "../../provider/resources/source";
import * as sinkModule from "../../provider/resources/sink";
import * as sourceSettingsModule from "../../provider/resources/source-settings";
import * as sinkSettingsModule from "../../provider/resources/sink-settings";
import * as componentConfigModule from "../../provider/resources/component-config";
import * as variableConfigModule from "../../provider/resources/variable-config";
import * as jobRunModule from "../../provider/resources/job-run";
import * as bucketModule from "../../provider/resources/bucket";
import * as tableModule from "../../provider/resources/storage-table";

// The resource handlers as the dynamic provider host calls them: raw inputs and state in, through
// the runtime's own dispatch (schema parsing of inputs and state, identity, presentable errors).

export interface HostedHandler {
  check(ctx: ResourceContext, olds: Props, news: Props): Promise<dynamic.CheckResult>;
  diff(ctx: ResourceContext, id: string, olds: Props, news: Props): Promise<dynamic.DiffResult>;
  create(ctx: ResourceContext, inputs: Props): Promise<dynamic.CreateResult>;
  read(ctx: ResourceContext, id: string, props: Props): Promise<dynamic.ReadResult>;
  update(ctx: ResourceContext, id: string, olds: Props, news: Props): Promise<dynamic.UpdateResult>;
  delete(ctx: ResourceContext, id: string, props: Props): Promise<void>;
}

function hosted(mod: ResourceModule, kind: ResourceKind): HostedHandler {
  const run = <T>(ctx: ResourceContext, method: Parameters<typeof invoke>[2], args: unknown[]) => invoke(mod, kind, method, args, ctx) as Promise<T>;
  return {
    check: (ctx, olds, news) => run(ctx, "check", [olds, news]),
    diff: (ctx, id, olds, news) => run(ctx, "diff", [id, olds, news]),
    create: (ctx, inputs) => run(ctx, "create", [inputs]),
    read: (ctx, id, props) => run(ctx, "read", [id, props]),
    update: (ctx, id, olds, news) => run(ctx, "update", [id, olds, news]),
    delete: async (ctx, id, props) => {
      await run(ctx, "delete", [id, props]);
    },
  };
}

export const source = hosted(sourceModule as ResourceModule, "source");
export const sink = hosted(sinkModule as ResourceModule, "sink");
export const sourceSettings = hosted(sourceSettingsModule as ResourceModule, "sourceSettings");
export const sinkSettings = hosted(sinkSettingsModule as ResourceModule, "sinkSettings");
export const componentConfig = hosted(componentConfigModule as ResourceModule, "componentConfig");
export const variableConfig = hosted(variableConfigModule as ResourceModule, "variableConfig");
export const jobRun = hosted(jobRunModule as ResourceModule, "jobRun");
export const bucket = hosted(bucketModule as ResourceModule, "bucket");
export const table = hosted(tableModule as ResourceModule, "table");
