// A Pulumi workspace that drives the real Pulumi CLI against a local file:// backend: used by the
// quickstart (the main job) and by the end-to-end tests.
//
//   const ws = await makePulumiWorkspace();
//   ws.writeProgram({ "index.js": "..." });
//   await ws.initStack();
//   const up = await ws.up();           // { code, stdout, stderr, timedOut }
//   ...
//   await ws.cleanup();
//
// The CLI comes from scripts/ensure-pulumi.sh (built once into a cache outside the repo, matching the
// pinned @pulumi/pulumi version, or the user's own with KEBOOLA_PULUMI_USE_PATH=1). Nothing here talks
// to the network: plugin acquisition is disabled and the state lives in a temporary directory.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { z } from "zod";
import { isRecord, parseJson, type JsonValue } from "../../keboola/json";
import { linkCheckoutPackage } from "../../provider/program/checkout-link";
import { PULUMI_RESOURCE_KEBOOLA } from "./bin";

/** Root of this repository (the `keboola-pulumi` package), from the source tree or from dist/. */
export const REPO_ROOT = findPackageRoot(__dirname);

function isKeboolaPulumi(manifest: JsonValue): boolean {
  return isRecord(manifest) && manifest.name === "keboola-pulumi";
}

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    const pkg = path.join(dir, "package.json");
    if (fs.existsSync(pkg) && isKeboolaPulumi(parseJson(fs.readFileSync(pkg, "utf8")))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`keboola-pulumi: no package root above ${start}`);
  }
}

/** Passphrase of the passphrase secrets provider used by every test stack. */
export const TEST_PASSPHRASE = "keboola-pulumi-e2e";

export interface RunResult {
  /** Exit code, or null when the process was killed by a signal (e.g. on timeout). */
  code: number | null;
  stdout: string;
  stderr: string;
  /** True when the command ran into its timeout and was killed. */
  timedOut: boolean;
}

export interface RunOptions {
  /** Kill the process after this many milliseconds (default 120 000). */
  timeoutMs?: number;
  /** Extra environment variables (merged over the workspace environment). */
  env?: Record<string, string | undefined>;
  /** Working directory (default: the program directory). */
  cwd?: string;
  /** Text written to the process' standard input. */
  input?: string;
}

export interface WriteProgramOptions {
  /** Project name in Pulumi.yaml (default: the workspace's project name). */
  project?: string;
  /**
   * Run the program through ts-node. Default: true when `files` contains a `.ts` entry point
   * (index.ts), false otherwise (plain JavaScript starts faster).
   */
  typescript?: boolean;
  /** Also link node_modules/keboola-pulumi to this repository (default false). */
  linkProjectPackage?: boolean;
  /** Extra Pulumi.yaml content appended verbatim (e.g. a `config:` block, or a YAML program's `resources:`). */
  extraYaml?: string;
  /** The program's language (default nodejs): `yaml` is a Pulumi YAML program, all in Pulumi.yaml's extraYaml. */
  runtime?: "nodejs" | "yaml";
}

export interface PulumiWorkspace {
  /** Temporary root holding everything below; removed by cleanup(). */
  readonly root: string;
  /** Directory of the Pulumi program (Pulumi.yaml, index.js|ts, node_modules/). */
  readonly programDir: string;
  /** file:// backend state directory. */
  readonly stateDir: string;
  /** PULUMI_HOME of this workspace. */
  readonly homeDir: string;
  /** Directory holding pulumi, pulumi-language-nodejs and pulumi-resource-pulumi-nodejs. */
  readonly binDir: string;
  /** Project name written into Pulumi.yaml by default. */
  readonly project: string;
  /** Stack used by the stack commands below. */
  readonly stack: string;
  /** Environment every pulumi command runs with. */
  readonly env: NodeJS.ProcessEnv;

  /**
   * Write Pulumi.yaml, a minimal package.json (unless `files` has one) and the given files (paths
   * relative to programDir), and link node_modules/@pulumi/pulumi to this repository's copy.
   */
  writeProgram(files: Record<string, string>, options?: WriteProgramOptions): void;
  /** Symlink <programDir>/node_modules/keboola-pulumi -> this repository (uses package.json "exports"). */
  linkProjectPackage(): void;
  /** Symlink <programDir>/node_modules/<name> -> target. */
  linkPackage(name: string, target: string): void;

