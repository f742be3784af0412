import * as fs from "node:fs";
import * as path from "node:path";
import { randomBytes } from "node:crypto";
import { makePulumiWorkspace, REPO_ROOT, type PulumiWorkspace, type RunOptions, type RunResult } from "./pulumi-workspace";

// The repository's root Pulumi project (Pulumi.yaml -> the manifest program) driven by the real
// CLI: the state lives in a temporary file backend, and the stack's config file
// (Pulumi.<stack>.yaml, written next to Pulumi.yaml) gets a unique name and is removed again.

export interface RootProject {
  readonly ws: PulumiWorkspace;
  readonly stack: string;
  /** `pulumi <args> --stack <stack>` in the repository root. */
  pulumi(args: string[], options?: RunOptions): Promise<RunResult>;
  setConfig(key: string, value: string, options?: { secret?: boolean }): Promise<RunResult>;
  cleanup(): Promise<void>;
}

export async function makeRootProject(options: { prefix: string; host: string; token: string; manifest: string; stack?: string }): Promise<RootProject> {
  // A fixed stack name (for output that names it, such as a golden file) must be unique to its
  // caller: its config file lives in the repository root while the stack exists.
  const stack = options.stack ?? `${options.prefix}-${randomBytes(4).toString("hex")}`;
  const ws = await makePulumiWorkspace({ project: "keboola", stack, prefix: `keboola-${options.prefix}-` });
  const run = (args: string[], o: RunOptions = {}) => ws.pulumi([...args, "--stack", stack], { ...o, cwd: REPO_ROOT });
  const must = async (what: string, res: Promise<RunResult>) => {
    const r = await res;
    if (r.code !== 0) throw new Error(`pulumi ${what} failed (exit ${String(r.code)}):\n${r.stdout}\n${r.stderr}`);
    return r;
  };
  const setConfig = (key: string, value: string, o: { secret?: boolean } = {}) =>
    run(["config", "set", ...(o.secret ? ["--secret"] : ["--plaintext"]), key, value]);
  await must("stack init", ws.pulumi(["stack", "init", stack], { cwd: REPO_ROOT }));
  await must("config set", setConfig("keboola:host", options.host));
  await must("config set", setConfig("keboola:token", options.token, { secret: true }));
  await must("config set", setConfig("keboola:manifest", options.manifest));
  return {
    ws,
    stack,
    pulumi: run,
    setConfig,
    async cleanup() {
      fs.rmSync(path.join(REPO_ROOT, `Pulumi.${stack}.yaml`), { force: true });
      await ws.cleanup();
    },
  };
}
