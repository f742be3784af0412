import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ok, REPO_ROOT, runProcess } from "./pulumi";

/** The package name of the generated Node.js SDK (sdk/nodejs/package.json), as a program imports it. */
export const NODE_SDK_PACKAGE = "@keboola/pulumi-keboola";

/**
 * A copy of sdk/nodejs as its install makes it (its postinstall: tsc into bin/, package.json
 * beside), against the pinned @pulumi/pulumi: link it into a program with
 * `ws.linkPackage(NODE_SDK_PACKAGE, sdk.dir)`. `cleanup` removes the copy.
 */
export async function installNodeSdk(): Promise<{ dir: string; cleanup(): void }> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "sdk-node-")));
  const dir = path.join(root, "pulumi-keboola");
  const cleanup = () => fs.rmSync(root, { recursive: true, force: true });
  try {
    fs.cpSync(path.join(REPO_ROOT, "sdk", "nodejs"), dir, { recursive: true });
    for (const pkg of ["@pulumi/pulumi", "@types/node"]) {
      fs.mkdirSync(path.dirname(path.join(dir, "node_modules", pkg)), { recursive: true });
      fs.symlinkSync(path.join(REPO_ROOT, "node_modules", pkg), path.join(dir, "node_modules", pkg), "dir");
    }
    const PATH = `${path.join(REPO_ROOT, "node_modules", ".bin")}${path.delimiter}${process.env.PATH ?? ""}`;
    ok(await runProcess(process.execPath, [path.join(dir, "scripts", "postinstall.js")], { cwd: dir, env: { ...process.env, PATH }, timeoutMs: 180_000 }));
  } catch (err) {
    cleanup();
    throw err;
  }
  return { dir, cleanup };
}
