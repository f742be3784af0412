import type { ResourceModule } from "../runtime";
import type { ResourceKind } from "../lifecycle/types";
import * as source from "../kinds/source";
import * as sink from "../kinds/sink";
import * as sourceSettings from "../kinds/source-settings";
import * as sinkSettings from "../kinds/sink-settings";
import * as componentConfig from "../kinds/component-config";
import * as variableConfig from "../kinds/variable-config";
import * as jobRun from "../kinds/job-run";
import * as flow from "../kinds/flow";
import * as schedule from "../kinds/schedule";
import * as bucket from "../kinds/bucket";
import * as table from "../kinds/table";
import * as branch from "../kinds/branch";

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
