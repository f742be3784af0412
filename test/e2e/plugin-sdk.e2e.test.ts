// A TypeScript program on the generated Node.js SDK (sdk/nodejs, compiled as its package.json's
// build does) deploys the quickstart's shape through the provider plugin under the real Pulumi CLI,
// then reads back with `Bucket.get()` and every lookup function, and destroys what it made.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator/server";
import { initEmulatorStack, makePulumiWorkspace, ok, type PulumiWorkspace } from "./helpers/pulumi";
import { installNodeSdk, NODE_SDK_PACKAGE } from "./helpers/node-sdk";

const TOKEN = "plugin-sdk-token-64c1";

const PROGRAM = `import * as pulumi from "@pulumi/pulumi";
import * as keboola from "@keboola/pulumi-keboola";

const reference = new keboola.Bucket("reference", { stage: "in", name: "reference", description: "Reference data" });
const countries = new keboola.Table("countries", { bucketId: reference.bucketId, name: "countries", columns: ["code", "name"], primaryKey: ["code"], data: "countries.csv" });
const events = new keboola.Source("events", { name: "Quickstart Events" });
new keboola.SourceSettings("events-settings", { sourceId: events.sourceId, targetImportTrigger: { interval: "1m", count: 1000 } });
const raw = new keboola.Sink("raw", {
  sourceId: events.sourceId,
  name: "Raw events",
  tableId: "in.c-quickstart.raw",
  columns: [{ type: "uuid", name: "id" }, { type: "datetime", name: "received_at" }, { type: "body", name: "body" }],
});
new keboola.SinkSettings("raw-settings", { sourceId: events.sourceId, sinkId: raw.sinkId, stagingUploadTrigger: { interval: "5s" } });
const vars = new keboola.VariableConfig("users-vars", { name: "Users variables", variables: [{ name: "endpoint", type: "string" }], defaultValues: { endpoint: "users" } });
new keboola.ComponentConfig("users", {
  componentId: "keboola.ex-generic-v2",
  name: "Users",
  variables: { configId: vars.configId, valuesRowId: vars.valuesRowId },
  configuration: { parameters: { api: { baseUrl: "https://api.example.com/v1/" }, config: { outputBucket: "in.c-users", jobs: [{ endpoint: "{{endpoint}}" }] } } },
});
const dev = new keboola.Branch("dev", { name: "sdk-dev" });

// Reading back what the program does not manage as resources: get() and the lookups.
const got = keboola.Bucket.get("reference-read", reference.id);
export const gotDescription = got.description;
export const bucket = keboola.getBucketOutput({ bucketId: reference.bucketId }).stage;
export const tableColumns = keboola.getTableOutput({ tableId: countries.tableId }).columns;
export const sourceUrl = keboola.getSourceOutput({ sourceId: events.sourceId }).url;
export const branchId = keboola.getBranchOutput({ name: dev.name }).branchId;
export const devBranchId = dev.branchId;
export const componentType = keboola.getComponentOutput({ componentId: "keboola.ex-generic-v2" }).type;
export const ingestionUrl = pulumi.secret(events.url);
`;

describe("e2e: a TypeScript program on the generated Node.js SDK", () => {
  let emu: Emulator;
  let ws: PulumiWorkspace;
  let sdk: Awaited<ReturnType<typeof installNodeSdk>> | undefined;
  const writes = () => emu.writes().map((w) => `${w.method} ${w.path.replace(/\?.*$/, "")}`);

  beforeAll(async () => {
    // The SDK as its install makes it, against the pinned @pulumi/pulumi.
    sdk = await installNodeSdk();
    emu = await startEmulator({ token: TOKEN, taskDurationMs: 10 });
    ws = await makePulumiWorkspace({ prefix: "plugin-sdk-", plugin: true });
    ws.writeProgram({ "index.ts": PROGRAM, "countries.csv": "code,name\nCZ,Czechia\nDE,Germany\n" });
    ws.linkPackage(NODE_SDK_PACKAGE, sdk.dir);
    await initEmulatorStack(ws, emu.url, TOKEN);
  }, 240_000);
  afterAll(async () => {
    await ws?.cleanup();
    await emu?.close();
    sdk?.cleanup();
  });

  it("deploys the quickstart's shape, reads it back with get() and the lookups, then sees no change", async () => {
    emu.clearRequests();
    ok(await ws.preview());
    expect(writes()).toEqual([]);
    ok(await ws.up());
    const types = (await ws.stackResources()).filter((r) => r.type.startsWith("keboola:index:") && r.custom).map((r) => r.type);
    expect(types).toContain("keboola:index:SinkSettings");
    const out = await ws.stackOutputs({ showSecrets: true });
    expect(out).toMatchObject({ gotDescription: "Reference data", bucket: "in", tableColumns: ["code", "name"], componentType: "extractor", sourceUrl: expect.stringContaining("/stream/") });
    expect(out.branchId).toBe(out.devBranchId);
    // The ingestion URL a lookup answers is a secret too.
    expect((await ws.stackOutputs()).sourceUrl).toBe("[secret]");
    ok(await ws.previewExpectNoChanges());
  });

  it("destroys what it made (what get() read stays)", async () => {
    ok(await ws.destroy());
    const storage = (await import("../../provider/api/client")).KeboolaClient;
    const client = new storage({ host: emu.url, token: TOKEN, taskTimeoutSeconds: 30 });
    expect(await client.storage.findBucket("default", "in.c-reference")).toBeUndefined();
  });
});
