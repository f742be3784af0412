// Which Pulumi CLI scripts/ensure-pulumi.sh picks: the user's own `pulumi` on PATH (when asked with
// KEBOOLA_PULUMI_USE_PATH=1 and recent enough), the pinned build from the cache, or a build from
// source; and what its cache key covers. Fake `pulumi` scripts stand for the user's CLI and a fake
// cache entry for the pinned build; a fake `go` that fails at once stands in for the compiler, so
// nothing is ever built here.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { REPO_ROOT, describeResult, runProcess, type RunResult } from "../../scripts/lib/pulumi-workspace";

const PINNED = `v${(JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "node_modules", "@pulumi", "pulumi", "package.json"), "utf8")) as { version: string }).version}`;
const ENGINES = (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { engines: { pulumi: string } }).engines;
const MINIMUM = ENGINES.pulumi.replace(/^>=/, "");
const NODE_PLUGINS = ["pulumi-language-nodejs", "pulumi-resource-pulumi-nodejs"];

function writeExecutable(file: string, script: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `#!/bin/sh\n${script}\n`, { mode: 0o755 });
}

/** A directory with a `pulumi` that reports `version`, with the Node.js plugins beside it unless told otherwise. */
function fakeCli(dir: string, version: string, options: { plugins?: boolean } = {}): string {
  writeExecutable(path.join(dir, "pulumi"), `[ "$1" = version ] && echo ${version}`);
  if (options.plugins ?? true) for (const p of NODE_PLUGINS) writeExecutable(path.join(dir, p), "exit 0");
  return dir;
}

