// npm run build:plugin: the provider plugin as one self-contained executable, in the archive that
// `pulumi plugin install resource keboola <version> --file <archive>` installs:
//
//   dist/plugin/pulumi-resource-keboola-v<version>-<os>-<arch>.tar.gz
//     pulumi-resource-keboola   the executable (what the engine runs, at the archive's root)
//     LICENSE-node.txt          Node.js' license (the executable is a Node.js binary)
//     THIRD-PARTY-NOTICES.txt   the licenses of the npm packages and the jsonnet engine inside it
//
// The executable is a Node.js single-executable application (SEA, nodejs.org/api/single-executable-applications.html):
// a copy of a Node.js binary of the target platform, of the version running this script, with the
// plugin injected into it. Steps:
//   1. esbuild bundles provider/plugin/bundle-main.ts (main.ts with every kind imported statically)
//      and everything it imports into one CommonJS file, without what the plugin never runs
//      (bundle.ts); the files the plugin reads at run time (package.json, schema.json, the jsonnet
//      engine) go into the bundle (embed.ts).
//   2. `node --experimental-sea-config` makes the SEA blob of the bundle (for this machine's
//      platform with V8's code cache, so the plugin does not compile its 7 MB of JavaScript at
//      each start; a code cache is only valid on the platform that made it).
//   3. The Node.js binary is copied, stripped of its symbols (13 MB; when a `strip` for its
//      architecture is there) and postject injects the blob into it.
//   4. The executable is started once, with no Node.js on PATH, and asked for its version and
//      schema (for another architecture through qemu-user when it is installed, else not at all).
//   5. tar + gzip.
// Targets: this machine's platform (default) with the Node.js binary running this script, and
// `--target linux-amd64|linux-arm64` with the official Node.js binary of that platform and of this
// Node.js' version as npm has it (the package node-linux-<arch>, which `npm pack` fetches into
// node_modules/.cache/keboola-pulumi-plugin/). Only Linux: a SEA for macOS must be signed again after
// the injection (codesign, a macOS tool; and npm has no Node.js 20 for darwin-arm64), one for
// Windows is a .exe; neither is made here.
//
// Nothing is rebuilt when the bundle, the Node.js binary and this script are those of the archive
// already there (dist/plugin/work-<target>/key). Prints the archive's path on stdout, progress on stderr.
//
//   npm run build:plugin [-- --target linux-arm64]       (builds dist/, then runs this)
//   node dist/scripts/plugin-package/build.js [--target linux-amd64|linux-arm64] [--out-dir DIR]
// (buildPluginCommand at the end declares them.)
import { spawn, spawnSync } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { GetSchemaRequest } from "@pulumi/pulumi/proto/provider_pb";
import { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import { checkEmbedded, embedFiles } from "./embed";
import { bundlePlugin } from "./bundle";
import { portOf } from "./port";
import { REPO_ROOT } from "../lib/pulumi-workspace";
import { pluginVersion } from "../../provider/plugin/server";
import { command, runMain } from "../../provider/cli/command";

export const EXECUTABLE = "pulumi-resource-keboola";
const ENTRY = "provider/plugin/bundle-main.ts";
/** The sentinel of Node.js' SEA fuse (the same in every Node.js version that has SEA). */
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

export interface PluginArchive {
  /** Absolute path of the .tar.gz. */
  archive: string;
  /** The plugin's version (package.json's). */
  version: string;
  /** Pulumi's name of the platform, e.g. linux-amd64. */
  target: string;
  /** Whether it was built now (false: the one already there was up to date). */
  built: boolean;
}

/** Pulumi's name of this machine's platform (the archive's suffix). */
export function hostTarget(): string {
  const os = process.platform === "win32" ? "windows" : process.platform;
  const arch = ({ x64: "amd64", arm64: "arm64" } as Record<string, string>)[process.arch] ?? process.arch;
  return `${os}-${arch}`;
}

/** The archive's file name, as the release of `version` for `target` names it. */
export function archiveName(version: string, target = hostTarget()): string {
  return `${EXECUTABLE}-v${version}-${target}.tar.gz`;
}

type Log = (msg: string) => void;
const stderrLog: Log = (msg) => process.stderr.write(`[build:plugin] ${msg}\n`);

function run(command: string, args: string[], cwd: string): void {
  const res = spawnSync(command, args, { cwd, encoding: "utf8" });
  if (res.error) throw new Error(`${command}: ${res.error.message}`);
  if (res.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (exit ${String(res.status)}):\n${res.stdout}${res.stderr}`);
}

/**
 * The bundle's first lines: its `require` loads Node.js' built-in modules only, and for any other
 * module throws MODULE_NOT_FOUND, as Node.js does for a module that is not installed. What is left
 * for `require` after bundling is built-in modules and optional ones that are not installed or
 * that the plugin never reaches (supports-color for `debug`, tried at load; node:sqlite, which
 * Node.js 20 lacks, for undici's SQLite cache; what bundle.ts and AWS_CREDENTIAL_CHAIN leave out).
 * Inside the single executable, `require` reaches built-in modules only anyway, but for another
 * module it also prints a warning to stderr ("Currently the require() provided to the main script
 * embedded into single-executable applications only supports loading built-in modules"), which the
 * engine would show. With this the bundle behaves the same in and out of the executable.
 * ("use strict" comes first, as esbuild's own first line, which then follows it, would.)
 */
const BUILTINS_ONLY = `"use strict";
var require = (function (builtin) {
  var isBuiltin = builtin("node:module").isBuiltin;
  function missing(id) {
    var err = new Error("Cannot find module '" + id + "' (${EXECUTABLE} is one bundled file: only Node.js' built-in modules can be required)");
    err.code = "MODULE_NOT_FOUND";
    return err;
  }
  function bundledRequire(id) {
    if (isBuiltin(id)) return builtin(id);
    throw missing(id);
  }
  bundledRequire.resolve = function (id) {
    if (isBuiltin(id)) return id;
    throw missing(id);
  };
  return bundledRequire;
})(require);`;

/**
 * What the executable leaves out besides bundle.ts' LEFT_OUT: the AWS SDK's default credential
 * chain past its first link. An upload always hands the S3 client the temporary credentials
 * Storage's file preparation answered (provider/api/upload.ts), so the client never runs the chain
 * that would look for them in ~/.aws files, SSO, a credential process, a web identity token, an HTTP
 * endpoint or the instance metadata service (210 KB with the STS and SSO clients they bring).
 * @aws-sdk/credential-provider-node requires each of them only when its link of the chain runs.
 */
const AWS_CREDENTIAL_CHAIN = [
  "@aws-sdk/credential-provider-http",
  "@aws-sdk/credential-provider-ini",
  "@aws-sdk/credential-provider-login",
  "@aws-sdk/credential-provider-process",
  "@aws-sdk/credential-provider-sso",
  "@aws-sdk/credential-provider-web-identity",
  "@aws-sdk/nested-clients",
  "@aws-sdk/token-providers",
  "@smithy/credential-provider-imds",
];

/** Step 1: the bundle; answers the modules in it (their paths in this repository). */
async function bundle(outfile: string, log: Log): Promise<string[]> {
  const replaced = new Set<string>();
  const inputs = await bundlePlugin({ entry: ENTRY, outfile, external: AWS_CREDENTIAL_CHAIN, plugins: [embedFiles(REPO_ROOT, replaced)], banner: BUILTINS_ONLY });
  checkEmbedded(replaced, inputs);
  log(`bundled ${ENTRY}: ${(fs.statSync(outfile).size / 1e6).toFixed(1)} MB, ${inputs.length} modules`);
  return inputs;
}

/** The package directories (under node_modules) that modules of the bundle come from. */
function bundledPackages(inputs: readonly string[]): string[] {
  const dirs = new Set<string>();
  for (const input of inputs) {
    const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m) dirs.add(m[1]);
  }
  return [...dirs].sort();
}

/** THIRD-PARTY-NOTICES.txt: each bundled npm package's name, version, license and license file, and the jsonnet engine's notice. */
function notices(inputs: readonly string[]): string {
  const parts = [
    "pulumi-resource-keboola (keboola-pulumi) contains the following third-party software.",
    `Node.js ${process.version}: see LICENSE-node.txt.`,
    fs.readFileSync(path.join(REPO_ROOT, "jsonnet", "wasm", "NOTICE.md"), "utf8").trim(),
  ];
  const seen = new Set<string>();
  for (const dir of bundledPackages(inputs)) {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, dir, "package.json"), "utf8")) as { name: string; version: string; license?: unknown };
    const id = `${pkg.name}@${pkg.version}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const files = fs.readdirSync(path.join(REPO_ROOT, dir)).filter((f) => /^(licen[cs]e|copying|notice)/i.test(f)).sort();
    const texts = files.map((f) => fs.readFileSync(path.join(REPO_ROOT, dir, f), "utf8").trim());
    parts.push(`${"-".repeat(78)}\n${id} (license: ${typeof pkg.license === "string" ? pkg.license : JSON.stringify(pkg.license ?? "unspecified")})\n\n${texts.join("\n\n")}`);
  }
  return `${parts.join("\n\n")}\n`;
}

/** The GNU name of a Linux target's architecture (binutils' and qemu's). */
const GNU_ARCH: Record<string, string> = { amd64: "x86_64", arm64: "aarch64" };

/** A Node.js binary of the target platform and of this Node.js' version. */
interface TargetNode {
  /** The node binary. */
  binary: string;
  /** Whether it is this machine's own (then the blob gets a code cache and the check runs natively). */
  native: boolean;
  /** Its LICENSE file, where found. */
  license: string | undefined;
}

/** Node.js' LICENSE file (it lists the licenses of the code inside the node binary), where installations keep it. */
function nodeLicense(binary: string): string | undefined {
  const bin = path.dirname(fs.realpathSync(binary));
  const candidates = [path.join(bin, "..", "LICENSE"), path.join(bin, "..", "share", "doc", "node", "LICENSE"), "/usr/share/doc/nodejs/LICENSE"];
  return candidates.find((f) => fs.existsSync(f));
}

/**
 * The Node.js binary for `target`: this one for this machine's platform; for another Linux one,
 * the official binary of this Node.js version from npm's node-linux-<arch> package (`npm pack`,
 * once, into node_modules/.cache). The blob must be made by the same Node.js version as the binary.
 */
function targetNode(target: string, log: Log): TargetNode {
  if (target === hostTarget()) return { binary: process.execPath, native: true, license: nodeLicense(process.execPath) };
  const [os, arch] = target.split("-");
  if (os !== "linux" || !(arch in GNU_ARCH)) {
    throw new Error(`cannot build for ${target}: only linux-amd64 and linux-arm64 (a SEA for macOS must be signed again after the injection, with macOS' codesign)`);
  }
  const name = `node-linux-${arch === "amd64" ? "x64" : arch}`;
  const dir = path.join(REPO_ROOT, "node_modules", ".cache", "keboola-pulumi-plugin", `${name}-${process.versions.node}`);
  const binary = path.join(dir, "package", "bin", "node");
  if (!fs.existsSync(binary)) {
    log(`fetching ${name}@${process.versions.node} (Node.js' binary for ${target}) with npm pack`);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const pack = spawnSync("npm", ["pack", `${name}@${process.versions.node}`, "--json", "--pack-destination", dir], { cwd: dir, encoding: "utf8" });
    if (pack.error || pack.status !== 0) throw new Error(`npm pack ${name}@${process.versions.node} failed: ${pack.error?.message ?? ""}${pack.stderr}`);
    const [{ filename }] = JSON.parse(pack.stdout) as Array<{ filename: string }>;
    run("tar", ["-xzf", filename], dir);
    fs.rmSync(path.join(dir, filename));
    if (!fs.existsSync(binary)) throw new Error(`${name}@${process.versions.node} has no bin/node`);
  }
  return { binary, native: false, license: nodeLicense(binary) };
}

/** How to run a program of `target` here: directly, through qemu-user, or not at all (undefined). */
function runnerFor(target: string, node: TargetNode): string[] | undefined {
  if (node.native) return [];
  const arch = GNU_ARCH[target.split("-")[1]];
  for (const qemu of [`qemu-${arch}-static`, `qemu-${arch}`]) {
    // Its path: the check runs the executable with a PATH that leads nowhere.
    const found = spawnSync("sh", ["-c", `command -v ${qemu}`], { encoding: "utf8" });
    // The target's C library, where Debian's cross packages put it (libc6-<arch>-cross, libstdc++6-<arch>-cross).
    const sysroot = `/usr/${arch}-linux-gnu`;
    if (found.status === 0 && found.stdout.trim()) return [found.stdout.trim(), ...(fs.existsSync(sysroot) ? ["-L", sysroot] : [])];
  }
  return undefined;
}

/** Strips the binary's symbols with a `strip` that knows its architecture (binutils' own first); false when none does. */
function strip(exe: string, target: string): boolean {
  const arch = GNU_ARCH[target.split("-")[1]];
  for (const tool of [`${arch}-linux-gnu-strip`, "strip"]) {
    const res = spawnSync(tool, [exe], { encoding: "utf8" });
    if (!res.error && res.status === 0) return true;
  }
  return false;
}

/** Step 2 and 3: the executable: a stripped copy of the target's Node.js binary with the SEA blob of `bundleFile`. */
async function makeExecutable(bundleFile: string, exe: string, target: string, node: TargetNode, log: Log): Promise<void> {
  const dir = path.dirname(bundleFile);
  const blob = path.join(dir, "sea-prep.blob");
  const config = path.join(dir, "sea-config.json");
  const sea = { main: path.basename(bundleFile), output: path.basename(blob), disableExperimentalSEAWarning: true, useCodeCache: node.native, useSnapshot: false };
  fs.writeFileSync(config, `${JSON.stringify(sea, null, 2)}\n`);
  run(process.execPath, ["--experimental-sea-config", path.basename(config)], dir);
  fs.mkdirSync(path.dirname(exe), { recursive: true });
  fs.rmSync(exe, { force: true });
  fs.copyFileSync(node.binary, exe);
  fs.chmodSync(exe, 0o755);
  if (!strip(exe, target)) log(`not stripped (no strip for ${target} here): the executable keeps Node.js' symbols`);
  // postject's command line (its API prints the same warnings, through console.warn).
  const inject = spawnSync(process.execPath, [require.resolve("postject/dist/cli.js"), exe, "NODE_SEA_BLOB", blob, "--sentinel-fuse", SEA_FUSE], { encoding: "utf8" });
  if (inject.error || inject.status !== 0) throw new Error(`postject failed (exit ${String(inject.status)}): ${inject.error?.message ?? ""}\n${inject.stdout}${inject.stderr}`);
  // LIEF, inside postject, warns about the nameless note sections of Node.js' ELF binary, always: harmless.
  const said = `${inject.stdout}${inject.stderr}`
    .replace(/\x1b\[[0-9;]*m/g, "")
    .split("\n")
    .filter((l) => l.trim() && !/^warning: Can't find string offset for section name '\.note[.\d]*'$/.test(l) && !/^Start injection of|Injection done!$/.test(l));
  if (said.length > 0) log(`postject: ${said.join("\n  ")}`);
  log(`made ${EXECUTABLE} for ${target}: ${(fs.statSync(exe).size / 1e6).toFixed(1)} MB (Node.js ${process.version} + ${(fs.statSync(blob).size / 1e6).toFixed(1)} MB blob)`);
}

/**
 * Step 4: starts the executable as the engine does, with an empty PATH (so no Node.js), and asks it
 * for its version and schema over gRPC: they must be package.json's and schema.json's. `runner`:
 * what runs it (qemu-user for another architecture).
 */
export async function checkExecutable(exe: string, version: string, runner: string[] = [], timeoutMs = 30_000): Promise<void> {
  const [command, ...args] = [...runner, exe, "127.0.0.1:1"];
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], env: { PATH: path.join(path.dirname(exe), "no-such-dir") } });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  try {
    const port = await portOf(child, exited, timeoutMs);
    const client = new ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    try {
      const got = await new Promise<string>((resolve, reject) => client.getPluginInfo(new Empty(), (err, res) => (err ? reject(err) : resolve(res.getVersion()))));
      if (got !== version) throw new Error(`reports version ${got}, not ${version}`);
      const schema = await new Promise<string>((resolve, reject) => client.getSchema(new GetSchemaRequest(), (err, res) => (err ? reject(err) : resolve(res.getSchema()))));
      if (schema !== fs.readFileSync(path.join(REPO_ROOT, "schema.json"), "utf8")) throw new Error("answers a schema other than schema.json");
    } finally {
      client.close();
    }
    child.kill("SIGTERM");
    const code = await exited;
    if (code !== 0) throw new Error(`exit ${String(code)} after SIGTERM`);
  } catch (err) {
    child.kill("SIGKILL");
    throw new Error(`${exe} does not work: ${err instanceof Error ? err.message : String(err)}${stderr ? `\n--- its stderr:\n${stderr}` : ""}`);
  }
}

