// Round trip: a project populated through the APIs (not through Pulumi) is exported with the
// package's `keboola-pulumi export` command, the export is deployed through the root Pulumi
// project (taking everything over without writing), previews with no changes, and exporting
// again gives the same manifest. Secret values appear in the manifest only as the ciphertexts
// Keboola holds (as its UI or `kbc push` encrypted them), so the export deploys with no secret
// stack config to set.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parse } from "yaml";
import { startEmulator, type Emulator } from "../../emulator/server";
import { describeResult, runProcess } from "./helpers/pulumi";
import { makeRootProject, type RootProject } from "../../scripts/lib/root-project";
import { KeboolaClient } from "../../provider/api/client";
import { exportProject } from "../../provider/manifest/export";
import { parseManifest } from "../../provider/manifest/parse";
import { splitMarker } from "../../provider/lifecycle/ownership";
import { KEBOOLA_PULUMI } from "../helpers/cli";

const TOKEN = "master-token-export";
const API_SECRET = "api-secret-value-1";
const ROW_SECRET = "row-secret-value-2";


/** A value encrypted as Keboola's UI encrypts it on save (project and component scope). */
async function encrypted(emu: Emulator, componentId: string, value: string): Promise<string> {
  const res = await fetch(`${emu.urls.storage}/encryption/encrypt?componentId=${componentId}&projectId=${emu.state.project.id}`, { method: "POST", headers: { "Content-Type": "text/plain" }, body: value });
  expect(res.status).toBe(200);
  return res.text();
}

/** Sources, sinks, settings, variables and configurations, written through the APIs. */
async function populate(client: KeboolaClient, emu: Emulator): Promise<void> {
  const stream = await client.stream();
  const run = async (task: Parameters<typeof stream.runTask>[0]) => stream.runTask(task, "populate");
  await run(await stream.createSource("default", { sourceId: "shop-events", type: "http", name: "Shop events", description: "From the shop" }));
  await run(await stream.createSource("default", { sourceId: "app-events", type: "http", name: "App events" }));
  await run(
    await stream.createSink("default", "shop-events", {
      sinkId: "orders",
      type: "table",
      name: "Orders",
      table: {
        type: "keboola",
        tableId: "in.c-shop.orders",
        mapping: {
          columns: [
            { type: "uuid", name: "id" },
            { type: "path", name: "order_id", path: "order.id", rawString: true },
            { type: "template", name: "total", template: { language: "jsonnet", content: "Body('order.total', 0)" } },
          ],
        },
      },
    }),
  );
  for (const sinkId of ["raw", "debug"]) {
    await run(
      await stream.createSink("default", "app-events", {
        sinkId,
        type: "table",
        name: sinkId === "raw" ? "Raw" : "Debug",
        table: { type: "keboola", tableId: `in.c-app.${sinkId}`, mapping: { columns: [{ type: "body", name: "body" }] } },
      }),
    );
  }
  await run(await stream.disableSink("default", "app-events", "debug"));
  await run(await stream.patchSettings("default", "app-events", undefined, [{ key: "storage.level.staging.upload.trigger.count", value: 500 }]));
  await run(await stream.patchSettings("default", "shop-events", "orders", [{ key: "storage.level.target.import.trigger.interval", value: "5m0s" }]));

  const storage = client.storage;
  const vars = await storage.createConfig("default", "keboola.variables", {
    name: "Orders variables",
    configuration: { variables: [{ name: "limit", type: "int" }, { name: "status", type: "string" }] },
  });
  const values = await storage.createRow("default", "keboola.variables", String(vars.id), {
    name: "Values",
    configuration: { values: [{ name: "limit", value: "20" }, { name: "status", value: "open" }] },
  });
  const config = await storage.createConfig("default", "keboola.ex-generic-v2", {
    name: "Orders API",
    description: "Orders from the shop API",
    configuration: {
      variables_id: String(vars.id),
      variables_values_id: String(values.id),
      parameters: {
        api: { baseUrl: "https://shop.example.com/", http: { headers: { "#token": await encrypted(emu, "keboola.ex-generic-v2", API_SECRET) } } },
        config: { outputBucket: "in.c-orders", jobs: [{ endpoint: "orders", params: { limit: "{{limit}}", status: "{{status}}" } }] },
      },
    },
  });
  await storage.createRow("default", "keboola.ex-generic-v2", String(config.id), { name: "Open", configuration: { parameters: { config: { "#password": await encrypted(emu, "keboola.ex-generic-v2", ROW_SECRET) } } } });
  await storage.createRow("default", "keboola.ex-generic-v2", String(config.id), { name: "Closed", isDisabled: true, configuration: { parameters: { config: { status: "closed" } } } });
  // Another component, left out by --components.
  await storage.createConfig("default", "keboola.wr-google-sheets", { name: "Sheets", configuration: { parameters: {} } });
}

