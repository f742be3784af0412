// pulumi-resource-keboola as one file: the entry scripts/plugin-package/build.ts bundles (esbuild)
// into the self-contained plugin executable (a Node.js single-executable application). It is
// main.ts with every kind's module imported statically (static-kinds.ts), so that the bundler sees
// them: inside a single-executable application `require` reaches only Node's built-in modules.
import { serve } from "./serve";
import { KIND_MODULES } from "./static-kinds";

serve({ load: (kind) => KIND_MODULES[kind] });
