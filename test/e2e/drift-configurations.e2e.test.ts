// End to end with the real Pulumi CLI: configurations, rows, a flow and schedules of a manifest
// stack are changed the way the UI changes them (the Storage API, with a change description), one
// change at a time. Each is reported by `keboola-pulumi drift` (exit 2, the path, who and when,
// never a secret), written back into keboola.yaml by `pull`, after which `pulumi preview
// --expect-no-changes` passes and `drift` exits 0 again.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator/server";
import { describeResult, REPO_ROOT } from "./helpers/pulumi";
import { deployedRootProject, keboolaPulumi, renderedInChromium, uiClient } from "./helpers/drift";
import type { RootProject } from "../../scripts/lib/root-project";
import type { KeboolaClient } from "../../provider/api/client";
import { parse as parseYaml } from "yaml";

const FIXTURE = path.join(REPO_ROOT, "test", "drift", "fixtures", "configurations.yaml");
const COMPONENT = "keboola.ex-generic-v2";
const NEW_KEY = "new-api-key-from-the-ui-5521";

interface DriftJson {
  drifted: boolean;
  counts: Record<string, number>;
  resources: Array<{ kind: string; name: string; status: string; changedBy?: { at?: string; by?: string; description?: string }; changes: Array<{ path: string; change: string; before?: unknown; after?: unknown; secret?: boolean }> }>;
}