describe("scripts/ensure-pulumi.sh", () => {
  let tmp: string;
  let cache: string;
  let userBin: string;
  let goCalls: string;

  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "ensure-pulumi-test-")));
    cache = path.join(tmp, "cache");
    userBin = path.join(tmp, "user-bin");
    goCalls = path.join(tmp, "go-calls");
    // A `go` that records its call and fails: a build attempt ends at once, and shows.
    writeExecutable(path.join(tmp, "go-bin", "go"), `echo "$*" >> "${goCalls}"; echo "fake go: no build in tests" >&2; exit 1`);
  });
  afterEach(() => {
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  function run(env: Record<string, string> = {}, args: string[] = [], script = path.join(REPO_ROOT, "scripts", "ensure-pulumi.sh")): Promise<RunResult> {
    const base: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("KEBOOLA_PULUMI_")) base[k] = v;
    // PATH: the fake user CLI (when the test made one), the fake go, then the rest without any real pulumi.
    const rest = (process.env.PATH ?? "").split(path.delimiter).filter((d) => d && !fs.existsSync(path.join(d, "pulumi")));
    const PATH = [userBin, path.join(tmp, "go-bin"), ...rest].join(path.delimiter);
    return runProcess("bash", [script, ...args], { cwd: REPO_ROOT, env: { ...base, PATH, KEBOOLA_PULUMI_CACHE: cache, ...env } });
  }

  async function cacheDir(script?: string): Promise<string> {
    const res = await run({}, ["--cache-dir"], script);
    expect(res.code, describeResult(res)).toBe(0);
    return res.stdout.trim();
  }

  /** A cache entry of the pinned build, as a finished build leaves it; returns its bin directory. */
  async function fakePinnedBuild(): Promise<string> {
    const entry = await cacheDir();
    fakeCli(path.join(entry, "bin"), PINNED);
    fs.writeFileSync(path.join(entry, ".complete"), "");
    return path.join(entry, "bin");
  }

  const goWasCalled = () => fs.existsSync(goCalls);

  it("names its cache entry after the pinned version, under KEBOOLA_PULUMI_CACHE", async () => {
    expect(path.dirname(await cacheDir())).toBe(cache);
    expect(path.basename(await cacheDir())).toMatch(new RegExp(`^pulumi-${PINNED.replace(/\./g, "\\.")}-[0-9a-f]{16}$`));
  });

  it("with KEBOOLA_PULUMI_USE_PATH=1 uses a newer pulumi on PATH and builds nothing", async () => {
    fakeCli(userBin, "v3.300.1");
    const res = await run({ KEBOOLA_PULUMI_USE_PATH: "1" });
    expect(res.code, describeResult(res)).toBe(0);
    expect(res.stdout).toBe(`${userBin}\n`);
    expect(res.stderr).toContain(`using your Pulumi CLI v3.300.1 (${userBin})`);
    expect(goWasCalled()).toBe(false);
    expect(fs.existsSync(cache) ? fs.readdirSync(cache) : []).toEqual([]);
  });

  it(`with KEBOOLA_PULUMI_USE_PATH=1 takes exactly the minimum version (v${MINIMUM})`, async () => {
    fakeCli(userBin, `v${MINIMUM}`);
    const res = await run({ KEBOOLA_PULUMI_USE_PATH: "1" });
    expect(res.code, describeResult(res)).toBe(0);
    expect(res.stdout).toBe(`${userBin}\n`);
  });

  it.each([
    ["an older version", "v3.100.0"],
    ["a prerelease of the minimum version", `v${MINIMUM}-alpha.1`],
    ["a newer patch of an older minor version", `v3.${Number(MINIMUM.split(".")[1]) - 1}.99`],
  ])("with KEBOOLA_PULUMI_USE_PATH=1 ignores %s, with a note, and uses the pinned build", async (_what, version) => {
    fakeCli(userBin, version);
    const pinned = await fakePinnedBuild();
    const res = await run({ KEBOOLA_PULUMI_USE_PATH: "1" });
    expect(res.code, describeResult(res)).toBe(0);
    expect(res.stdout).toBe(`${pinned}\n`);
    expect(res.stderr).toContain(`note: not using the pulumi on PATH (${userBin}/pulumi): it reports '${version}', keboola-pulumi needs v${MINIMUM} or later`);
    expect(res.stderr).toContain(`using the Pulumi CLI ${PINNED} built from source (${pinned})`);
    expect(goWasCalled()).toBe(false);
  });

  it("with KEBOOLA_PULUMI_USE_PATH=1 ignores a pulumi without the Node.js plugins beside it", async () => {
    fakeCli(userBin, "v3.300.1", { plugins: false });
    const pinned = await fakePinnedBuild();
    const res = await run({ KEBOOLA_PULUMI_USE_PATH: "1" });
    expect(res.code, describeResult(res)).toBe(0);
    expect(res.stdout).toBe(`${pinned}\n`);
    expect(res.stderr).toContain(`note: not using the pulumi on PATH (${userBin}/pulumi, v3.300.1): ${userBin} lacks ${NODE_PLUGINS.join(" ")}`);
  });

  it("by default (the tests, CI) uses the pinned build even with a newer pulumi on PATH", async () => {
    fakeCli(userBin, "v3.300.1");
    const pinned = await fakePinnedBuild();
    const res = await run();
    expect(res.code, describeResult(res)).toBe(0);
    expect(res.stdout).toBe(`${pinned}\n`);
    expect(res.stderr).not.toContain("using your Pulumi CLI");
  });

  it("by default uses a pulumi on PATH of exactly the pinned version: it is that build", async () => {
    fakeCli(userBin, PINNED);
    const res = await run();
    expect(res.code, describeResult(res)).toBe(0);
    expect(res.stdout).toBe(`${userBin}\n`);
    expect(goWasCalled()).toBe(false);
  });

  it("KEBOOLA_PULUMI_NO_PATH=1 ignores even a pulumi of the pinned version", async () => {
    fakeCli(userBin, PINNED);
    const pinned = await fakePinnedBuild();
    const res = await run({ KEBOOLA_PULUMI_NO_PATH: "1", KEBOOLA_PULUMI_USE_PATH: "1" });
    expect(res.code, describeResult(res)).toBe(0);
    expect(res.stdout).toBe(`${pinned}\n`);
  });

  it("with nothing usable it builds from source: it says what, how long and where to on stderr, stdout stays empty, and a failed build leaves no cache entry", async () => {
    fakeCli(userBin, "v3.100.0");
    const entry = await cacheDir();
    const res = await run({ KEBOOLA_PULUMI_USE_PATH: "1" });
    expect(res.code).not.toBe(0);
    expect(res.stdout).toBe("");
    expect(res.stderr).toContain(`Building the Pulumi CLI ${PINNED} from source (first run only; about 3 minutes on 2 cores`);
    expect(res.stderr).toContain(`It is cached in ${entry} and reused`);
    expect(res.stderr).toContain(`with a Pulumi CLI v${MINIMUM} or later installed on PATH, that one would be used instead of building`);
    expect(res.stderr).toContain("[1/6] downloading the sources of github.com/pulumi/pulumi");
    expect(res.stderr).toContain("fake go: no build in tests");
    expect(goWasCalled()).toBe(true);
    expect(fs.readdirSync(cache).filter((f) => !f.startsWith(".lock-"))).toEqual([]);
  });

  it("without KEBOOLA_PULUMI_USE_PATH, a build mentions the user's recent enough pulumi on PATH", async () => {
    fakeCli(userBin, "v3.300.1");
    const res = await run();
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain("(your Pulumi CLI v3.300.1 on PATH would do as well: KEBOOLA_PULUMI_USE_PATH=1 uses it instead of this build)");
  });

  it("without KEBOOLA_PULUMI_USE_PATH and no pulumi on PATH, a build says how to use one", async () => {
    const res = await run();
    expect(res.code).not.toBe(0);
    expect(res.stdout).toBe("");
    expect(res.stderr).toContain(`with a Pulumi CLI v${MINIMUM} or later installed, KEBOOLA_PULUMI_USE_PATH=1 uses it instead of building`);
  });

  it("keys the cache on scripts/pulumi-cli/ (the recipe, the language host's Go source), not on the rest of the script", async () => {
    // A copy of the repository's relevant files, whose sources can be edited.
    const repo = path.join(tmp, "repo");
    fs.mkdirSync(path.join(repo, "scripts"), { recursive: true });
    fs.copyFileSync(path.join(REPO_ROOT, "package.json"), path.join(repo, "package.json"));
    fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(repo, "node_modules"), "dir");
    fs.copyFileSync(path.join(REPO_ROOT, "scripts", "ensure-pulumi.sh"), path.join(repo, "scripts", "ensure-pulumi.sh"));
    fs.cpSync(path.join(REPO_ROOT, "scripts", "pulumi-cli"), path.join(repo, "scripts", "pulumi-cli"), { recursive: true });
    const script = path.join(repo, "scripts", "ensure-pulumi.sh");
    const edit = (rel: string) => {
      const before = fs.readFileSync(path.join(repo, rel));
      fs.appendFileSync(path.join(repo, rel), rel.endsWith(".sh") ? "\n# edited\n" : "\n// edited\n");
      return () => fs.writeFileSync(path.join(repo, rel), before);
    };

    const original = await cacheDir(script);
    expect(original).toBe(await cacheDir()); // the copy keys as the repository does

    let undo = edit("scripts/pulumi-cli/language-host/main.go");
    const goEdited = await cacheDir(script);
    expect(goEdited).not.toBe(original);
    undo();
    expect(await cacheDir(script)).toBe(original);

    undo = edit("scripts/pulumi-cli/build.sh");
    const recipeEdited = await cacheDir(script);
    expect(recipeEdited).not.toBe(original);
    expect(recipeEdited).not.toBe(goEdited);
    undo();

    fs.writeFileSync(path.join(repo, "scripts", "pulumi-cli", "language-host", "extra.go"), "package main\n");
    expect(await cacheDir(script)).not.toBe(original); // a new file there counts too
    fs.rmSync(path.join(repo, "scripts", "pulumi-cli", "language-host", "extra.go"));

    edit("scripts/ensure-pulumi.sh");
    expect(await cacheDir(script)).toBe(original);
  });
});
