// End to end with the real Pulumi CLI: Stream and Storage objects of a manifest stack changed the
// way the UI changes them (a sink's column mapping, a source's settings through the Stream API, a
// table column through the Storage API). `drift` reports them (JSON, text, Markdown with the
// picture), one `pull` writes them into a manifest with comments, anchors and its own order, which
// comes back byte for byte except the changed values (the golden file), and the next preview is
// clean. `pull --dry-run` writes neither the file nor the state; a change under an anchor shared
// by an alias changes that one place only. A stack made by a program: drift reports, pull refuses
// and says what to change.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator/server";
import { describeResult, initEmulatorStack, makePulumiWorkspace, ok, REPO_ROOT, type PulumiWorkspace } from "./helpers/pulumi";
import { deployedRootProject, keboolaPulumi, renderedInChromium, uiClient } from "./helpers/drift";
import type { RootProject } from "../../scripts/lib/root-project";
import type { KeboolaClient } from "../../provider/api/client";

const FIXTURES = path.join(REPO_ROOT, "test", "drift", "fixtures");

describe("e2e: drift and pull of Stream and Storage objects", () => {
  let emu: Emulator;
  let root: RootProject;
  let manifest: string;
  let deployed: Awaited<ReturnType<typeof deployedRootProject>> | undefined;
  let ui: KeboolaClient;

  const preview = async () => {
    const res = await root.pulumi(["preview", "--expect-no-changes"], { timeoutMs: 300_000 });
    expect(res.code, describeResult(res)).toBe(0);
  };

  beforeAll(async () => {
    emu = await startEmulator({ token: "master", taskDurationMs: 20 });
    ui = uiClient(emu.url, "master");
    deployed = await deployedRootProject("drift-stream", emu.url, fs.readFileSync(path.join(FIXTURES, "stream.yaml"), "utf8"));
    ({ root, manifest } = deployed);
  }, 30 * 60 * 1000);

  afterAll(async () => {
    await deployed?.cleanup();
    await emu?.close();
  });

  it("a sink's mapping, a source's settings and a table column changed in the UI: reported, pulled into the golden file, preview clean", async () => {
    const stream = await ui.stream();
    const sink = (await stream.getSink("default", "events", "events-raw")) as unknown as { table: { mapping: { columns: Array<Record<string, unknown>> } } };
    const columns = sink.table.mapping.columns.map((c) => (c.name === "order_id" ? { ...c, path: "order.number" } : c));
    await stream.runTask(await stream.updateSink("default", "events", "events-raw", { table: { ...sink.table, mapping: { columns } }, changeDescription: "Mapping edited" }), "the UI's sink edit");
    await stream.runTask(await stream.patchSettings("default", "events", undefined, [{ key: "storage.level.target.import.trigger.count", value: 10000 }], "Settings edited"), "the UI's settings edit");
    await ui.storage.waitJob(await ui.storage.addColumn("default", "in.c-ref.countries", { name: "region" }), "the UI's new column");

    const json = await keboolaPulumi(root, "drift", ["--json", "--markdown", "drift.md"]);
    expect(json.code, describeResult(json)).toBe(2);
    const doc = JSON.parse(json.stdout) as { resources: Array<{ kind: string; name: string; status: string; changedBy?: { by?: string; description?: string }; changes: Array<{ path: string }> }> };
    const drifted = doc.resources.filter((r) => r.status !== "same");
    // In the review's order: kind, then name.
    expect(drifted.map((r) => [r.kind, r.name, r.changes.map((c) => c.path)])).toEqual([
      ["SourceSettings", "events-settings", ["targetImportTrigger.count"]],
      ["Sink", "events-raw", ["columns[order_id].path"]],
      ["Table", "countries", ["columns"]],
    ]);
    expect(drifted.find((r) => r.name === "events-raw")?.changedBy).toMatchObject({ description: "Mapping edited" });
    expect(drifted.find((r) => r.name === "events-raw")?.changedBy?.by).toBeTruthy();

    // The Markdown report: the review's format, the picture with the drifted objects marked.
    const md = fs.readFileSync(path.join(REPO_ROOT, "drift.md"), "utf8");
    fs.rmSync(path.join(REPO_ROOT, "drift.md"));
    expect(md).toContain("## Keboola drift");
    expect(md).toContain("| Sink | 1 |  | 1 |");
    expect(md).toMatch(/```mermaid\nflowchart LR/);
    expect(md).toContain("(changed in Keboola)");
    expect(md).toContain("#### Sink `events-raw`: changed in Keboola");
    expect(md).toContain("Columns (`+` added, `−` removed, `~` changed, `↕` moved):");
    expect(md).toContain("- `targetImportTrigger.count`: `5000` → `10000`");
    // The picture as GitHub draws it: mermaid in a headless Chromium, each drifted object in the review's "updated" class.
    const nodes = await renderedInChromium(md);
    const highlighted = [...nodes].filter((n) => n.classes.includes("updated")).map((n) => [n.id, n.text]);
    expect(highlighted.sort()).toEqual([
      ["sink_events_raw", "Sinkevents-raw(changed in Keboola)"],
      ["sourcesettings_events_settings", "SourceSettingsevents-settings(changed in Keboola)"],
      ["table_countries", "Tablecountries(changed in Keboola)"],
    ]);
    expect(nodes.filter((n) => n.classes.some((c) => ["created", "replaced", "deleted"].includes(c)))).toEqual([]);
    expect(nodes.map((n) => n.id)).toContain("sink_events_copy"); // unchanged objects are in the picture, plain

    const pulled = await keboolaPulumi(root, "pull");
    expect(pulled.code, describeResult(pulled)).toBe(0);
    const expected = fs.readFileSync(path.join(FIXTURES, "stream.pulled.yaml"), "utf8");
    expect(fs.readFileSync(manifest, "utf8")).toBe(expected);
    expect(pulled.stdout).toContain("-      - { type: path, name: order_id, path: order.id, rawString: true }");
    expect(pulled.stdout).toContain("+      - { type: path, name: order_id, path: order.number, rawString: true }");
    await preview();
    expect((await keboolaPulumi(root, "drift")).code).toBe(0);
  }, 300_000);

  it("pull --dry-run prints the diff and writes neither the file nor the state; a change under a shared anchor changes that place only", async () => {
    const stream = await ui.stream();
    await stream.runTask(await stream.patchSettings("default", "events", "events-copy", [{ key: "storage.level.staging.upload.trigger.interval", value: "30s" }], "Settings edited"), "the UI's settings edit");
    const before = fs.readFileSync(manifest, "utf8");
    const state = await root.pulumi(["stack", "export"]);
    const dry = await keboolaPulumi(root, "pull", ["--dry-run"]);
    expect(dry.code, describeResult(dry)).toBe(0);
    expect(dry.stdout).toContain("+      stagingUploadTrigger: { interval: 30s }   # the same trigger as events-raw");
    expect(dry.stderr).toMatch(/--dry-run: neither \S*keboola\.yaml nor the state of stack drift-stream-\w+ was written/);
    expect(fs.readFileSync(manifest, "utf8")).toBe(before);
    expect((await root.pulumi(["stack", "export"])).stdout).toBe(state.stdout);
    expect((await keboolaPulumi(root, "drift")).code).toBe(2);

    const pulled = await keboolaPulumi(root, "pull");
    expect(pulled.code, describeResult(pulled)).toBe(0);
    const after = fs.readFileSync(manifest, "utf8");
    // events-raw keeps its 10s trigger (the anchor's value); only events-copy has 30s.
    expect(after).toContain("      stagingUploadTrigger: &fast { interval: 10s }\n");
    expect(after).toContain("      stagingUploadTrigger: { interval: 30s }   # the same trigger as events-raw\n");
    await preview();
  }, 300_000);

  it("pull --include-new --dry-run: a source and sinks made in the UI are proposed with their references as keys; the tables and buckets Stream made are not", async () => {
    const stream = await ui.stream();
    const sink = (sinkId: string, tableId: string) => ({ sinkId, type: "table", name: sinkId, table: { type: "keboola", tableId, mapping: { columns: [{ type: "uuid", name: "id" }, { type: "body", name: "body" }] } } });
    await stream.runTask(await stream.createSource("default", { sourceId: "clicks", type: "http", name: "Clicks" }), "the UI's source");
    await stream.runTask(await stream.createSink("default", "clicks", sink("clicks-raw", "in.c-clicks.raw")), "the UI's sink");
    await stream.runTask(await stream.createSink("default", "events", sink("events-audit", "in.c-events.audit")), "the UI's sink of a managed source");
    const before = fs.readFileSync(manifest, "utf8");

    const dry = await keboolaPulumi(root, "pull", ["--include-new", "--dry-run"]);
    expect(dry.code, describeResult(dry)).toBe(0);
    expect(fs.readFileSync(manifest, "utf8")).toBe(before);
    const added = dry.stdout.split("\n").filter((l) => l.startsWith("+") && !l.startsWith("+++"));
    expect(added).toContain("+  clicks:");
    expect(added).toContain("+    sourceId: clicks");
    expect(added).toContain("+  clicks-raw:");
    expect(added).toContain("+    source: clicks");
    expect(added).toContain("+  events-audit:");
    expect(added).toContain("+    source: events"); // the manifest's key of the managed source
    expect(added.filter((l) => l === "+    adoptExisting: true")).toHaveLength(3);
    // No bucket or table entry (a table entry names its bucket; a bucket entry its name and stage).
    expect(added.filter((l) => /^\+ {4}bucket:/.test(l) || /^\+ {2}(raw|audit|events):$/.test(l))).toEqual([]);
    expect(dry.stderr).toContain("tables in.c-clicks.raw: not added, made by Stream sink clicks/clicks-raw (Storage metadata KBC.stream.sink.id)");
    expect(dry.stderr).toContain(
      "buckets in.c-events: not added, made by Stream sink events/events-audit, Stream sink events/events-copy, Stream sink events/events-raw: it holds only their tables (Storage metadata KBC.stream.sink.id)",
    );
  }, 300_000);

  describe("a stack made by a program", () => {
    let ws: PulumiWorkspace;

    beforeAll(async () => {
      ws = await makePulumiWorkspace({ project: "drift-program", prefix: "drift-program-" });
      ws.writeProgram(
        {
          "index.js": `const { ComponentConfig } = require("keboola-pulumi");
new ComponentConfig("reporting", { componentId: "keboola.ex-generic-v2", configId: "reporting", name: "Reporting", configuration: { parameters: { api: { baseUrl: "https://reports.example.com/" } } } });
`,
        },
        { linkProjectPackage: true },
      );
      await initEmulatorStack(ws, emu.url, "master");
      ok(await ws.up());
    }, 30 * 60 * 1000);

    afterAll(async () => {
      await ws?.cleanup();
    });

    it("drift reports the change; pull refuses to rewrite code and prints the path and value to change", async () => {
      const c = await ui.storage.getConfig("default", "keboola.ex-generic-v2", "reporting");
      await ui.storage.updateConfig("default", "keboola.ex-generic-v2", "reporting", { configuration: { ...c.configuration, parameters: { api: { baseUrl: "https://reports.example.com/v2/" } } }, changeDescription: "Parameters edited" });
      const program = { cwd: ws.programDir, env: ws.env };
      const drift = await keboolaPulumi(program, "drift");
      expect(drift.code, describeResult(drift)).toBe(2);
      expect(drift.stdout).toContain("ComponentConfig reporting (keboola.ex-generic-v2/reporting): changed in Keboola");
      const pull = await keboolaPulumi(program, "pull");
      expect(pull.code).toBe(1);
      expect(pull.stderr).toContain("is deployed by a program");
      expect(pull.stderr).toContain('configuration.parameters.api.baseUrl: "https://reports.example.com/v2/" (was "https://reports.example.com/")');
      const state = await ws.pulumi(["stack", "export"]);
      expect(state.stdout).not.toContain("reports.example.com/v2/"); // pull wrote no state
    }, 300_000);
  });
});
