import type * as dynamic from "@pulumi/pulumi/dynamic";
import { invoke, type ResourceModule } from "../../provider/dynamic/runtime";
import type { Props, ResourceContext } from "../../provider/lifecycle/types";
import type { ResourceKind } from "../../provider/kinds/registry";
import * as sourceModule from "../../provider/kinds/source/kind";
import * as sinkModule from "../../provider/kinds/sink/kind";
import * as sourceSettingsModule from "../../provider/kinds/settings/source-settings";
import * as sinkSettingsModule from "../../provider/kinds/settings/sink-settings";
import * as componentConfigModule from "../../provider/kinds/component-config/kind";
import * as variableConfigModule from "../../provider/kinds/variable-config/kind";
import * as jobRunModule from "../../provider/kinds/job-run/kind";
import * as flowModule from "../../provider/kinds/flow/kind";
import * as scheduleModule from "../../provider/kinds/schedule/kind";
import * as bucketModule from "../../provider/kinds/bucket/kind";
import * as tableModule from "../../provider/kinds/table/kind";
import * as branchModule from "../../provider/kinds/branch/kind";

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
  return {
    check: (ctx, olds, news) => invoke(mod, kind, "check", [olds, news], ctx),
    diff: (ctx, id, olds, news) => invoke(mod, kind, "diff", [id, olds, news], ctx),
    create: (ctx, inputs) => invoke(mod, kind, "create", [inputs], ctx),
    read: (ctx, id, props) => invoke(mod, kind, "read", [id, props], ctx),
    update: (ctx, id, olds, news) => invoke(mod, kind, "update", [id, olds, news], ctx),
    delete: (ctx, id, props) => invoke(mod, kind, "delete", [id, props], ctx),
  };
}

export const source = hosted(sourceModule, "source");
export const sink = hosted(sinkModule, "sink");
export const sourceSettings = hosted(sourceSettingsModule, "sourceSettings");
export const sinkSettings = hosted(sinkSettingsModule, "sinkSettings");
export const componentConfig = hosted(componentConfigModule, "componentConfig");
export const variableConfig = hosted(variableConfigModule, "variableConfig");
export const jobRun = hosted(jobRunModule, "jobRun");
export const flow = hosted(flowModule, "flow");
export const schedule = hosted(scheduleModule, "schedule");
export const bucket = hosted(bucketModule, "bucket");
export const table = hosted(tableModule, "table");
export const branch = hosted(branchModule, "branch");