describe("e2e: export a live project and take it over with the exported manifest", () => {
  let emu: Emulator;
  let root: RootProject;
  let dir: string;

  beforeAll(async () => {
    emu = await startEmulator({ token: TOKEN, taskDurationMs: 20 });
    await populate(new KeboolaClient({ host: emu.url, token: TOKEN, taskTimeoutSeconds: 60 }), emu);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "export-e2e-"));
    root = await makeRootProject({ prefix: "export-e2e", host: emu.url, token: TOKEN, manifest: path.join(dir, "keboola.yaml") });
  }, 30 * 60 * 1000);

  afterAll(async () => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    await root?.cleanup();
    await emu?.close();
  });

  const exportCli = () =>
    runProcess(process.execPath, [KEBOOLA_PULUMI, "export", "--host", emu.url, "--components", "keboola.ex-generic-v2"], {
      cwd: dir,
      env: { ...process.env, KBC_TOKEN: TOKEN },
    });

  it("exports, deploys the export writing only owner markers, previews no changes and exports the same again", async () => {
    const exported = await exportCli();
    expect(exported.code, describeResult(exported)).toBe(0);
    const text = exported.stdout;
    fs.writeFileSync(path.join(dir, "keboola.yaml"), text);

    // No secret in plain text: the ciphertexts Keboola holds are written as they are.
    for (const secret of [API_SECRET, ROW_SECRET, TOKEN]) expect(text).not.toContain(secret);
    expect(text).toMatch(/# Secrets: values of # keys are written as Keboola holds them, encrypted/);
    expect(text).not.toMatch(/NOT written here/);
    const stored = Object.values(emu.state.storage.configs).find((c) => c.name === "Orders API")!;
    const storedToken = (stored.configuration as { parameters: { api: { http: { headers: Record<string, string> } } } }).parameters.api.http.headers["#token"];
    const exportedToken = (parse(text) as { configurations: Record<string, { configuration: typeof stored.configuration }> }).configurations["orders-api"].configuration;
    expect((exportedToken as { parameters: { api: { http: { headers: Record<string, string> } } } }).parameters.api.http.headers["#token"]).toBe(storedToken);

    // Everything the APIs created, with the takeover flag on every entry; the other component is not there.
    const m = parseManifest(text);
    expect(Object.keys(m.sources!)).toEqual(["app-events", "shop-events"]);
    expect(Object.keys(m.sinks!)).toEqual(["debug", "raw", "orders"]);
    expect(m.sinks!.debug.enabled).toBe(false);
    expect(m.sources!["app-events"].settings).toEqual({ stagingUploadTrigger: { count: 500 } });
    expect(m.sinks!.orders.settings).toEqual({ targetImportTrigger: { interval: "5m0s" } });
    expect(Object.keys(m.configurations!)).toEqual(["orders-api"]);
    expect(m.configurations!["orders-api"]).toMatchObject({ variables: "orders-variables", adoptExisting: true });
    expect(m.configurations!["orders-api"].rows.map((r) => [r.name, r.isDisabled])).toEqual([["Open", false], ["Closed", true]]);
    expect(m.variables!["orders-variables"]).toMatchObject({ defaultValues: { limit: "20", status: "open" }, adoptExisting: true });
    for (const section of Object.values(m)) for (const entry of Object.values(section as Record<string, { adoptExisting?: boolean }>)) expect(entry.adoptExisting).toBe(true);

    // Paging: one item per page gives the same manifest (afterId = the previous page's lastId, as
    // keboola/keboola-as-code api/stream/design.go defines the Stream lists).
    const client = new KeboolaClient({ host: emu.url, token: TOKEN, taskTimeoutSeconds: 60 });
    const paged = await exportProject(client, { components: ["keboola.ex-generic-v2"], pageSize: 1 });
    expect(paged.yaml).toBe(text);
    // Naming keboola.variables exports the variables configurations that nothing is bound to, too.
    const unbound = await client.storage.createConfig("default", "keboola.variables", { name: "Spare variables", configuration: { variables: [{ name: "x", type: "string" }] } });
    const withVariables = await exportProject(client, { components: ["keboola.ex-generic-v2", "keboola.variables"] });
    expect(Object.keys(withVariables.manifest.variables ?? {})).toEqual(["orders-variables", "spare-variables"]);
    expect(withVariables.manifest.variables!["spare-variables"]).toMatchObject({ configId: String(unbound.id), variables: [{ name: "x", type: "string" }], adoptExisting: true });
    await client.storage.deleteConfig("default", "keboola.variables", String(unbound.id));

    // Nothing to set: no `secrets` entry, no stack config beyond the host and the token.
    expect((parse(text) as { configurations: Record<string, { secrets?: unknown }> }).configurations["orders-api"].secrets).toBeUndefined();

    // Deploying the export takes every object over. Its only writes are the takeover bookkeeping:
    // one owner marker per object taken over (a source's or sink's description, a configuration's
    // changeDescription), leaving what the objects are otherwise exactly as they were.
    const contents = () => ({
      sources: Object.values(emu.state.stream.sources).filter((x) => !x.deleted).map((x) => ({ id: x.sourceId, name: x.name, type: x.type, description: splitMarker(x.description).text })),
      sinks: Object.values(emu.state.stream.sinks).filter((x) => !x.deleted).map((x) => ({ id: x.sinkId, name: x.name, table: x.table, description: splitMarker(x.description).text })),
      configs: Object.values(emu.state.storage.configs).filter((c) => !c.isDeleted).map((c) => ({ componentId: c.componentId, id: c.id, name: c.name, description: c.description, configuration: c.configuration, rows: c.rows.map((r) => [r.id, r.name, r.configuration]) })),
    });
    const before = contents();
    emu.clearRequests();
    // (No encryption either: the ciphertexts are written back as they are.)
    const up = await root.pulumi(["up", "--yes", "--skip-preview"], { timeoutMs: 300_000 });
    expect(up.code, describeResult(up)).toBe(0);
    expect(up.stdout).toMatch(/\+ 15 created/); // 9 resources, the 2 buckets and 3 tables the sinks write, and the stack
    const writes = emu.writes().map((w) => `${w.method} ${w.path.replace(/\?.*$/, "")}`);
    const markerWrite = /^(PATCH \/stream\/v1\/branches\/default\/sources\/[^/]+(\/sinks\/[^/]+)?|POST \/v2\/storage\/branch\/default\/components\/[^/]+\/configs\/[^/]+\/metadata|POST \/v2\/storage\/(buckets|tables)\/[^/]+\/metadata)$/;
    expect(writes.filter((w) => !markerWrite.test(w))).toEqual([]);
    expect(writes).toHaveLength(new Set(writes).size);
    // Every source and sink, and the configurations the export chose (the other component's is left alone).
    const exportedConfigs = before.configs.filter((c) => c.componentId === "keboola.variables" || c.componentId === "keboola.ex-generic-v2");
    // ... and the buckets and tables (their owner markers are metadata entries; no data is loaded).
    const storageObjects = Object.keys(emu.state.storage.buckets).length + Object.keys(emu.state.storage.tables).length;
    expect(storageObjects).toBe(5);
    expect(writes).toHaveLength(before.sources.length + before.sinks.length + exportedConfigs.length + storageObjects);
    expect(contents()).toEqual(before);

    const same = await root.pulumi(["preview", "--expect-no-changes"], { timeoutMs: 300_000 });
    expect(same.code, describeResult(same)).toBe(0);

    const again = await exportCli();
    expect(again.code, describeResult(again)).toBe(0);
    expect(again.stdout).toBe(text);
  }, 600_000);
});
