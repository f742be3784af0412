import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

// Tests that run the built package (dist/: the CLI, the root Pulumi project, the kinds' provider
// modules; every end-to-end file and a few others) never build it themselves: `npm test` builds
// first, and a file run by hand after an edit would run the old build, so this global setup builds
// once, in vitest's main process before any test file starts, when a source is newer than its
// build. Never during the run: the files run concurrently, and a build writing dist/ while a
// dynamic provider loads a module from it fails that provider.

const ROOT = path.resolve(__dirname, "..");
const SOURCES = ["keboola", "provider", "emulator", "jsonnet", "scripts"];

/** Each TypeScript source and the module the build writes for it. */
function sourcesAndBuilds(): Array<[string, string]> {
  return SOURCES.flatMap((dir) =>
    fs
      .readdirSync(path.join(ROOT, dir), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts") && !f.endsWith(".test.ts"))
      .map((f): [string, string] => [path.join(ROOT, dir, f), path.join(ROOT, "dist", dir, f.replace(/\.ts$/, ".js"))]),
  );
}

const mtime = (file: string): number | undefined => (fs.existsSync(file) ? fs.statSync(file).mtimeMs : undefined);

/** The provider plugin's npm bin, one file bundled from the sources (scripts/plugin-package/bin.ts). */
const PLUGIN_BIN = path.join(ROOT, "dist", "bin", "pulumi-resource-keboola.js");

/** Whether the build is missing or older than a source (a kind's provider module and the plugin's bin included). */
export function buildIsStale(): boolean {
  const kinds = path.join(ROOT, "dist", "kinds");
  if (!fs.existsSync(kinds) || fs.readdirSync(kinds).length === 0) return true;
  const pairs = sourcesAndBuilds();
  const bin = mtime(PLUGIN_BIN) ?? -1;
  return pairs.some(([source, built]) => (mtime(built) ?? -1) < (mtime(source) ?? 0) || bin < (mtime(source) ?? 0));
}

export default function setup(): void {
  if (buildIsStale()) execFileSync("npm", ["run", "build"], { cwd: ROOT, stdio: "pipe" });
}
