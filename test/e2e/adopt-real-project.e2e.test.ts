// Adopting a project shaped like the ones Keboola users have: the emulator is seeded through the
// APIs (not through Pulumi) with configurations of the shapes keboola-as-code records from real
// projects for its own tests (keboola/keboola-as-code `internal/pkg/fixtures/configs/*.json`, the
// configurations its test projects are made of, and `test/cli/encrypt/*` for `#` values in arrays),
// and Stream objects as its recorded API cases create them (`test/stream/api/**`). Then
// `keboola-pulumi export` -> `pulumi up` of the export -> `pulumi preview --expect-no-changes`: the
// `up` writes nothing but one owner marker per object taken over, and a second export is
// byte-identical to the first.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator/server";
import { describeResult, runProcess } from "./helpers/pulumi";
import { makeRootProject, type RootProject } from "../../scripts/lib/root-project";
import { KeboolaClient } from "../../provider/api/client";
import { parseManifest } from "../../provider/manifest/parse";
import { splitMarker } from "../../provider/lifecycle/ownership";
import { isEncrypted, secretLeaves } from "../../keboola/secrets";
import { KEBOOLA_PULUMI } from "../helpers/cli";

const TOKEN = "master-token-adopt-real";

type Json = Record<string, unknown>;

/** A value encrypted as Keboola's UI (or `kbc encrypt`) encrypts it: for the project and the component. */
async function encrypted(emu: Emulator, componentId: string, value: string): Promise<string> {
  const res = await fetch(`${emu.urls.storage}/encryption/encrypt?componentId=${componentId}&projectId=${emu.state.project.id}`, { method: "POST", headers: { "Content-Type": "text/plain" }, body: value });
  expect(res.status).toBe(200);
  return res.text();
}