  /** Run `pulumi <args>` in the program directory. */
  pulumi(args: string[], options?: RunOptions): Promise<RunResult>;
  /** `pulumi stack init <stack>` (the stack becomes the current one). */
  initStack(options?: RunOptions): Promise<RunResult>;
  /** `pulumi config set [--secret] <key> <value>` on the stack. */
  setConfig(key: string, value: string, options?: RunOptions & { secret?: boolean }): Promise<RunResult>;
  /** `pulumi config set-all` on the stack: all of `config` in one process (see configSetAllArgs). */
  setConfigs(config: StackConfig, options?: RunOptions): Promise<RunResult>;
  /** `pulumi up --yes --skip-preview`. */
  up(extraArgs?: string[], options?: RunOptions): Promise<RunResult>;
  /** `pulumi preview`. */
  preview(extraArgs?: string[], options?: RunOptions): Promise<RunResult>;
  /** `pulumi preview --expect-no-changes` (exit code != 0 when there are changes). */
  previewExpectNoChanges(extraArgs?: string[], options?: RunOptions): Promise<RunResult>;
  /** `pulumi preview --diff`. */
  previewDiff(extraArgs?: string[], options?: RunOptions): Promise<RunResult>;
  /** `pulumi refresh --yes --skip-preview`. */
  refresh(extraArgs?: string[], options?: RunOptions): Promise<RunResult>;
  /** `pulumi destroy --yes --skip-preview`. */
  destroy(extraArgs?: string[], options?: RunOptions): Promise<RunResult>;
  /** `pulumi stack output --json [--show-secrets]`, parsed; throws when the command fails. */
  stackOutputs(options?: RunOptions & { showSecrets?: boolean }): Promise<Record<string, unknown>>;
  /** `pulumi stack export [--show-secrets]`, parsed; throws when the command fails. */
  exportStack(options?: RunOptions & { showSecrets?: boolean }): Promise<StackExport>;
  /** Resources of the exported stack state (deployment.resources, [] when none). */
  stackResources(options?: RunOptions): Promise<StackResource[]>;

  /** Remove the whole temporary root (state included). Safe to call more than once. */
  cleanup(): Promise<void>;
}

/** Stack config by key: a string is stored as plain text, `{ secret }` encrypted by the stack's secrets provider. */
export type StackConfig = Readonly<Record<string, string | { readonly secret: string }>>;

/**
 * `config set-all` with each key of `config`: one `pulumi` process for all of them, where
 * `pulumi config set` takes one per key, and each costs about 0.2 s before it does anything (one
 * setting a secret another 0.2 s: each process derives the passphrase's key anew; CONTRIBUTING.md,
 * "Slow tests"). The CLI splits `key=value` at the first "=", so a value may hold "=", and the
 * `--plaintext=...` form keeps a value starting with "-" from reading as a flag. Keys are taken as
 * they are (no `--path`); a key with "=" or a leading quote, which set-all would split otherwise
 * than `config set`, is refused.
 */
