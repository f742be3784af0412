import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { z } from "zod";
import { parseJson } from "../../keboola/json";
import { REPO_ROOT } from "./pulumi-workspace";

// The package as a user gets it: `npm pack` of this repository (built), installed with npm into a
// directory of its own together with the Pulumi SDK, exactly as the README's "npm install
// keboola-pulumi @pulumi/pulumi" does (the SDK pinned to the version this repository builds the
// CLI for). Linked workspaces hide install and compile problems; this does not.

/** Packs the repository into `dir` and installs the tarball there; returns the node_modules path. */
export function packAndInstall(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  // --ignore-scripts: the build the caller made is packed as it is. npm pack would otherwise run the
  // `prepare` script, rebuilding dist/ under everything else that runs from it at the same time
  // (the end-to-end files run concurrently: a dynamic provider loading a half-written module fails).
  const name = execFileSync("npm", ["pack", "--silent", "--ignore-scripts", "--pack-destination", dir], { cwd: REPO_ROOT, encoding: "utf8" }).trim().split("\n").pop()!;
  const { version: pulumiVersion } = z.object({ version: z.string() }).parse(parseJson(fs.readFileSync(path.join(REPO_ROOT, "node_modules/@pulumi/pulumi/package.json"), "utf8")));
  if (!fs.existsSync(path.join(dir, "package.json"))) {
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "keboola-pulumi-user", version: "0.0.0", private: true }));
  }
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", path.join(dir, name), `@pulumi/pulumi@${pulumiVersion}`], { cwd: dir, stdio: "pipe" });
  return path.join(dir, "node_modules");
}
