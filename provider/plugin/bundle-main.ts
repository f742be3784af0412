// pulumi-resource-keboola as one file: the entry scripts/plugin-package/build.ts bundles (esbuild)
// into the self-contained plugin executable (a Node.js single-executable application). It is
// main.ts with every kind's module imported here, statically, so that the bundler sees them: the
// runtime's `load` builds a module path at run time (`require(\`./kinds/${file}\`)`), which no
// bundler can follow, and inside a single-executable application `require` reaches only Node's
// built-in modules. Everything else (the handshake on stdout, the signals) is as in main.ts.
import { startPluginServer } from "./server";
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

// One entry per kind of the kinds table (provider/lifecycle/kinds.ts): a kind added there and not
// here fails to compile.
const MODULES: Record<ResourceKind, ResourceModule> = {
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

startPluginServer({ engine: process.argv[2], load: (kind) => MODULES[kind] }).then(
  (server) => {
    process.stdout.write(`${server.port}\n`);
    // The engine ends the plugin with a signal when it is done with it.
    for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => void server.stop().then(() => process.exit(0)));
  },
  (err: unknown) => {
    process.stderr.write(`pulumi-resource-keboola: could not start: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