export function configSetAllArgs(config: StackConfig): string[] {
  return [
    "config",
    "set-all",
    ...Object.entries(config).map(([key, value]) => {
      if (key.includes("=") || /^["']/.test(key)) throw new Error(`config set-all cannot take the key ${JSON.stringify(key)}`);
      return typeof value === "string" ? `--plaintext=${key}=${value}` : `--secret=${key}=${value.secret}`;
    }),
  ];
}

/** A resource of `pulumi stack export` (apitype.ResourceV3), its other fields kept. */
const stackResourceSchema = z.looseObject({
  urn: z.string(),
  type: z.string(),
  id: z.string().optional(),
  custom: z.boolean().optional(),
  inputs: z.record(z.string(), z.unknown()).optional(),
  outputs: z.record(z.string(), z.unknown()).optional(),
});
export type StackResource = z.infer<typeof stackResourceSchema>;

/** `pulumi stack export` (apitype.UntypedDeployment with a DeploymentV3), its other fields kept. */
const stackExportSchema = z.looseObject({
  version: z.number(),
  deployment: z.looseObject({ resources: z.array(stackResourceSchema).optional() }),
});
export type StackExport = z.infer<typeof stackExportSchema>;

export interface MakePulumiWorkspaceOptions {
  /** Project name (default "e2e"). */
  project?: string;
  /** Stack name (default "test"). */
  stack?: string;
  /** Prefix of the temporary directory name. */
  prefix?: string;
  /** Extra environment for every command. */
  env?: Record<string, string | undefined>;
  /**
   * Put this checkout's provider plugin on PATH as `pulumi-resource-keboola` (an executable that
   * runs package.json's bin of it), where the engine finds a plugin it has not installed; or
   * `{ dir }`, a directory holding another `pulumi-resource-keboola` (an installed package's .bin).
   */
  plugin?: boolean | { dir: string };
}

let binDirPromise: Promise<string> | undefined;

/**
 * Directory with the Pulumi CLI from scripts/ensure-pulumi.sh: the build matching the pinned SDK,
 * or with KEBOOLA_PULUMI_USE_PATH=1 the user's own `pulumi` when recent enough.
 * Runs the script once per process (it is fast when the CLI is cached; a cold build takes minutes),
 * or not at all after usePulumiBinDir.
 * `progress` receives what the script says on stderr as it says it (which CLI, build steps).
 */
export function ensurePulumiBinDir(options: { progress?: (text: string) => void } = {}): Promise<string> {
  binDirPromise ??= (async () => {
    const script = path.join(REPO_ROOT, "scripts", "ensure-pulumi.sh");
    const res = await runProcess("bash", [script], { cwd: REPO_ROOT, env: process.env, timeoutMs: 60 * 60 * 1000, onStderr: options.progress });
    const binDir = res.stdout.trim().split("\n").pop() ?? "";
    if (res.code !== 0 || !binDir || !fs.existsSync(path.join(binDir, "pulumi"))) {
      const said = options.progress ? "(what it said is above)\n" : res.stderr;
      throw new Error(`scripts/ensure-pulumi.sh failed (exit ${String(res.code)}):\n${said}${res.stdout}`);
    }
    return binDir;
  })();
  binDirPromise.catch(() => {
    binDirPromise = undefined; // allow a retry after a failure
  });
  return binDirPromise;
}

/**
 * Takes the directory a caller already has from scripts/ensure-pulumi.sh, so that ensurePulumiBinDir
 * (and makePulumiWorkspace) in this process answer it without running the script again: the
 * end-to-end tests' global setup runs it once for all their files (test/e2e/pulumi-cli.global.ts).
 */
export function usePulumiBinDir(dir: string): void {
  binDirPromise = Promise.resolve(dir);
}

// A JavaScript stack frame as Node prints it ("    at fn (/path/file.js:12:34)").
const STACK_FRAME = /^\s+at .+(\(.+:\d+:\d+\)|:\d+:\d+)$/m;

/**
 * Every Pulumi command of the e2e tests and the quickstart passes through here: what it printed
 * (errors included) must be presentable to a user, with no stack trace and no secret.
 */
export function assertPresentable(res: RunResult, secrets: readonly string[]): RunResult {
  const out = `${res.stdout}\n${res.stderr}`;
  const frame = STACK_FRAME.exec(out);
  if (frame) throw new Error(`pulumi printed a stack trace (line "${frame[0].trim()}"):\n${out.slice(Math.max(0, frame.index - 1500), frame.index + 500)}`);
  for (const secret of secrets) {
    if (secret && out.includes(secret)) throw new Error("pulumi printed a secret value in its output");
  }
  return res;
}

/** Spawn a process, collect its output, kill it (SIGTERM, then SIGKILL) after timeoutMs. */
export function runProcess(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number; input?: string; onStderr?: (text: string) => void },
): Promise<RunResult> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    let killTimer: NodeJS.Timeout | undefined;
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
      options.onStderr?.(d);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGTERM");
      killTimer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    }, timeoutMs);
    child.on("error", (err) => {
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      reject(err);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      resolve({ code, stdout, stderr, timedOut });
    });
    child.stdin.on("error", () => undefined); // the process may exit without reading its input
    child.stdin.end(options.input ?? "");
  });
}

/** Human-readable dump of a result, for assertion messages. */
export function describeResult(res: RunResult): string {
  return `exit ${String(res.code)}${res.timedOut ? " (timed out)" : ""}\n--- stdout\n${res.stdout}\n--- stderr\n${res.stderr}`;
}

