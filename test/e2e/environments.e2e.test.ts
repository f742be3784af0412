// One keboola.yaml for every stack, with the real Pulumi CLI through the root project: `config:`
// values read from each stack's config (a problem refused at preview with its position, nothing
// read or written), and `options:` per entry as Pulumi gives them to any resource: protect,
// retainOnDelete, ignoreChanges (a UI edit there survives `up`; drift lists it as ignored and pull
// leaves it), dependsOn (creation order). Two projects (dev and prod) are in projects.e2e.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator/server";
import { describeResult } from "./helpers/pulumi";
import { keboolaPulumi, uiClient } from "./helpers/drift";
import { makeRootProject, type RootProject } from "../../scripts/lib/root-project";

const MANIFEST = `config:
  apiBase: { type: string, description: The shop API }
  pageSize: { type: integer, default: 100 }
tables:
  orders:
    bucket: sales
    name: orders
    columns: [id, amount]
    options: { retainOnDelete: true }
buckets:
  sales: { name: sales }
configurations:
  users:
    componentId: keboola.ex-generic-v2
    configId: users
    name: Users
    configuration:
      parameters:
        api: { baseUrl: "\${apiBase}" }
        config: { outputBucket: in.c-sales, jobs: [{ endpoint: users }], limit: "\${pageSize}" }
        note: set in the UI
    options:
      protect: true
      ignoreChanges: [configuration.parameters.note]
  orders-extractor:
    componentId: keboola.ex-generic-v2
    configId: orders-extractor
    name: Orders
    configuration:
      parameters:
        api: { baseUrl: "\${apiBase}/orders" }
        config: { outputBucket: in.c-sales, jobs: [{ endpoint: orders }] }
    options: { dependsOn: [users] }
`;

const CONFIG_KEY = "101/keboola.ex-generic-v2";

function expectAlive(emu: Emulator, configId: string): void {
  const config = emu.state.storage.configs[`${CONFIG_KEY}/${configId}`];
  expect(config, configId).toBeDefined();
  expect(config.isDeleted, configId).toBeFalsy();
}