/** Seeds the project; returns the number of configurations written (for the marker-write count). */
async function seed(client: KeboolaClient, emu: Emulator): Promise<void> {
  const storage = client.storage;
  const config = async (componentId: string, body: { name: string; description?: string; configuration: Json; isDisabled?: boolean }, rows: Array<{ name?: string; isDisabled?: boolean; configuration: Json }> = []) => {
    const created = await storage.createConfig("default", componentId, body);
    const rowIds: string[] = [];
    for (const row of rows) rowIds.push(String((await storage.createRow("default", componentId, String(created.id), row)).id));
    return { id: String(created.id), rowIds };
  };

  // fixtures/configs/with-rows.json: a database extractor with a `#password` ciphertext (of another
  // stack: `KBC::ProjectSecureKV::`, kept as it is) and three table rows, one disabled.
  await config(
    "keboola.ex-db-mysql",
    { name: "with-rows", configuration: { parameters: { db: { host: "mysql.example.com", port: 3306, user: "root", "#password": "KBC::ProjectSecureKV::eJw=" } } } },
    [
      { name: "users", isDisabled: false, configuration: { parameters: { incremental: false } } },
      { name: "test_view", isDisabled: false, configuration: { parameters: { incremental: false } } },
      { name: "disabled", isDisabled: true, configuration: { parameters: { incremental: false } } },
    ],
  );
  // fixtures/configs/disabled.json: a disabled configuration of the legacy `ex-generic-v2` id.
  await config("ex-generic-v2", { name: "disabled", isDisabled: true, configuration: { parameters: { api: { baseUrl: "https://jsonplaceholder.typicode.com" } } } });
  // test/cli/encrypt/*/ex-generic-v2/cars: `#` values inside an array and nested under a plain key.
  await config("keboola.ex-generic-v2", {
    name: "cars",
    configuration: {
      parameters: {
        api: { baseUrl: "https://cars.example.com/" },
        tokens: [
          { "#token": await encrypted(emu, "keboola.ex-generic-v2", "car-token-1") },
          { "#token": await encrypted(emu, "keboola.ex-generic-v2", "car-token-2") },
          { token: { "#special": await encrypted(emu, "keboola.ex-generic-v2", "car-special") } },
        ],
      },
    },
  });
  // fixtures/configs/python-transformation.json and snowflake-transformation.json: code blocks.
  await config("keboola.python-transformation-v2", {
    name: "python-transformation",
    configuration: {
      parameters: {
        blocks: [
          { name: "Block 1", codes: [{ name: "Code X", script: ["print(100)\n"] }, { name: "Code Y", script: ["print(200)\n\t"] }] },
          { name: "Block 2", codes: [{ name: "Code Z", script: ["num = 16\nif num < 0:\n    print(\"Enter a positive number\")\n"] }] },
        ],
        packages: ["xgboost"],
      },
    },
  });
  await config("keboola.snowflake-transformation", {
    name: "snowflake-transformation",
    configuration: {
      parameters: {
        blocks: [
          {
            name: "Block 1",
            codes: [
              { name: "Code X", script: ['CREATE OR REPLACE TABLE "test" ("id" number default null, "price" float);', 'INSERT INTO "test" ("id", "price") VALUES(123, 12.34);'] },
              { name: "Code Y", script: ["CREATE TABLE \"test2\" AS SELECT $1, $2\nFROM VALUES( 1, 'two' ), ( 3, 'four' );"] },
            ],
          },
        ],
      },
    },
  });
  // fixtures/configs/shared-code-variables.json + shared-codes.json: shared code whose third row
  // uses variables, bound from the row (`variables_id`), the common case of a row-bound binding.
  const sharedVariables = await config("keboola.variables", { name: "Shared Code Variables", configuration: { variables: [{ name: "num1", type: "string" }, { name: "num2", type: "string" }] } });
  const shared = await config("keboola.shared-code", { name: "Shared Codes", configuration: { componentId: "keboola.python-transformation-v2" } }, [
    { name: "My code 1", isDisabled: false, configuration: { code_content: "# This program prints Hello, world!\n\nprint('Hello, world!')" } },
    { name: "My code 2", isDisabled: false, configuration: { code_content: "num1 = 1.5\nnum2 = 6.3\nsum = num1 + num2" } },
    { name: "Code with variables", isDisabled: false, configuration: { code_content: "num1 = {{num1}}\nnum2 = {{num2}}\nsum = num1 + num2", variables_id: sharedVariables.id } },
  ]);
  // fixtures/configs/transformation-with-shared-code-variables.json + transformation-with-shared-code.json:
  // a transformation linking shared code (`{{<row id>}}`) and bound to variables with default values.
  const tVariables = await config("keboola.variables", { name: "Transformation With Shared Code Variables", configuration: { variables: [{ name: "num1", type: "string" }, { name: "num2", type: "string" }] } }, [
    { name: "Default values", isDisabled: false, configuration: { values: [{ name: "num1", value: "10" }, { name: "num2", value: "20" }] } },
  ]);
  await config("keboola.python-transformation-v2", {
    name: "Transformation With Shared Code",
    configuration: {
      parameters: { blocks: [{ name: "Block 1", codes: [{ name: "Shared Code Used", script: [`{{${shared.rowIds[2]}}}`] }, { name: "Own code", script: ["print({{num1}} + {{num2}})"] }] }] },
      shared_code_id: shared.id,
      shared_code_row_ids: [shared.rowIds[2]],
      variables_id: tVariables.id,
      variables_values_id: tVariables.rowIds[0],
    },
  });
  // fixtures/configs/legacy-transformation.json: the legacy `transformation` component, rows
  // without a name of their own.
  await config("transformation", { name: "legacy transformation", configuration: { parameters: { foo: "bar" } } }, [
    { isDisabled: false, configuration: { name: "name from config", foo: "foo" } },
    { isDisabled: false, configuration: { foo: "bar, no name 1" } },
  ]);
  // fixtures/configs/variables.json with with-variables-1.json: an extractor bound to variables.
  const vars = await config("keboola.variables", { name: "Variables", configuration: { variables: [{ name: "foo", type: "string" }] } }, [
    { name: "Default values", isDisabled: false, configuration: { values: [{ name: "foo", value: "bar" }] } },
  ]);
  const withVariables = await config("keboola.ex-generic-v2", {
    name: "With Variables 1",
    configuration: { variables_id: vars.id, variables_values_id: vars.rowIds[0], parameters: { api: { baseUrl: "https://example.com/{{foo}}" } } },
  });
  // fixtures/configs/orchestrator.json: phases and tasks naming configurations (here the two above).
  const python = Object.values(emu.state.storage.configs).find((c) => c.name === "python-transformation")!;
  await config("keboola.orchestrator", {
    name: "orchestrator",
    configuration: {
      phases: [
        { id: "123", name: "Phase 1", dependsOn: [] },
        { id: "456", name: "Phase 2", dependsOn: ["123"] },
      ],
      tasks: [
        { id: "1001", name: "Task 1", enabled: true, phase: "123", task: { componentId: "keboola.ex-generic-v2", configId: withVariables.id, mode: "run" }, continueOnFailure: false },
        { id: "1002", name: "Task 2", enabled: true, phase: "456", task: { componentId: "keboola.python-transformation-v2", configId: python.id, mode: "run" }, continueOnFailure: false },
        { id: "1003", name: "Task 3 - disabled", enabled: false, phase: "456", task: { componentId: "keboola.ex-db-mysql", configId: "", mode: "run" }, continueOnFailure: true },
      ],
    },
  });
  // fixtures/configs/scheduler.json: a disabled schedule of the flow.
  const flow = Object.values(emu.state.storage.configs).find((c) => c.name === "orchestrator")!;
  await config("keboola.scheduler", {
    name: "Scheduler",
    configuration: { schedule: { cronTab: "*/10 * * * *", timezone: "UTC", state: "disabled" }, target: { componentId: "keboola.orchestrator", configurationId: flow.id, mode: "run" } },
  });
  // fixtures/configs/data-app.json
  await config("keboola.data-apps", { name: "Data App", configuration: { foo: "bar" } });

  // Stream: a disabled source with a changed setting and a disabled sink with changed settings
  // (test/stream/api/source/create-012-disable-enable; settings as
  // test/stream/api/sink/list-sink-versions/006-patch-settings patches them), plus an enabled pair.
  const stream = await client.stream();
  const run = async (task: Parameters<typeof stream.runTask>[0]) => stream.runTask(task, "seed");
  for (const sourceId of ["my-source", "paused-source"]) {
    await run(await stream.createSource("default", { sourceId, type: "http", name: sourceId === "my-source" ? "My Source" : "Paused Source" }));
    await run(
      await stream.createSink("default", sourceId, {
        sinkId: "my-sink",
        type: "table",
        name: "My Sink",
        table: { type: "keboola", tableId: `in.c-${sourceId}.events`, mapping: { columns: [{ type: "uuid", name: "id" }, { type: "body", name: "body" }] } },
      }),
    );
  }
  await run(await stream.patchSettings("default", "my-source", "my-sink", [
    { key: "storage.level.staging.upload.trigger.interval", value: "45s" },
    { key: "storage.level.staging.upload.trigger.size", value: "12MB" },
  ]));
  await run(await stream.disableSink("default", "my-source", "my-sink"));
  await run(await stream.patchSettings("default", "paused-source", undefined, [{ key: "storage.level.target.import.trigger.interval", value: "5m0s" }]));
  await run(await stream.disableSource("default", "paused-source"));
}