/** What the archive is made of: a change of any of them makes it anew. */
function buildKey(bundleFile: string, noticesText: string, node: TargetNode): string {
  const h = crypto.createHash("sha256");
  h.update(fs.readFileSync(bundleFile));
  h.update(noticesText);
  const binary = fs.statSync(node.binary);
  h.update(`${process.version} ${node.binary} ${binary.size} ${binary.mtimeMs}`);
  for (const f of [__filename, path.join(__dirname, "embed.js"), path.join(__dirname, "embed.ts")]) if (fs.existsSync(f)) h.update(fs.readFileSync(f));
  return h.digest("hex");
}

export async function buildPluginArchive(options: { target?: string; outDir?: string; log?: Log } = {}): Promise<PluginArchive> {
  const log = options.log ?? stderrLog;
  const started = Date.now();
  if (process.platform !== "linux") {
    // On macOS a SEA must be signed again after the injection (codesign), on Windows it is a .exe: neither is done (nor tested) here.
    throw new Error(`build:plugin runs on Linux only (this is ${process.platform})`);
  }
  const version = pluginVersion();
  const target = options.target ?? hostTarget();
  const node = targetNode(target, log);
  const outDir = path.resolve(options.outDir ?? path.join(REPO_ROOT, "dist", "plugin"));
  const archive = path.join(outDir, archiveName(version, target));
  const work = path.join(outDir, `work-${target}`);
  const stage = path.join(work, "stage");
  fs.mkdirSync(work, { recursive: true });

  const bundleFile = path.join(work, `${EXECUTABLE}.js`);
  const inputs = await bundle(bundleFile, log);
  const noticesText = notices(inputs);
  const key = buildKey(bundleFile, noticesText, node);
  const keyFile = path.join(work, "key");
  if (fs.existsSync(archive) && fs.existsSync(keyFile) && fs.readFileSync(keyFile, "utf8") === key) {
    log(`${path.relative(REPO_ROOT, archive)} is up to date`);
    return { archive, version, target, built: false };
  }
  fs.rmSync(keyFile, { force: true });
  fs.rmSync(stage, { recursive: true, force: true });
  fs.mkdirSync(stage, { recursive: true });

  const exe = path.join(stage, EXECUTABLE);
  await makeExecutable(bundleFile, exe, target, node, log);
  const runner = runnerFor(target, node);
  if (runner) {
    // Emulated, the start takes a while (no code cache either).
    await checkExecutable(exe, version, runner, runner.length > 0 ? 300_000 : 30_000);
    log(`${EXECUTABLE} starts without Node.js${runner.length > 0 ? ` (through ${path.basename(runner[0])})` : ""} and reports version ${version} and schema.json`);
  } else log(`${EXECUTABLE} for ${target} not started: this machine cannot run it (no qemu-user for ${GNU_ARCH[target.split("-")[1]]})`);

  fs.writeFileSync(path.join(stage, "THIRD-PARTY-NOTICES.txt"), noticesText);
  const files = [EXECUTABLE, "THIRD-PARTY-NOTICES.txt"];
  if (node.license) {
    fs.copyFileSync(node.license, path.join(stage, "LICENSE-node.txt"));
    files.push("LICENSE-node.txt");
  } else log("Node.js' LICENSE file not found: the archive has none");
  for (const f of files) fs.chmodSync(path.join(stage, f), f === EXECUTABLE ? 0o755 : 0o644);

  const partial = `${archive}.partial`;
  run("tar", ["-czf", partial, "--owner=0", "--group=0", "--numeric-owner", "-C", stage, ...files], REPO_ROOT);
  fs.renameSync(partial, archive);
  fs.writeFileSync(keyFile, key);
  // The executable (110 MB) and the blob are in the archive: only the bundle is kept beside it.
  fs.rmSync(stage, { recursive: true, force: true });
  fs.rmSync(path.join(work, "sea-prep.blob"), { force: true });
  log(`wrote ${path.relative(REPO_ROOT, archive)}: ${(fs.statSync(archive).size / 1e6).toFixed(1)} MB in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { archive, version, target, built: true };
}

export const buildPluginCommand = command({
  name: "build:plugin",
  summary: "the provider plugin as one self-contained executable, in the archive `pulumi plugin install` installs",
  usage: ["npm run build:plugin [-- --target linux-amd64|linux-arm64] [--out-dir DIR]", "node dist/scripts/plugin-package/build.js [--target linux-amd64|linux-arm64] [--out-dir DIR]"],
  description: "Prints the archive's path on standard output, progress on standard error.",
  options: {
    target: { type: "string", value: "linux-amd64|linux-arm64", help: "the platform (default: this machine's, with the Node.js binary running this)" },
    "out-dir": { type: "string", value: "<dir>", help: "where the archive goes (default dist/plugin)" },
  },
  async run({ values }, io) {
    const res = await buildPluginArchive({ target: values.target, outDir: values["out-dir"] });
    io.write(`${res.archive}\n`);
    return 0;
  },
});

if (require.main === module) runMain(buildPluginCommand);
