import { legacyCall } from "../../provider/dynamic/runtime";
import type { KindModule, Responses } from "../../provider/lifecycle/dispatch";
import type { Props, ResourceContext } from "../../provider/lifecycle/types";
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

// The resource handlers as the dynamic provider host calls them: raw inputs and state in, with the
// call's identity in the properties (`__resourceName`, `__owner`, `__program`, `__root`) as state
// written by earlier versions carries it, through that door's own dispatch (dynamic/runtime.ts
// legacyCall: schema parsing of inputs and state, presentable errors, the identity kept in what it
// answers; check failures at their paths, as the tests read them). Today's door (resourceProvider) reads the same identity from the provider reference:
// test/provider/dynamic-door.test.ts.

export interface HostedHandler {
  check(ctx: ResourceContext, olds: Props, news: Props): Promise<Responses["check"]>;
  diff(ctx: ResourceContext, id: string, olds: Props, news: Props): Promise<Responses["diff"]>;
  create(ctx: ResourceContext, inputs: Props): Promise<Responses["create"]>;
  read(ctx: ResourceContext, id: string, props: Props): Promise<Responses["read"]>;
  update(ctx: ResourceContext, id: string, olds: Props, news: Props): Promise<Responses["update"]>;
  delete(ctx: ResourceContext, id: string, props: Props): Promise<void>;
}

function hosted(mod: KindModule): HostedHandler {
  return {
    check: (ctx, olds, news) => legacyCall(mod, "check", [olds, news], () => ctx.client(), {}),
    diff: (ctx, id, olds, news) => legacyCall(mod, "diff", [id, olds, news], () => ctx.client(), {}),
    create: (ctx, inputs) => legacyCall(mod, "create", [inputs], () => ctx.client(), {}),
    read: (ctx, id, props) => legacyCall(mod, "read", [id, props], () => ctx.client(), {}),
    update: (ctx, id, olds, news) => legacyCall(mod, "update", [id, olds, news], () => ctx.client(), {}),
    delete: (ctx, id, props) => legacyCall(mod, "delete", [id, props], () => ctx.client(), {}),
  };
}

export const source = hosted(sourceModule);
export const sink = hosted(sinkModule);
export const sourceSettings = hosted(sourceSettingsModule);
export const sinkSettings = hosted(sinkSettingsModule);
export const componentConfig = hosted(componentConfigModule);
export const variableConfig = hosted(variableConfigModule);
export const jobRun = hosted(jobRunModule);
export const flow = hosted(flowModule);
export const schedule = hosted(scheduleModule);
export const bucket = hosted(bucketModule);
export const table = hosted(tableModule);
export const branch = hosted(branchModule);