describe("e2e: drift and pull of configurations, rows, a flow and schedules", () => {
  let emu: Emulator;
  let root: RootProject;
  let manifest: string;
  let deployed: Awaited<ReturnType<typeof deployedRootProject>> | undefined;
  let ui: KeboolaClient;

  const drift = async (): Promise<DriftJson> => {
    const res = await keboolaPulumi(root, "drift", ["--json"]);
    expect([0, 2], describeResult(res)).toContain(res.code);
    const doc = JSON.parse(res.stdout) as DriftJson;
    expect(res.code).toBe(doc.drifted ? 2 : 0);
    return doc;
  };
  const changed = (doc: DriftJson) => doc.resources.filter((r) => r.status !== "same");
  /** pull, then the next preview has nothing to change and drift finds nothing. */
  const pullClean = async (args: string[] = []) => {
    const before = fs.readFileSync(manifest, "utf8");
    const pulled = await keboolaPulumi(root, "pull", args);
    expect(pulled.code, describeResult(pulled)).toBe(0);
    const preview = await root.pulumi(["preview", "--expect-no-changes"], { timeoutMs: 300_000 });
    expect(preview.code, describeResult(preview)).toBe(0);
    expect((await drift()).drifted).toBe(false);
    return { pulled, before, after: fs.readFileSync(manifest, "utf8") };
  };
  const config = (id: string) => emu.state.storage.configs[`101/${COMPONENT}/${id}`];

  beforeAll(async () => {
    emu = await startEmulator({ token: "master", taskDurationMs: 20 });
    ui = uiClient(emu.url, "master");
    const res = await fetch(`${emu.urls.storage}/encryption/encrypt?componentId=${COMPONENT}&projectId=${emu.state.project.id}`, { method: "POST", headers: { "Content-Type": "text/plain" }, body: "first-api-key" });
    const cipher = await res.text();
    deployed = await deployedRootProject("drift-config", emu.url, fs.readFileSync(FIXTURE, "utf8").replace("{{CIPHER}}", cipher));
    ({ root, manifest } = deployed);
  }, 30 * 60 * 1000);

  afterAll(async () => {
    await deployed?.cleanup();
    await emu?.close();
  });

  it("finds nothing right after up (exit 0), and pull leaves the file as it is", async () => {
    const doc = await drift();
    expect(doc.drifted).toBe(false);
    expect(doc.counts).toMatchObject({ changed: 0, deleted: 0, error: 0 });
    expect(doc.counts.same).toBe(6); // 3 configurations, the flow, 2 schedules
    const before = fs.readFileSync(manifest, "utf8");
    const pulled = await keboolaPulumi(root, "pull");
    expect(pulled.code, describeResult(pulled)).toBe(0);
    expect(pulled.stdout).toContain("Nothing drifted");
    expect(fs.readFileSync(manifest, "utf8")).toBe(before);
  }, 300_000);

  it("a configuration parameter changed in the UI", async () => {
    const c = config("orders-extractor");
    const configuration = structuredClone(c.configuration) as { parameters: { api: { baseUrl: string } } };
    configuration.parameters.api.baseUrl = "https://shop.example.com/api/v2/";
    await ui.storage.updateConfig("default", COMPONENT, "orders-extractor", { configuration, changeDescription: "Parameters edited" });

    const doc = await drift();
    expect(doc.drifted).toBe(true);
    const [r] = changed(doc);
    expect(r).toMatchObject({ kind: "ComponentConfig", name: "orders-extractor", status: "changed", changedBy: { description: "Parameters edited" } });
    expect(r.changedBy?.at).toMatch(/^\d{4}-\d\d-\d\d/);
    expect(r.changes).toEqual([{ path: "configuration.parameters.api.baseUrl", change: "changed", before: "https://shop.example.com/api/", after: "https://shop.example.com/api/v2/" }]);
    const text = await keboolaPulumi(root, "drift");
    expect(text.code).toBe(2);
    expect(text.stdout).toContain("ComponentConfig orders-extractor");
    expect(text.stdout).toContain('~ configuration.parameters.api.baseUrl: "https://shop.example.com/api/" → "https://shop.example.com/api/v2/"');

    const { pulled, before, after } = await pullClean();
    expect(pulled.stdout).toContain('-        api: { baseUrl: "https://shop.example.com/api/" }');
    expect(pulled.stdout).toContain('+        api: { baseUrl: "https://shop.example.com/api/v2/" }');
    expect(after).toBe(before.replace('api: { baseUrl: "https://shop.example.com/api/" }\n        config:', 'api: { baseUrl: "https://shop.example.com/api/v2/" }\n        config:'));
  }, 300_000);

  it("a # value changed in the UI: the new ciphertext goes to the file, the plain value nowhere", async () => {
    const encrypted = await ui.encryption();
    const cipher = (await encrypted.encrypt(emu.state.project.id, COMPONENT, { "#apiKey": NEW_KEY }))["#apiKey"];
    const configuration = structuredClone(config("orders-extractor").configuration) as { parameters: { config: Record<string, unknown> } };
    configuration.parameters.config["#apiKey"] = cipher;
    await ui.storage.updateConfig("default", COMPONENT, "orders-extractor", { configuration, changeDescription: "API key rotated" });

    const json = await keboolaPulumi(root, "drift", ["--json"]);
    expect(json.code).toBe(2);
    const doc = JSON.parse(json.stdout) as DriftJson;
    expect(changed(doc)[0].changes).toEqual([{ path: "configuration.parameters.config.#apiKey", change: "changed", secret: true }]);
    const text = await keboolaPulumi(root, "drift");
    expect(text.stdout).toContain("configuration.parameters.config.#apiKey: changed (secret, not shown)");
    const { pulled, after } = await pullClean();
    expect(after).toContain(`"#apiKey": "${cipher}"`);
    for (const out of [json.stdout, json.stderr, text.stdout, text.stderr, pulled.stderr, after]) expect(out).not.toContain(NEW_KEY);
    // The diff shows the file's lines, ciphertext included (as `git diff` will): never the plain value.
    expect(pulled.stdout).not.toContain(NEW_KEY);
  }, 300_000);

  it("rows: one added, one removed, one disabled", async () => {
    await ui.storage.createRow("default", COMPONENT, "orders-extractor", { rowId: "refunds", name: "Refunds", configuration: { parameters: { status: "refunded" } }, changeDescription: "Row Refunds added" });
    await ui.storage.deleteRow("default", COMPONENT, "orders-extractor", "returned", "Row Returned orders deleted");
    await ui.storage.updateRow("default", COMPONENT, "orders-extractor", "closed", { isDisabled: true, changeDescription: "Row Closed orders disabled" });

    const doc = await drift();
    const paths = changed(doc)[0].changes.map((c) => `${c.change} ${c.path}`);
    expect(paths).toEqual(expect.arrayContaining(["changed rows[Closed orders].isDisabled", "added rows[Refunds]", "removed rows[Returned orders]"]));
    const { after } = await pullClean();
    expect(after).toContain("- { rowId: open, name: Open orders, configuration: { parameters: { status: open } } }");
    expect(after).toMatch(/rowId: closed, name: Closed orders, configuration: \{ parameters: \{ status: closed \} \}, isDisabled: true \}/);
    expect(after).not.toContain("returned");
    // The UI's new row is written as an author would: no empty description, no isDisabled: false.
    expect(after).toContain("      - name: Refunds\n        configuration:\n          parameters:\n            status: refunded\n  customers-extractor:");
  }, 300_000);

  it("a flow task added in the UI is written as a task naming the configuration's key", async () => {
    const flow = emu.state.storage.configs["101/keboola.flow/" + (await flowId())];
    const configuration = structuredClone(flow.configuration) as { tasks: Array<Record<string, unknown>> };
    const first = configuration.tasks[0];
    configuration.tasks.push({ ...first, id: 2, name: "customers", task: { ...(first.task as object), configId: "customers-extractor" } });
    await ui.storage.updateConfig("default", "keboola.flow", flow.id, { configuration, changeDescription: "Task customers added" });

    const doc = await drift();
    expect(changed(doc).map((r) => r.name)).toEqual(["nightly"]);
    const { after } = await pullClean();
    expect(after).toMatch(/tasks: \[\s*\{ configuration: orders-extractor \},?\s*\{ configuration: customers-extractor/);
  }, 300_000);

  it("a schedule's cron changed and another one disabled", async () => {
    for (const [name, edit] of [
      ["nightly", (s: Record<string, unknown>) => ({ ...s, cronTab: "30 4 * * *" })],
      ["hourly", (s: Record<string, unknown>) => ({ ...s, state: "disabled" })],
    ] as const) {
      const c = Object.values(emu.state.storage.configs).find((x) => x.componentId === "keboola.scheduler" && x.name === name && !x.isDeleted)!;
      const configuration = structuredClone(c.configuration) as { schedule: Record<string, unknown> };
      configuration.schedule = edit(configuration.schedule);
      const saved = await ui.storage.updateConfig("default", "keboola.scheduler", c.id, { configuration, changeDescription: "Schedule edited" });
      // The UI activates the saved version (the Scheduler API), as it does after every edit of a schedule.
      await (await ui.scheduler()).activate(c.id, String(saved.version));
    }
    const doc = await drift();
    const byName = Object.fromEntries(changed(doc).map((r) => [r.name, r.changes]));
    expect(byName.nightly).toEqual([{ path: "cron", change: "changed", before: "0 3 * * *", after: "30 4 * * *" }]);
    expect(byName.hourly).toEqual([{ path: "enabled", change: "changed", before: true, after: false }]);
    const { after } = await pullClean();
    expect(after).toContain('cron: "30 4 * * *"');
    expect(after).toMatch(/hourly:\n {4}configuration: customers-extractor\n {4}cron: "0 \* \* \* \*"\n {4}enabled: false\n/);
  }, 300_000);

  it("a configuration deleted in the UI: reported; pull keeps the entry so the next up creates it again, --include-deleted removes it", async () => {
    await ui.storage.deleteConfig("default", COMPONENT, "legacy-extractor", "Configuration deleted");
    const doc = await drift();
    expect(changed(doc)).toEqual([expect.objectContaining({ name: "legacy-extractor", status: "deleted" })]);
    const text = await keboolaPulumi(root, "drift", ["--markdown", path.join(path.dirname(manifest), "drift.md")]);
    expect(text.stdout).toContain("ComponentConfig legacy-extractor (keboola.ex-generic-v2/legacy-extractor): deleted in Keboola");
    // The report's picture in a headless Chromium: the deleted configuration in the review's "deleted" class, the rest plain.
    const md = fs.readFileSync(path.join(path.dirname(manifest), "drift.md"), "utf8");
    const nodes = await renderedInChromium(md);
    expect(nodes.filter((n) => n.classes.some((c) => ["created", "updated", "replaced", "deleted"].includes(c))).map((n) => [n.id, n.classes.filter((c) => c === "deleted"), n.text])).toEqual([
      ["componentconfig_legacy_extractor", ["deleted"], "ComponentConfiglegacy-extractor(deleted in Keboola)"],
    ]);
    expect(text.stdout).toContain("the next pulumi up creates it again");

    const before = fs.readFileSync(manifest, "utf8");
    const kept = await keboolaPulumi(root, "pull");
    expect(kept.code, describeResult(kept)).toBe(0);
    expect(kept.stderr).toContain("configurations.legacy-extractor: deleted in Keboola; kept in");
    expect(fs.readFileSync(manifest, "utf8")).toBe(before);
    const preview = await root.pulumi(["preview", "--expect-no-changes"], { timeoutMs: 300_000 });
    expect(preview.code).not.toBe(0);
    expect(preview.stdout).toMatch(/\+ 1 to create/);
    const up = await root.pulumi(["up", "--yes", "--skip-preview"], { timeoutMs: 300_000 });
    expect(up.code, describeResult(up)).toBe(0);
    expect(config("legacy-extractor").isDeleted).toBe(false);
    expect((await drift()).drifted).toBe(false);

    await ui.storage.deleteConfig("default", COMPONENT, "legacy-extractor", "Configuration deleted");
    const { after } = await pullClean(["--include-deleted"]);
    expect(after).not.toContain("legacy-extractor");
    expect(after).toBe(before.replace(/  legacy-extractor:\n(?: {4}.*\n)+/, ""));
  }, 300_000);

  it("pull --include-new: what was made in the UI is added with adoptExisting (references as keys), never another stack's object or a job's bucket; up takes it over unchanged", async () => {
    // Made in the UI: a configuration, a flow running it and a managed one, a bucket.
    await ui.storage.createConfig("default", COMPONENT, { configurationId: "tickets-extractor", name: "Tickets extractor", configuration: { parameters: { api: { baseUrl: "https://desk.example.com/" } } }, changeDescription: "Configuration created" });
    const flowConfiguration = {
      phases: [{ id: 1, name: "Extract", dependsOn: [] }],
      tasks: [
        { id: 1, name: "tickets", phase: 1, enabled: true, continueOnFailure: false, task: { componentId: COMPONENT, configId: "tickets-extractor", mode: "run" } },
        { id: 2, name: "customers", phase: 1, enabled: true, continueOnFailure: false, task: { componentId: COMPONENT, configId: "customers-extractor", mode: "run" } },
      ],
    };
    const uiFlow = await ui.storage.createConfig("default", "keboola.flow", { name: "Support", configuration: flowConfiguration, changeDescription: "Flow created" });
    await ui.storage.createBucket("default", { name: "support", stage: "in", description: "Support desk data" });
    // Not ours to add: a configuration another stack manages (its owner marker), a bucket a job made (Storage's system metadata).
    await ui.storage.createConfig("default", COMPONENT, { configurationId: "their-extractor", name: "Their extractor", configuration: { parameters: {} } });
    await ui.storage.setConfigMetadata("default", COMPONENT, "their-extractor", [{ key: "keboola-pulumi.owner", value: "urn:pulumi:staging::other-project::pulumi-nodejs:dynamic/keboola:ComponentConfig::their-extractor" }]);
    await ui.storage.createBucket("default", { name: "job-output", stage: "out" });
    const jobBucket = emu.state.storage.buckets[`${emu.state.project.defaultBranchId}/out.c-job-output`];
    jobBucket.metadata = [...(jobBucket.metadata ?? []), { id: "99001", key: "KBC.createdBy.component.id", value: COMPONENT, provider: "system", timestamp: "2026-11-28T00:00:00+0100" }];

    // Without the flag nothing of it is written (none of it drifted: the stack does not manage it).
    const before = fs.readFileSync(manifest, "utf8");
    const plain = await keboolaPulumi(root, "pull");
    expect(plain.code, describeResult(plain)).toBe(0);
    expect(fs.readFileSync(manifest, "utf8")).toBe(before);
    const dry = await keboolaPulumi(root, "pull", ["--include-new", "--dry-run"]);
    expect(dry.code, describeResult(dry)).toBe(0);
    expect(dry.stdout).toContain("+  tickets-extractor:");
    expect(fs.readFileSync(manifest, "utf8")).toBe(before);

    const pulled = await keboolaPulumi(root, "pull", ["--include-new"]);
    expect(pulled.code, describeResult(pulled)).toBe(0);
    expect(pulled.stderr).toContain("added 3 object(s) made in Keboola");
    expect(pulled.stderr).toContain(`configurations ${COMPONENT}/their-extractor: not added, it belongs to stack staging (its owner marker)`);
    expect(pulled.stderr).toContain(`buckets out.c-job-output: not added, made by a job of ${COMPONENT}`);
    const after = fs.readFileSync(manifest, "utf8");
    // Every line of the file is kept; the new entries come at the end of their sections (buckets: a new one).
    const doc = parseYaml(after) as Record<string, Record<string, Record<string, unknown>>>;
    expect(doc.configurations["tickets-extractor"]).toEqual({ componentId: COMPONENT, configId: "tickets-extractor", name: "Tickets extractor", configuration: { parameters: { api: { baseUrl: "https://desk.example.com/" } } }, adoptExisting: true });
    expect(doc.configurations["their-extractor"]).toBeUndefined();
    expect(doc.flows.support).toEqual({
      configId: uiFlow.id,
      name: "Support",
      phases: [{ name: "Extract", tasks: [{ configuration: "tickets-extractor", name: "tickets" }, { configuration: "customers-extractor", name: "customers" }] }],
      adoptExisting: true,
    });
    expect(doc.buckets).toEqual({ support: { name: "support", description: "Support desk data", adoptExisting: true } });
    for (const line of before.split("\n")) expect(after.split("\n")).toContain(line);

    // up takes the three over without changing them, then nothing drifts and nothing is new.
    const versions = () => [config("tickets-extractor").version, emu.state.storage.configs[`101/keboola.flow/${uiFlow.id}`].version];
    const was = versions();
    const up = await root.pulumi(["up", "--yes", "--skip-preview"], { timeoutMs: 300_000 });
    expect(up.code, describeResult(up)).toBe(0);
    expect(versions()).toEqual(was);
    const preview = await root.pulumi(["preview", "--expect-no-changes"], { timeoutMs: 300_000 });
    expect(preview.code, describeResult(preview)).toBe(0);
    expect((await drift()).drifted).toBe(false);
    const again = await keboolaPulumi(root, "pull", ["--include-new"]);
    expect(again.code, describeResult(again)).toBe(0);
    expect(again.stdout).toContain("nothing new was made in Keboola");
    expect(fs.readFileSync(manifest, "utf8")).toBe(after);
  }, 300_000);

  it("exits 1 on an error: a stack that does not exist", async () => {
    const res = await keboolaPulumi(root, "drift", ["--stack", "no-such-stack"]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("keboola-pulumi drift: reading the stack's");
  }, 300_000);

  async function flowId(): Promise<string> {
    return Object.values(emu.state.storage.configs).find((x) => x.componentId === "keboola.flow" && !x.isDeleted)!.id;
  }
});