function symlinkDir(linkPath: string, target: string): void {
  fs.mkdirSync(path.dirname(linkPath), { recursive: true });
  fs.rmSync(linkPath, { recursive: true, force: true });
  fs.symlinkSync(target, linkPath, "dir");
}

/**
 * The environment that preloads scripts/lib/e2e-node-preload.ts into the Node.js processes Pulumi
 * starts (see that file): set for the end-to-end tests only (KEBOOLA_E2E_PRELOAD=1, by
 * vitest.config.mts), so the quickstart and the benchmarks run the SDK exactly as a user's does.
 */
function e2ePreloadEnv(): NodeJS.ProcessEnv {
  const preload = path.join(REPO_ROOT, "dist", "scripts", "lib", "e2e-node-preload.js");
  return {
    NODE_OPTIONS: `--require "${preload}"`,
    KEBOOLA_E2E_COMPILE_CACHE: path.join(REPO_ROOT, "node_modules", ".cache", "keboola-pulumi-e2e", "v8"),
    KEBOOLA_E2E_COMPILE_ROOT: REPO_ROOT,
    KEBOOLA_E2E_DEFER_SDK_MODULES: "1",
  };
}

/** Writes `pulumi-resource-keboola` into `dir`, running this checkout's plugin (the npm bin) with this Node.js; answers `dir`. */
export function writePluginLauncher(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const main = PULUMI_RESOURCE_KEBOOLA;
  fs.writeFileSync(path.join(dir, "pulumi-resource-keboola"), `#!/bin/sh\nexec "${process.execPath}" "${main}" "$@"\n`, { mode: 0o755 });
  return dir;
}

