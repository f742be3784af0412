// End to end with the real Pulumi CLI through the repository's root Pulumi project: the manifest
// with every entry kind (examples/manifest/keboola.yaml) is deployed, previews with no
// changes, an edit of the manifest previews as exactly that edit, a broken manifest fails the
// preview with its position and writes nothing, and destroy removes everything.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator/server";
import { describeResult, REPO_ROOT } from "./helpers/pulumi";
import { makeRootProject, type RootProject } from "../../scripts/lib/root-project";
import { referenceOf } from "../../provider/program/reference";

const EXAMPLE = path.join(REPO_ROOT, "examples", "manifest", "keboola.yaml");
const SECRET = "shop-api-token-1234";


describe("e2e: the manifest through the root Pulumi project", () => {
  let emu: Emulator;
  let root: RootProject;
  let manifest: string;

  beforeAll(async () => {
    emu = await startEmulator({ token: "master", taskDurationMs: 20 });
    manifest = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "manifest-e2e-")), "keboola.yaml");
    root = await makeRootProject({ prefix: "manifest-e2e", host: emu.url, token: "master", manifest, config: { ordersApiToken: { secret: SECRET } } });
  }, 30 * 60 * 1000);

  afterAll(async () => {
    if (manifest) fs.rmSync(path.dirname(manifest), { recursive: true, force: true });
    await root?.cleanup();
    await emu?.close();
  });

  it("refuses a broken manifest at preview with file, line, column and path, writing nothing", async () => {
    const text = fs.readFileSync(EXAMPLE, "utf8").replace("    name: Raw orders\n", "    name: Raw orders\n    tabelId: x\n").replace("source: orders", "source: order");
    fs.writeFileSync(manifest, text);
    emu.clearRequests();
    const res = await root.pulumi(["preview"], { timeoutMs: 300_000 });
    expect(res.code).not.toBe(0);
    const lineOf = (needle: string) => text.slice(0, text.indexOf(needle)).split("\n").length;
    expect(res.stdout).toContain("2 problems in the manifest, nothing was deployed:");
    expect(res.stdout).toContain(`${manifest}:${lineOf("source: order")}:13: sinks.orders-raw.source: "order" is not a key under sources (one of: orders)`);
    expect(res.stdout).toContain(`${manifest}:${lineOf("tabelId")}:5: sinks.orders-raw.tabelId: unknown key "tabelId": remove it, or use one of:`);
    expect(res.stdout).not.toMatch(/at Object\.|\.js:\d+:\d+\)/); // no stack trace, only the problems
    expect(emu.requests()).toEqual([]);
  }, 300_000);

  it("deploys every entry kind, previews no changes, previews an edit as exactly that edit, and destroys", async () => {
    fs.writeFileSync(manifest, fs.readFileSync(EXAMPLE, "utf8"));
    const up = await root.pulumi(["up", "--yes", "--skip-preview"], { timeoutMs: 300_000 });
    expect(up.code, describeResult(up)).toBe(0);
    expect(up.stdout).toMatch(/\+ 10 created/); // 9 resources and the stack
    for (const type of ["Source", "SourceSettings", "Sink", "SinkSettings", "VariableConfig", "ComponentConfig", "JobRun", "Flow", "Schedule"]) {
      expect(up.stdout).toContain(`pulumi-nodejs:dynamic/keboola:${type} `);
    }
    const live = () => [...Object.values(emu.state.stream.sources), ...Object.values(emu.state.stream.sinks)].filter((o) => !o.deleted);
    expect(live().map((o) => ("sinkId" in o ? o.sinkId : o.sourceId)).sort()).toEqual(["orders", "orders-raw"]);
    const config = emu.state.storage.configs["101/keboola.ex-generic-v2/orders-extractor"];
    expect(config.configuration).toMatchObject({ variables_id: "orders-vars", parameters: { api: { http: { headers: { "#token": expect.stringMatching(/^KBC::ProjectSecure::/) } } } } });
    // Keboola got the secret from stack config encrypted only.
    expect(JSON.stringify(emu.state)).not.toContain(SECRET);
    expect(config.rows.map((r) => r.id)).toEqual(["open", "closed"]);
    expect(Object.keys(emu.state.queue.jobs)).toHaveLength(1);
    // The secret from stack config is stored encrypted in the state.
    const exported = await root.pulumi(["stack", "export"]);
    expect(exported.code, describeResult(exported)).toBe(0);
    expect(exported.stdout).not.toContain(SECRET);
    // The root project's state stays small (README, "Large stacks"): each resource's provider is a
    // reference naming its kind and the resource itself (provider/program/reference.ts), no code of
    // this package; it records no stack of this package's code (a manifest has no program frame of
    // its own); and it holds the kind's inputs and outputs, with no hidden key of ours: the
    // dynamic resource's own `__provider` alone.
    const state = JSON.parse(exported.stdout) as { deployment: { resources: Array<{ urn: string; type: string; inputs?: Record<string, unknown>; outputs?: Record<string, unknown>; stackTrace?: unknown; sourcePosition?: unknown }> } };
    const ours = state.deployment.resources.filter((r) => r.type.includes("keboola:"));
    expect(ours.length).toBeGreaterThan(5);
    for (const r of ours) {
      for (const side of [r.inputs, r.outputs]) {
        expect(referenceOf(side?.__provider), r.urn).toMatchObject({ urn: r.urn });
        expect(String(side?.__provider).length, r.urn).toBeLessThan(r.urn.length + 200);
        expect(Object.keys(side ?? {}).filter((k) => k.startsWith("__")), r.urn).toEqual(["__provider"]);
      }
      expect(r.stackTrace, r.type).toBeUndefined();
      expect(r.sourcePosition, r.type).toBeUndefined();
    }

    const same = await root.pulumi(["preview", "--expect-no-changes"], { timeoutMs: 300_000 });
    expect(same.code, describeResult(same)).toBe(0);

    // Three edits: a sink's name, a source setting, a default value.
    const edited = fs
      .readFileSync(EXAMPLE, "utf8")
      .replace("name: Raw orders", "name: All orders")
      .replace("interval: 2m, count: 5000", "interval: 2m, count: 8000")
      .replace('pageSize: "50"', 'pageSize: "75"');
    fs.writeFileSync(manifest, edited);
    const diff = await root.pulumi(["preview", "--diff"], { timeoutMs: 300_000 });
    expect(diff.code, describeResult(diff)).toBe(0);
    const updated = [...diff.stdout.matchAll(/~ pulumi-nodejs:dynamic\/keboola:(\w+): \(update\)\s+\[id=[^\]]*\]\s+\[urn=[^\]]*::([\w-]+)\]/g)].map((m) => `${m[1]} ${m[2]}`);
    expect(updated.sort()).toEqual(["Sink orders-raw", "SourceSettings orders-settings", "VariableConfig orders-vars"]);
    // Exactly the three edited values change, nothing else.
    const changes = diff.stdout.split("\n").filter((l) => l.includes(" => ")).map((l) => l.trim().replace(/\s+/g, " "));
    expect(changes.sort()).toEqual(['~ count : 5000 => 8000', '~ name : "Raw orders" => "All orders"', '~ pageSize: "50" => "75"']);
    expect(diff.stdout).toMatch(/Resources:\s+~ 3 to update\s+7 unchanged/);

    const destroy = await root.pulumi(["destroy", "--yes", "--skip-preview"], { timeoutMs: 300_000 });
    expect(destroy.code, describeResult(destroy)).toBe(0);
    expect(Object.values(emu.state.storage.configs).filter((c) => !c.isDeleted)).toEqual([]);
    expect(Object.values(emu.state.scheduler.schedules)).toEqual([]);
    expect(live()).toEqual([]);
  }, 600_000);
});
