// The plugin archive of `npm run build:plugin` (scripts/plugin-package/build.ts): one executable
// that needs nothing on the machine. It is installed with the pinned CLI the way a user installs it
// (`pulumi plugin install resource keboola <version> --file <archive>`) into the workspace's own
// PULUMI_HOME, and a Pulumi YAML program runs on it against the emulator, with a PATH that has
// neither Node.js nor any pulumi-resource-keboola: the engine can only run the installed plugin.
// The program has the kinds whose modules do what a bundle can break: a Table's data goes up
// through the AWS SDK (loaded on the first upload), a Sink's jsonnet template is compiled by the
// jsonnet engine (its wasm, read from disk outside the bundle).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator/server";
import { KeboolaClient } from "../../provider/api/client";
import { initEmulatorStack, makePulumiWorkspace, ok, REPO_ROOT, runProcess, type PulumiWorkspace, type RunResult } from "./helpers/pulumi";

const TOKEN = "plugin-package-token-5d1c";
const PROGRAM = `resources:
  ref:
    type: keboola:index:Bucket
    properties:
      stage: in
      name: packaged
      description: Made by the packaged plugin
  countries:
    type: keboola:index:Table
    properties:
      bucketId: \${ref.bucketId}
      name: countries
      columns: [code, name]
      primaryKey: [code]
      data: countries.csv
  orders:
    type: keboola:index:Source
    properties:
      name: Orders
  totals:
    type: keboola:index:Sink
    properties:
      sourceId: \${orders.sourceId}
      name: Totals
      tableId: in.c-orders.totals
      columns:
        - { type: uuid, name: id, primaryKey: true }
        - { type: template, name: total, template: { language: jsonnet, content: "Body('order.total', 0)" } }
outputs:
  bucketId: \${ref.bucketId}
`;

const output = (res: RunResult) => `${res.stdout}\n${res.stderr}`;

