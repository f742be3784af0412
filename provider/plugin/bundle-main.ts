// pulumi-resource-keboola as one file: the entry scripts/plugin-package/build.ts bundles (esbuild)
// into the self-contained plugin executable (a Node.js single-executable application). The same
// as main.ts; a file of its own so the executable's entry has no shebang line. The registry's
// `import()` of each kind (kinds/registry.ts) is literal, so the bundler takes every kind in.
import { serve } from "./serve";

serve();
