// What loading keboola-pulumi must not load: modules only one operation needs, which every program
// and provider process would otherwise pay for at start (provider/api/upload.ts says why).
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { expect, it } from "vitest";
import { startEmulator } from "../../emulator/server";
import { firstCall } from "../../scripts/plugin-first-call";
import { forbiddenModules } from "../../scripts/plugin-package/bundle";
import { PULUMI_RESOURCE_KEBOOLA } from "../../scripts/lib/bin";

const ROOT = path.join(__dirname, "..", "..");

/**
 * The modules a plugin entry loads when the engine drives it to its first Check (scripts/plugin-first-call.ts:
 * GetSchema, Configure, a Bucket's Check against an emulator): the entry runs under a wrapper that
 * writes `require.cache` when the process exits (the plugin exits on the engine's SIGTERM).
 */
async function loadedByPlugin(entry: string): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "plugin-modules-"));
  const out = path.join(dir, "loaded.json");
  const wrapper = path.join(dir, "plugin.js");
  fs.writeFileSync(
    wrapper,
    `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(out)}, JSON.stringify(Object.keys(require.cache))));\nrequire(${JSON.stringify(entry)});\n`,
  );
  const token = "lazy-modules-token";
  const emu = await startEmulator({ token, taskDurationMs: 10 });
  try {
    await firstCall(wrapper, { host: emu.url, token });
    const loaded: unknown = JSON.parse(fs.readFileSync(out, "utf8"));
    if (!Array.isArray(loaded) || !loaded.every((f): f is string => typeof f === "string")) throw new Error(`${out}: not a list of files`);
    return loaded.filter((f) => f !== wrapper);
  } finally {
    await emu.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The modules esbuild put into a bundle: the path comment it writes before each (relative to the repository). */
const bundledModules = (file: string): string[] => [...fs.readFileSync(file, "utf8").matchAll(/^\/\/ (\S+\.(?:[cm]?js|ts|json))$/gm)].map((m) => m[1]);

it("loads the AWS SDK only for an upload, not with the package or the Table kind", () => {
  const script = `
    const loaded = () => Object.keys(require.cache).some((k) => k.includes("/@aws-sdk/client-s3/"));
    require("./dist/provider");
    const withPackage = loaded();
    require("./dist/provider/kinds/table/kind");
    const withTable = loaded();
    const upload = require("./dist/provider/api/upload");
    // An upload as far as its S3 client: the file to send is missing, so it fails before any request.
    const credentials = { AccessKeyId: "a", SecretAccessKey: "s", SessionToken: "t" };
    const storage = { prepareFile: async () => ({ id: 1, region: "us-east-1", s3Endpoint: "http://127.0.0.1:9", uploadParams: { bucket: "b", key: "k", credentials } }) };
    upload.uploadToStorage(storage, "default", { path: "/nonexistent/x.csv" }, { name: "x.csv" }).catch((e) => {
      console.log(JSON.stringify({ withPackage, withTable, afterUpload: loaded(), error: e.message }));
    });`;
  const res = spawnSync(process.execPath, ["-e", script], { cwd: ROOT, encoding: "utf8" });
  expect(res.stderr).toBe("");
  expect(JSON.parse(res.stdout)).toMatchObject({ withPackage: false, withTable: false, afterUpload: true, error: expect.stringMatching(/ENOENT/) });
});

it("the provider plugin's server starts without the kinds, and runs every kind without the Pulumi SDK's runtime (its protocol messages aside), so without TypeScript and npm's arborist", () => {
  // Asked only for its schema (a YAML program's type check starts it for that), it loads no kind and no SDK.
  const bare = spawnSync(process.execPath, ["-e", `require("./dist/provider/plugin/server"); console.log(Object.keys(require.cache).some((k) => k.includes("/node_modules/@pulumi/pulumi/index.js") || k.includes("/dist/provider/kinds/")))`], { cwd: ROOT, encoding: "utf8" });
  expect(bare.stdout.trim()).toBe("false");
  // Its server and every kind's schema and lifecycle, as the registry loads them for a call.
  const sdkModules = (load: string) => `
    ${load}.then(() => {
      const sdk = Object.keys(require.cache).filter((k) => k.includes("/node_modules/@pulumi/pulumi/") && !k.includes("/node_modules/@pulumi/pulumi/proto/"));
      const loaded = (name) => Object.keys(require.cache).some((k) => k.includes("/node_modules/" + name + "/"));
      console.log(JSON.stringify({ sdk: sdk.length, typescript: loaded("typescript"), arborist: loaded("@npmcli/arborist") }));
    });`;
  const kinds = `require("./dist/provider/plugin/server"); const r = require("./dist/provider/kinds/registry"); Promise.all(r.KIND_NAMES.map(r.loadKind))`;
  const res = spawnSync(process.execPath, ["-e", sdkModules(kinds)], { cwd: ROOT, encoding: "utf8" });
  expect(res.stderr).toBe("");
  expect(JSON.parse(res.stdout)).toEqual({ sdk: 0, typescript: false, arborist: false });
  // A resource class, which only a program loads, does load the SDK (the check above would be vacuous otherwise).
  const program = spawnSync(process.execPath, ["-e", sdkModules(`Promise.resolve(require("./dist/provider/kinds/source/resource"))`)], { cwd: ROOT, encoding: "utf8" });
  expect(JSON.parse(program.stdout)).toMatchObject({ typescript: true, arborist: true });
  expect(JSON.parse(program.stdout).sdk).toBeGreaterThan(20);
});

it("keboola-pulumi answers --help and wrong arguments without loading the resource kinds or the Pulumi SDK", () => {
  // Each line as a user types it, in one process; then what it loaded. provider/cli/main.ts says why.
  const lines = [["--help"], ["help", "drift"], ["export", "--help"], ["try", "--bogus"], ["review"], ["pr", "open"], ["pr", "drift", "--number", "1"], ["drift", "--json=1"], ["pull", "a", "b"], ["nope"]];
  const script = `
    const { main } = require("./dist/provider/cli/main");
    const { processIo } = require("./dist/provider/cli/command");
    const heavy = () => Object.keys(require.cache).filter((k) => k.includes("/node_modules/@pulumi/pulumi/") || k.includes("/dist/provider/kinds/") || k.includes("/dist/provider/api/"));
    (async () => {
      const codes = [];
      for (const line of ${JSON.stringify(lines)}) codes.push(await main(line, processIo({ write: () => {}, error: () => {} })));
      console.log(JSON.stringify({ codes, loaded: heavy() }));
    })();`;
  const res = spawnSync(process.execPath, ["-e", script], { cwd: ROOT, encoding: "utf8" });
  expect(res.stderr).toBe("");
  expect(JSON.parse(res.stdout)).toEqual({ codes: [0, 0, 0, 1, 1, 1, 1, 1, 1, 1], loaded: [] });
  // The same check loads them when a command runs (the test would be vacuous otherwise).
  const ran = spawnSync(process.execPath, ["-e", `require("./dist/provider/cli/main").main(["try", "no-such.yaml", "--source", "s", "-"], require("./dist/provider/cli/command").processIo({ write: () => {}, error: () => {} })).then(() => console.log(Object.keys(require.cache).some((k) => k.includes("/dist/provider/kinds/"))))`], { cwd: ROOT, encoding: "utf8" });
  expect(ran.stdout.trim()).toBe("true");
});

it("the plugin's entry, driven as the engine drives it to its first Check, loads of the Pulumi SDK only the protocol's messages, no resource class, no program module and no AWS SDK", async () => {
  const loaded = (await loadedByPlugin(path.join(ROOT, "dist", "provider", "plugin", "main.js"))).map((f) => path.relative(ROOT, f));
  expect(forbiddenModules(loaded)).toEqual([]);
  expect(loaded.filter((f) => f.includes("/@aws-sdk/"))).toEqual([]);
  // What it did load: the Bucket's kind (its Check ran), the protocol's messages.
  expect(loaded).toContain(path.join("dist", "provider", "kinds", "bucket", "kind.js"));
  expect(loaded.some((f) => f.endsWith("node_modules/@pulumi/pulumi/proto/provider_pb.js"))).toBe(true);
  // The rule is not vacuous: a resource class and the SDK's runtime are refused.
  expect(forbiddenModules(["dist/provider/kinds/source/resource.js", "node_modules/@pulumi/pulumi/resource.js", "dist/provider/program/resource.js"])).toHaveLength(3);
}, 60_000);

it("the plugin's npm bin (package.json's) is one file: the engine's first Check loads nothing else, and the bundle holds no module the plugin must never load", async () => {
  expect(PULUMI_RESOURCE_KEBOOLA).toBe(path.join(ROOT, "dist", "bin", "pulumi-resource-keboola.js"));
  expect(await loadedByPlugin(PULUMI_RESOURCE_KEBOOLA)).toEqual([PULUMI_RESOURCE_KEBOOLA]);
  const bundled = bundledModules(PULUMI_RESOURCE_KEBOOLA);
  expect(bundled).toContain("provider/kinds/bucket/kind.ts");
  expect(bundled.some((f) => f.endsWith("node_modules/@pulumi/pulumi/proto/provider_pb.js"))).toBe(true);
  expect(forbiddenModules(bundled)).toEqual([]);
  // Left to node_modules, loaded only when used: the AWS SDK (an upload), every zod locale but English.
  expect(bundled.filter((f) => f.includes("/@aws-sdk/") || f.includes("/@grpc/proto-loader/"))).toEqual([]);
  expect(bundled.filter((f) => f.includes("/zod/v4/locales/") && !f.endsWith("/index.js"))).toEqual([expect.stringMatching(/\/zod\/v4\/locales\/en\.js$/)]);
}, 60_000);