describe("e2e: config values and resource options in keboola.yaml", () => {
  let emu: Emulator;
  let root: RootProject;
  let manifest: string;

  beforeAll(async () => {
    emu = await startEmulator({ token: "master", taskDurationMs: 20 });
    manifest = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "environments-e2e-")), "keboola.yaml");
    root = await makeRootProject({ prefix: "environments-e2e", host: emu.url, token: "master", manifest });
  }, 300_000);

  afterAll(async () => {
    if (manifest) fs.rmSync(path.dirname(manifest), { recursive: true, force: true });
    await root?.cleanup();
    await emu?.close();
  });

  it("refuses config: problems at preview with their position, reading and writing nothing", async () => {
    const text = MANIFEST.replace('api: { baseUrl: "${apiBase}/orders" }', 'api: { baseUrl: "${apiBse}/orders" }');
    fs.writeFileSync(manifest, text);
    emu.clearRequests();
    const res = await root.pulumi(["preview"], { timeoutMs: 300_000 });
    expect(res.code).not.toBe(0);
    const lineOf = (needle: string) => text.slice(0, text.indexOf(needle)).split("\n").length;
    expect(res.stdout).toContain(`${manifest}:${lineOf('baseUrl: "${apiBase}"')}:`);
    expect(res.stdout).toContain("configurations.users.configuration.parameters.api.baseUrl: ${apiBase} has no value: stack config keboola:apiBase is not set and config.apiBase gives no default; run pulumi config set apiBase <value>");
    expect(res.stdout).toContain(`${manifest}:${lineOf("${apiBse}")}:`);
    expect(res.stdout).toContain("configurations.orders-extractor.configuration.parameters.api.baseUrl: ${apiBse} is not declared: add it under config:");
    expect(emu.requests()).toEqual([]);
  }, 300_000);

  it("deploys the stack's values, creating after what an entry depends on", async () => {
    fs.writeFileSync(manifest, MANIFEST);
    expect((await root.setConfig("apiBase", "https://dev.shop.example.com")).code).toBe(0);
    emu.clearRequests();
    const up = await root.pulumi(["up", "--yes", "--skip-preview"], { timeoutMs: 300_000 });
    expect(up.code, describeResult(up)).toBe(0);
    const users = emu.state.storage.configs[`${CONFIG_KEY}/users`];
    expect(users.configuration).toMatchObject({ parameters: { api: { baseUrl: "https://dev.shop.example.com" }, config: { limit: 100 } } });
    expect(emu.state.storage.configs[`${CONFIG_KEY}/orders-extractor`].configuration).toMatchObject({ parameters: { api: { baseUrl: "https://dev.shop.example.com/orders" } } });
    // dependsOn: the engine records the dependency, so it creates users first (and deletes it last).
    const state = JSON.parse((await root.pulumi(["stack", "export"])).stdout) as { deployment: { resources: Array<{ urn: string; dependencies?: string[] }> } };
    const urnOf = (name: string) => state.deployment.resources.find((r) => r.urn.endsWith(`::${name}`))?.urn;
    expect(state.deployment.resources.find((r) => r.urn === urnOf("orders-extractor"))?.dependencies).toContain(urnOf("users"));
    const preview = await root.pulumi(["preview", "--expect-no-changes"], { timeoutMs: 300_000 });
    expect(preview.code, describeResult(preview)).toBe(0);
  }, 600_000);

  it("ignoreChanges: a UI edit there is listed as ignored by drift, left by pull and survives up; a value from ${name} names its stack config key", async () => {
    const ui = uiClient(emu.url, "master");
    const live = await ui.storage.getConfig("default", "keboola.ex-generic-v2", "users");
    const parameters = { ...(live.configuration.parameters as Record<string, unknown>) };
    parameters.note = "changed in the UI";
    parameters.config = { ...(parameters.config as Record<string, unknown>), limit: 500 };
    await ui.storage.updateConfig("default", "keboola.ex-generic-v2", "users", { configuration: { ...live.configuration, parameters }, changeDescription: "UI edit" });

    const drift = await keboolaPulumi(root, "drift");
    expect(drift.code, describeResult(drift)).toBe(2);
    expect(drift.stdout).toContain("~ configuration.parameters.config.limit: 100 → 500");
    expect(drift.stdout).toContain("(from ${pageSize}: to keep Keboola's value, pulumi config set pageSize <value>");
    const ignored = drift.stdout.slice(drift.stdout.indexOf("Ignored (options.ignoreChanges"));
    expect(ignored).toContain("ComponentConfig users:");
    expect(ignored).toContain('~ configuration.parameters.note: "set in the UI" → "changed in the UI"');

    const before = fs.readFileSync(manifest, "utf8");
    const pull = await keboolaPulumi(root, "pull");
    expect(pull.code, describeResult(pull)).toBe(0);
    expect(fs.readFileSync(manifest, "utf8")).toBe(before);
    expect(pull.stderr).toContain("configurations.users.configuration.parameters.config.limit: changed in Keboola, and the manifest takes it from ${pageSize}");

    const up = await root.pulumi(["up", "--yes", "--skip-preview"], { timeoutMs: 300_000 });
    expect(up.code, describeResult(up)).toBe(0);
    const after = emu.state.storage.configs[`${CONFIG_KEY}/users`].configuration as { parameters: { note: string; config: { limit: number } } };
    expect(after.parameters.note).toBe("changed in the UI");
    expect(after.parameters.config.limit).toBe(100);
  }, 600_000);

  it("protect refuses destroy and removing the entry; retainOnDelete leaves the table in Keboola", async () => {
    const destroy = await root.pulumi(["destroy", "--yes", "--skip-preview"], { timeoutMs: 300_000 });
    expect(destroy.code).not.toBe(0);
    expect(destroy.stdout + destroy.stderr).toMatch(/protected/);
    expectAlive(emu, "users");

    const withoutUsers = MANIFEST.replace(/  users:\n[\s\S]*?ignoreChanges: \[configuration\.parameters\.note\]\n/, "").replace("    options: { dependsOn: [users] }\n", "");
    expect(withoutUsers).not.toContain("users:");
    fs.writeFileSync(manifest, withoutUsers);
    const removed = await root.pulumi(["up", "--yes", "--skip-preview"], { timeoutMs: 300_000 });
    expect(removed.code).not.toBe(0);
    expect(removed.stdout + removed.stderr).toMatch(/protected/);
    expectAlive(emu, "users");

    fs.writeFileSync(manifest, MANIFEST.replace(/tables:\n  orders:\n[\s\S]*?retainOnDelete: true }\n/, ""));
    const dropTable = await root.pulumi(["up", "--yes", "--skip-preview"], { timeoutMs: 300_000 });
    expect(dropTable.code, describeResult(dropTable)).toBe(0);
    expect(dropTable.stdout).toMatch(/- 1 deleted|1 deleted/);
    expect(Object.keys(emu.state.storage.tables ?? {}).some((id) => id.endsWith("in.c-sales.orders"))).toBe(true);
  }, 900_000);
});
