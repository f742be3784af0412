// The npm bin `pulumi-resource-keboola` (package.json's bin) as one file, dist/bin/pulumi-resource-keboola.js,
// bundled from provider/plugin/main.ts by `npm run build` (and `prepare` and `compile`), after tsc.
//
// Why one file: the engine starts a plugin for each `pulumi` command (and a YAML program's type check
// once more, for its schema), and a plugin of some 350 modules spent most of its start finding,
// reading and compiling them (CONTRIBUTING.md, "The provider plugin", has the figures). The bundle
// leaves out what the executable's does not need from the package either: it lives at dist/bin/,
// two levels under the package root like every module of dist/, so the plugin reads package.json,
// schema.json and the jsonnet engine (jsonnet/wasm) from the package as the unbundled modules do,
// and it loads the AWS SDK from node_modules on the first upload (provider/api/upload.ts), as they do.
//
//   node dist/scripts/plugin-package/bin.js      (what `npm run build` runs after tsc)
import * as fs from "node:fs";
import * as path from "node:path";
import { bundlePlugin } from "./bundle";
import { REPO_ROOT } from "../lib/pulumi-workspace";
import { command, runMain } from "../../provider/cli/command";

/** The bin's file, relative to the package root (package.json's bin names it). */
export const PLUGIN_BIN = "dist/bin/pulumi-resource-keboola.js";
const ENTRY = "provider/plugin/main.ts";

/** Writes the bin; answers the bundled modules. */
export async function bundlePluginBin(outfile = path.join(REPO_ROOT, PLUGIN_BIN)): Promise<string[]> {
  const inputs = await bundlePlugin({ entry: ENTRY, outfile, external: ["@aws-sdk/client-s3"] });
  fs.chmodSync(outfile, 0o755);
  return inputs;
}

export const pluginBinCommand = command({
  name: "plugin-bin",
  summary: "bundle the npm bin pulumi-resource-keboola into one file",
  usage: "node dist/scripts/plugin-package/bin.js   (npm run build runs it)",
  description: `Writes ${PLUGIN_BIN} from ${ENTRY} and everything it imports.`,
  options: {},
  async run() {
    await bundlePluginBin();
    return 0;
  },
});

if (require.main === module) runMain(pluginBinCommand);