/** Create a temporary Pulumi workspace: file:// backend, passphrase secrets, own PULUMI_HOME, CLI on PATH. */
export async function makePulumiWorkspace(options: MakePulumiWorkspaceOptions = {}): Promise<PulumiWorkspace> {
  const binDir = await ensurePulumiBinDir();
  const project = options.project ?? "e2e";
  const stack = options.stack ?? "test";
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), options.prefix ?? "keboola-pulumi-e2e-")));
  const programDir = path.join(root, "program");
  const stateDir = path.join(root, "state");
  const homeDir = path.join(root, "home");
  for (const d of [programDir, stateDir, homeDir]) fs.mkdirSync(d, { recursive: true });

  // Start from the caller's environment without any Pulumi settings (tokens, backends, ...) or NODE_OPTIONS.
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith("PULUMI_") && k !== "NODE_OPTIONS") env[k] = v;
  }
  const pluginDir = typeof options.plugin === "object" ? options.plugin.dir : options.plugin ? writePluginLauncher(path.join(root, "plugin")) : undefined;
  Object.assign(env, {
    PATH: [pluginDir, binDir, process.env.PATH ?? ""].filter((d) => d !== undefined).join(path.delimiter),
    PULUMI_BACKEND_URL: `file://${stateDir}`,
    PULUMI_CONFIG_PASSPHRASE: TEST_PASSPHRASE,
    PULUMI_HOME: homeDir,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_SKIP_CONFIRMATIONS: "true",
  });
  if (process.env.KEBOOLA_E2E_PRELOAD === "1") Object.assign(env, e2ePreloadEnv());
  for (const [k, v] of Object.entries(options.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }

  const pulumi = (args: string[], runOptions: RunOptions = {}): Promise<RunResult> => {
    const runEnv = { ...env };
    for (const [k, v] of Object.entries(runOptions.env ?? {})) {
      if (v === undefined) delete runEnv[k];
      else runEnv[k] = v;
    }
    const fullArgs = args.some((a) => a.startsWith("--color")) ? args : [...args, "--color=never"];
    return runProcess(path.join(binDir, "pulumi"), fullArgs, {
      cwd: runOptions.cwd ?? programDir,
      env: runEnv,
      timeoutMs: runOptions.timeoutMs,
      input: runOptions.input,
    }).then((res) => assertPresentable(res, args.includes("--show-secrets") ? [] : [...secrets]));
  };
  // Values set with `setConfig(..., { secret: true })` or as `{ secret }` of setConfigs: no command output may show them.
  const secrets = new Set<string>();

  const parseOutput = <T>(what: string, res: RunResult, schema: z.ZodType<T>): T => {
    if (res.code !== 0) throw new Error(`pulumi ${what} failed: ${describeResult(res)}`);
    return schema.parse(parseJson(res.stdout));
  };

  let cleaned = false;
  const ws: PulumiWorkspace = {
    root,
    programDir,
    stateDir,
    homeDir,
    binDir,
    project,
    stack,
    env,

    writeProgram(files, writeOptions = {}) {
      const typescript = writeOptions.typescript ?? Object.keys(files).some((f) => /^index\.(c|m)?ts$/.test(f));
      const runtime = writeOptions.runtime === "yaml" ? ["runtime: yaml"] : ["runtime:", "  name: nodejs", "  options:", `    typescript: ${String(typescript)}`];
      const yaml = [`name: ${writeOptions.project ?? project}`, ...runtime, "description: keboola-pulumi end-to-end test program"];
      if (writeOptions.extraYaml) yaml.push(writeOptions.extraYaml);
      fs.writeFileSync(path.join(programDir, "Pulumi.yaml"), `${yaml.join("\n")}\n`);
      if (!("package.json" in files)) {
        // Without one the runtime warns "Could not find a package.json"; dependencies come from the links below.
        const pkg = { name: writeOptions.project ?? project, version: "0.0.0", private: true };
        fs.writeFileSync(path.join(programDir, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
      }
      for (const [rel, content] of Object.entries(files)) {
        const file = path.join(programDir, rel);
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, content);
      }
      // Node resolves a symlinked package's own dependencies from its real path (this repo's node_modules).
      ws.linkPackage("@pulumi/pulumi", path.join(REPO_ROOT, "node_modules", "@pulumi", "pulumi"));
      if (writeOptions.linkProjectPackage) ws.linkProjectPackage();
    },

    linkProjectPackage() {
      ws.linkPackage("keboola-pulumi", REPO_ROOT);
      // The repository's own node_modules/keboola-pulumi, as its root program makes it (provider/checkout-link.ts).
      linkCheckoutPackage(REPO_ROOT);
    },

    linkPackage(name, target) {
      symlinkDir(path.join(programDir, "node_modules", ...name.split("/")), target);
    },

    pulumi,
    initStack: (o) => pulumi(["stack", "init", stack], o),
    setConfig: (key, value, o = {}) => {
      if (o.secret) secrets.add(value);
      return pulumi(["config", "set", "--stack", stack, ...(o.secret ? ["--secret"] : ["--plaintext"]), key, value], o);
    },
    setConfigs: (config, o) => {
      for (const value of Object.values(config)) if (typeof value !== "string") secrets.add(value.secret);
      return pulumi([...configSetAllArgs(config), "--stack", stack], o);
    },
    up: (extra = [], o) => pulumi(["up", "--stack", stack, "--yes", "--skip-preview", ...extra], o),
    preview: (extra = [], o) => pulumi(["preview", "--stack", stack, ...extra], o),
    previewExpectNoChanges: (extra = [], o) => pulumi(["preview", "--stack", stack, "--expect-no-changes", ...extra], o),
    previewDiff: (extra = [], o) => pulumi(["preview", "--stack", stack, "--diff", ...extra], o),
    refresh: (extra = [], o) => pulumi(["refresh", "--stack", stack, "--yes", "--skip-preview", ...extra], o),
    destroy: (extra = [], o) => pulumi(["destroy", "--stack", stack, "--yes", "--skip-preview", ...extra], o),

    async stackOutputs(o = {}) {
      const args = ["stack", "output", "--stack", stack, "--json", ...(o.showSecrets ? ["--show-secrets"] : [])];
      return parseOutput("stack output", await pulumi(args, o), z.record(z.string(), z.unknown()));
    },
    async exportStack(o = {}) {
      const args = ["stack", "export", "--stack", stack, ...(o.showSecrets ? ["--show-secrets"] : [])];
      return parseOutput("stack export", await pulumi(args, o), stackExportSchema);
    },
    async stackResources(o) {
      return (await ws.exportStack(o)).deployment.resources ?? [];
    },

    async cleanup() {
      if (cleaned) return;
      cleaned = true;
      await fs.promises.rm(root, { recursive: true, force: true });
    },
  };
  return ws;
}