describe("e2e: export -> up -> no-change preview on a project shaped like real ones", () => {
  let emu: Emulator;
  let root: RootProject;
  let dir: string;

  beforeAll(async () => {
    emu = await startEmulator({ token: TOKEN, taskDurationMs: 20 });
    await seed(new KeboolaClient({ host: emu.url, token: TOKEN, taskTimeoutSeconds: 60 }), emu);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "adopt-real-"));
    root = await makeRootProject({ prefix: "adopt-real", host: emu.url, token: TOKEN, manifest: path.join(dir, "keboola.yaml") });
  }, 300_000);

  afterAll(async () => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    await root?.cleanup();
    await emu?.close();
  });

  const exportCli = () =>
    runProcess(process.execPath, [KEBOOLA_PULUMI, "export", "--host", emu.url], {
      cwd: dir,
      env: { ...process.env, KBC_TOKEN: TOKEN },
    });

  it("takes the whole project over writing only owner markers, previews no changes, and exports the same again", async () => {
    const exported = await exportCli();
    expect(exported.code, describeResult(exported)).toBe(0);
    const text = exported.stdout;
    fs.writeFileSync(path.join(dir, "keboola.yaml"), text);
    for (const plain of ["car-token-1", "car-token-2", "car-special"]) expect(text).not.toContain(plain);

    const m = parseManifest(text);
    const components = new Set(Object.values(m.configurations ?? {}).map((c) => c.componentId));
    expect(components.size + (m.variables ? 1 : 0)).toBeGreaterThanOrEqual(10);
    // Every variables configuration a configuration or a row is bound to is managed, bound by key.
    const variableKeys = Object.keys(m.variables ?? {});
    expect(variableKeys).toHaveLength(3);
    const byName = (name: string) => Object.values(m.configurations ?? {}).find((c) => c.name === name)!;
    expect(byName("Transformation With Shared Code").variables).toBeDefined();
    expect(byName("with-rows").rows.map((r) => [r.name, r.isDisabled])).toEqual([["users", false], ["test_view", false], ["disabled", true]]);
    expect(byName("disabled").isDisabled).toBe(true);
    const cars = byName("cars").configuration as Json;
    const leaves = secretLeaves(cars);
    expect(leaves).toHaveLength(3);
    expect(leaves.every((l) => isEncrypted(l.value))).toBe(true);
    expect(m.sources?.["paused-source"]).toMatchObject({ enabled: false, settings: { targetImportTrigger: { interval: "5m0s" } } });
    const mySink = Object.values(m.sinks ?? {}).find((s) => s.source === "my-source")!;
    expect(mySink).toMatchObject({ enabled: false, settings: { stagingUploadTrigger: { interval: "45s", size: "12MB" } } });
    // Disabled with its source only: the sink itself is enabled.
    expect(Object.values(m.sinks ?? {}).find((s) => s.source === "paused-source")!.enabled).toBe(true);

    const contents = () => ({
      sources: Object.values(emu.state.stream.sources).filter((x) => !x.deleted).map((x) => ({ id: x.sourceId, name: x.name, disabled: !!x.disabled, config: x.config, description: splitMarker(x.description).text })),
      sinks: Object.values(emu.state.stream.sinks).filter((x) => !x.deleted).map((x) => ({ id: x.sinkId, name: x.name, table: x.table, disabled: !!x.disabled, config: x.config, description: splitMarker(x.description).text })),
      configs: Object.values(emu.state.storage.configs).filter((c) => !c.isDeleted).map((c) => ({ componentId: c.componentId, id: c.id, name: c.name, isDisabled: c.isDisabled, description: c.description, configuration: c.configuration, rows: c.rows.map((r) => [r.id, r.name, r.isDisabled, r.configuration]) })),
    });
    const before = contents();
    emu.clearRequests();
    const up = await root.pulumi(["up", "--yes", "--skip-preview"], { timeoutMs: 600_000 });
    expect(up.code, describeResult(up)).toBe(0);
    const writes = emu.writes().map((w) => `${w.method} ${w.path.replace(/\?.*$/, "")}`);
    // Owner markers: in a source's or sink's description, and Storage metadata on configurations,
    // buckets and tables (provider/lifecycle/ownership.ts).
    const markerWrite =
      /^(PATCH \/stream\/v1\/branches\/default\/sources\/[^/]+(\/sinks\/[^/]+)?|POST \/v2\/storage\/branch\/default\/components\/[^/]+\/configs\/[^/]+\/metadata|POST \/v2\/storage\/(buckets|tables)\/[^/]+\/metadata|POST \/scheduler\/schedules)$/;
    expect(writes.filter((w) => !markerWrite.test(w))).toEqual([]);
    const storageObjects = Object.keys(emu.state.storage.buckets).length + Object.keys(emu.state.storage.tables).length;
    const schedules = before.configs.filter((c) => c.componentId === "keboola.scheduler").length;
    expect(schedules).toBeGreaterThan(0);
    expect(writes.filter((w) => w === "POST /scheduler/schedules")).toHaveLength(schedules);
    expect(writes.filter((w) => w !== "POST /scheduler/schedules")).toHaveLength(new Set(writes).size - (schedules > 0 ? 1 : 0));
    expect(writes).toHaveLength(before.sources.length + before.sinks.length + before.configs.length + storageObjects + schedules);
    expect(contents()).toEqual(before);

    const same = await root.pulumi(["preview", "--expect-no-changes"], { timeoutMs: 600_000 });
    expect(same.code, describeResult(same)).toBe(0);
    const again = await exportCli();
    expect(again.code, describeResult(again)).toBe(0);
    expect(again.stdout).toBe(text);
  }, 1_200_000);
});