describe("e2e: the packaged plugin (npm run build:plugin), installed from its archive, without Node.js", () => {
  let emu: Emulator;
  let ws: PulumiWorkspace;
  let archive: string;
  let version: string;
  const client = () => new KeboolaClient({ host: emu.url, token: TOKEN, taskTimeoutSeconds: 30 });

  beforeAll(async () => {
    // What `npm run build:plugin` runs after compiling (the tests run on the compiled tree).
    const build = await runProcess(process.execPath, [path.join(REPO_ROOT, "dist", "scripts", "plugin-package", "build.js")], { cwd: REPO_ROOT, env: process.env, timeoutMs: 300_000 });
    expect(build.code, output(build)).toBe(0);
    archive = build.stdout.trim().split("\n").pop() ?? "";
    version = (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { version: string }).version;
    expect(path.basename(archive)).toBe(`pulumi-resource-keboola-v${version}-linux-${process.arch === "x64" ? "amd64" : process.arch}.tar.gz`);

    emu = await startEmulator({ token: TOKEN, taskDurationMs: 10 });
    ws = await makePulumiWorkspace({
      prefix: "plugin-package-",
      // The e2e preload is for the Node.js processes Pulumi starts: there are none here, and the
      // executable would load it too (a single executable of Node.js 20 honours NODE_OPTIONS).
      env: { NODE_OPTIONS: undefined, KEBOOLA_E2E_COMPILE_CACHE: undefined, KEBOOLA_E2E_COMPILE_ROOT: undefined, KEBOOLA_E2E_DEFER_SDK_MODULES: undefined },
    });
    // PATH: a directory with the CLI and its YAML language host only (so no node, and no
    // pulumi-resource-keboola the engine would take from $PATH).
    const bin = path.join(ws.root, "path");
    fs.mkdirSync(bin);
    for (const f of ["pulumi", "pulumi-language-yaml"]) fs.symlinkSync(path.join(ws.binDir, f), path.join(bin, f));
    ws.env.PATH = bin;
    ws.writeProgram({ "countries.csv": "code,name\nCZ,Czechia\nDE,Germany\n" }, { runtime: "yaml", extraYaml: PROGRAM });
    await initEmulatorStack(ws, emu.url, TOKEN);
  }, 360_000);
  afterAll(async () => {
    await ws?.cleanup();
    await emu?.close();
  });

  it("has the executable at the archive's root", async () => {
    const list = await runProcess("tar", ["-tzvf", archive], { cwd: REPO_ROOT, env: process.env });
    expect(list.code, output(list)).toBe(0);
    expect(list.stdout).toMatch(/^-rwxr-xr-x \S+ +\d+ \S+ \S+ pulumi-resource-keboola$/m);
    const names = list.stdout.split("\n").filter(Boolean).map((l) => l.split(/\s+/).pop());
    // Node.js' LICENSE goes in where the machine's Node.js installation has one (it does here and in CI).
    expect(names.sort()).toEqual(["LICENSE-node.txt", "THIRD-PARTY-NOTICES.txt", "pulumi-resource-keboola"]);
  });

  it("installs with `pulumi plugin install --file` into PULUMI_HOME", async () => {
    for (const dir of ws.env.PATH!.split(path.delimiter)) {
      expect(fs.readdirSync(dir).sort()).toEqual(["pulumi", "pulumi-language-yaml"]);
    }
    ok(await ws.pulumi(["plugin", "install", "resource", "keboola", version, "--file", archive]));
    const installed = path.join(ws.homeDir, "plugins", `resource-keboola-v${version}`, "pulumi-resource-keboola");
    expect(fs.statSync(installed).mode & 0o111).not.toBe(0);
    const ls = ok(await ws.pulumi(["plugin", "ls", "--json"]));
    expect(JSON.parse(ls.stdout)).toEqual([expect.objectContaining({ name: "keboola", kind: "resource", version })]);
  });

  it("deploys a YAML program against the emulator with the installed plugin", async () => {
    // -v=6 makes the engine say where it found each plugin.
    const up = ok(await ws.up(["--logtostderr", "--logflow", "-v=6"], { timeoutMs: 240_000 }));
    expect(output(up)).not.toContain("from $PATH");
    const installed = path.join(ws.homeDir, "plugins", `resource-keboola-v${version}`, "pulumi-resource-keboola");
    expect(up.stderr).toContain(`): found in cache at ${installed}`);
    expect(up.stderr).not.toMatch(/GetPluginPath\(resource, keboola, [^)]*\): found (on \$PATH|next to)/);

    const types = (await ws.stackResources()).filter((r) => r.type.startsWith("keboola:index:")).map((r) => r.type);
    expect(types.sort()).toEqual(["keboola:index:Bucket", "keboola:index:Sink", "keboola:index:Source", "keboola:index:Table"]);
    expect(await ws.stackOutputs()).toEqual({ bucketId: "in.c-packaged" });
    const bucket = await client().storage.findBucket("default", "in.c-packaged");
    expect(bucket?.description).toBe("Made by the packaged plugin");
    expect(await client().storage.findTable("default", "in.c-packaged.countries")).toMatchObject({ columns: ["code", "name"], rowsCount: 2 });
    const rows = emu.writes().map((w) => `${w.method} ${w.path.replace(/\?.*$/, "")}`);
    // The table's data went up: the AWS SDK's PutObject to the emulator's object store (/files/).
    expect(rows.filter((r) => r.startsWith("PUT /files/"))).toHaveLength(1);
  });

  it("refuses a broken jsonnet template at preview with go-jsonnet's message (the engine runs in the executable)", async () => {
    ws.writeProgram({}, { runtime: "yaml", extraYaml: PROGRAM.replace("Body('order.total', 0)", "Bodyy('order.total', 0)") });
    const preview = await ws.preview();
    expect(preview.code).not.toBe(0);
    expect(output(preview)).toMatch(/keboola:index:Sink resource 'totals'.*template is invalid: 1:1-6 Unknown variable: Bodyy/s);
    ws.writeProgram({}, { runtime: "yaml", extraYaml: PROGRAM });
  });

  it("destroys it", async () => {
    ok(await ws.destroy([], { timeoutMs: 240_000 }));
    expect(await client().storage.findBucket("default", "in.c-packaged")).toBeUndefined();
  });
});
