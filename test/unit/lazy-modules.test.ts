// What loading keboola-pulumi must not load: modules only one operation needs, which every program
// and provider process would otherwise pay for at start (provider/api/upload.ts says why).
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { expect, it } from "vitest";

const ROOT = path.join(__dirname, "..", "..");

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
