// The provider plugin as one JavaScript file (esbuild), in its two forms:
//   - the npm bin `pulumi-resource-keboola` (bin.ts, written by `npm run build`): Node.js loads one
//     file instead of resolving, reading and compiling some 350 modules of the package and its
//     dependencies at each start;
//   - the self-contained executable's script (build.ts, `npm run build:plugin`).
// Both leave out what the plugin never runs (LEFT_OUT), and both refuse to bundle what it must never
// load (FORBIDDEN): the bundle holds every module its entry reaches, run or not, so this is where a
// stray import would show.
import * as fs from "node:fs";
import * as path from "node:path";
import * as esbuild from "esbuild";
import { REPO_ROOT } from "../lib/pulumi-workspace";

/**
 * Modules the plugin reaches by a `require` it never runs, left to the running Node.js' `require`
 * (which in the executable throws MODULE_NOT_FOUND, see build.ts; from the npm bin it loads them
 * from node_modules), each with the reason it is never run:
 */
export const LEFT_OUT: Record<string, string> = {
  // Dynamic resources' provider code (provider/shim.ts, lifecycle/kind-provider.ts): a program's.
  "keboola-pulumi": "the dynamic resources' provider reference, required in a program's process only",
  "keboola-pulumi/*": "the same",
  // grpc-js requires it for channelz's and ORCA's service definitions, when a server adds those
  // services (the plugin adds none); with it go protobufjs, long and lodash.camelcase: 330 KB.
  "@grpc/proto-loader": "grpc-js' channelz and ORCA services, which the plugin's server does not add",
  // The AWS SDK's user agent in a browser (createUserAgentStringParsingProvider): 70 KB.
  bowser: "the AWS SDK's user agent parser for browsers",
};

/**
 * What the plugin must never load, by the module's path: the Pulumi SDK but its protocol messages
 * (its runtime, resource classes, TypeScript and npm's arborist: a program's), the kinds' resource
 * classes and the program process' modules.
 */
export const FORBIDDEN: Array<{ pattern: RegExp; why: string }> = [
  { pattern: /node_modules\/@pulumi\/pulumi\/(?!proto\/)/, why: "the Pulumi SDK's runtime (of @pulumi/pulumi the plugin takes only proto/, the protocol's messages)" },
  { pattern: /node_modules\/(typescript|@npmcli\/arborist)\//, why: "TypeScript and npm's arborist, which the Pulumi SDK loads for a program" },
  { pattern: /provider\/kinds\/[^/]+\/resource\.[jt]s$/, why: "a kind's resource class, which only a program loads" },
  { pattern: /provider\/program\//, why: "the program process' modules" },
];

/** The bundled modules `FORBIDDEN` refuses, each with why; empty when none is. */
export function forbiddenModules(inputs: readonly string[]): string[] {
  return inputs.flatMap((input) => {
    const rule = FORBIDDEN.find((r) => r.pattern.test(input.split(path.sep).join("/")));
    return rule ? [`${input}: ${rule.why}`] : [];
  });
}

/**
 * zod's locales: every language's error messages (400 KB), which `z.locales` names and nothing here
 * uses; zod itself imports English by its own path. The index answers English alone.
 */
const englishOnly: esbuild.Plugin = {
  name: "zod-english-only",
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: 'export { default as en } from "./en.js";\n',
      loader: "js",
      resolveDir: path.dirname(args.path),
    }));
  },
};

export interface BundleSpec {
  /** The entry, relative to the repository. */
  entry: string;
  outfile: string;
  /** Modules left out besides `LEFT_OUT` (what one form loads from elsewhere or never runs). */
  external?: readonly string[];
  /** The first lines (after the entry's `#!` line, which esbuild keeps). */
  banner?: string;
  plugins?: esbuild.Plugin[];
}

/** Bundles `spec.entry` into `spec.outfile`; answers the bundled modules (their paths relative to the repository). */
export async function bundlePlugin(spec: BundleSpec): Promise<string[]> {
  const result = await esbuild.build({
    absWorkingDir: REPO_ROOT,
    entryPoints: [spec.entry],
    outfile: spec.outfile,
    bundle: true,
    platform: "node",
    target: `node${process.versions.node.split(".")[0]}`,
    format: "cjs",
    // import() becomes require(): a single executable of Node.js 20 runs its script without a
    // dynamic import callback ("A dynamic import callback was not specified"), and the kinds
    // import node:crypto and node:fs so, on first use (provider/kinds/table.ts).
    supported: { "dynamic-import": false },
    metafile: true,
    logLevel: "warning",
    external: [...Object.keys(LEFT_OUT), ...(spec.external ?? [])],
    plugins: [englishOnly, ...(spec.plugins ?? [])],
    ...(spec.banner ? { banner: { js: spec.banner } } : {}),
  });
  const inputs = Object.keys(result.metafile.inputs);
  const forbidden = forbiddenModules(inputs);
  if (forbidden.length > 0) {
    fs.rmSync(spec.outfile, { force: true });
    throw new Error(`the plugin's bundle would hold modules the plugin must never load:\n  ${forbidden.join("\n  ")}`);
  }
  return inputs;
}
