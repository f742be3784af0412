import type { ResourceModule } from "../dynamic/runtime";
import type { ResourceKind } from "../kinds/registry";
import * as source from "../kinds/source/kind";
import * as sink from "../kinds/sink/kind";
import * as sourceSettings from "../kinds/settings/source-settings";
import * as sinkSettings from "../kinds/settings/sink-settings";
import * as componentConfig from "../kinds/component-config/kind";
import * as variableConfig from "../kinds/variable-config/kind";
import * as jobRun from "../kinds/job-run/kind";
import * as flow from "../kinds/flow/kind";
import * as schedule from "../kinds/schedule/kind";
import * as bucket from "../kinds/bucket/kind";
import * as table from "../kinds/table/kind";
import * as branch from "../kinds/branch/kind";

// Every kind's module imported statically, for what cannot load them by path at run time as the
// runtime's `load` does (`require(\`./kinds/${file}\`)`): a bundler (the self-contained plugin,
// bundle-main.ts) and the tests that run the TypeScript sources. One entry per row of the kinds
// table (provider/lifecycle/kinds.ts): a kind added there and not here fails to compile.
export const KIND_MODULES: Record<ResourceKind, ResourceModule> = {
  source,
  sink,
  sourceSettings,
  sinkSettings,
  componentConfig,
  variableConfig,
  jobRun,
  flow,
  schedule,
  bucket,
  table,
  branch,
};
