import * as fs from "node:fs";
import * as path from "node:path";
import { randomBytes } from "node:crypto";
import { configSetAllArgs, makePulumiWorkspace, REPO_ROOT, type PulumiWorkspace, type RunOptions, type RunResult, type StackConfig } from "./pulumi-workspace";

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

export interface RootProjectOptions {
  prefix: string;
  host: string;
  token: string;
  manifest: string;
  stack?: string;
  /** More stack config (the manifest's secrets, keboola:branch), written with host, token and manifest in one `pulumi config set-all`. */
  config?: StackConfig;
}

export async function makeRootProject(options: RootProjectOptions): Promise<RootProject> {
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
  // Through run, as setConfig: the root project's callers never had its output searched for these secrets (ws.setConfigs would).
  const config: StackConfig = { "keboola:host": options.host, "keboola:token": { secret: options.token }, "keboola:manifest": options.manifest, ...options.config };
  await must("config set-all", run(configSetAllArgs(config)));
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
