import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MASTER_TOKEN, startHarness, type Harness } from "./harness";
import { source as dynamicSource } from "./hosted";
import { startPlugin, urnOf, type Plugin } from "./plugin-client";
import { ownerOfUrn } from "../../provider/lifecycle/ownership";
import { derivedConfigId } from "../../provider/lifecycle/ownership";

// The provider plugin's resource methods over gRPC against the emulator (provider/plugin/): the same
// kinds as the dynamic resources, with the resource's identity taken from the request and its
// state holding only its inputs and outputs.

let h: Harness;
let p: Plugin;
beforeAll(async () => {
  h = await startHarness();
  p = await startPlugin();
  await p.configure({ host: h.emu.url, token: MASTER_TOKEN });
});
afterAll(async () => {
  await p?.close();
  await h?.close();
});
beforeEach(() => h.emu.clearRequests());

const SECRET = { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270" };
const hiddenKeys = (props: object) => Object.keys(props).filter((k) => k.startsWith("__"));

describe("Configure", () => {
  it("says the plugin takes plain values and previews without Create or Update", async () => {
    const plugin = await startPlugin();
    try {
      const res = await plugin.configure({ host: h.emu.url, token: MASTER_TOKEN });
      expect([res.getAcceptsecrets(), res.getSupportspreview(), res.getAcceptresources(), res.getAcceptoutputs()]).toEqual([false, false, false, false]);
    } finally {
      await plugin.close();
    }
  });

  it("fails a call needing the service with the dynamic resources' message when the host is not configured", async () => {
    const plugin = await startPlugin();
    const saved = process.env.KBC_HOST;
    delete process.env.KBC_HOST;
    try {
      await plugin.configure({ token: MASTER_TOKEN });
      const err = await plugin.create({ type: "Bucket", name: "nohost" }, { stage: "in", name: "nohost" }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: grpc.status.UNKNOWN, details: expect.stringMatching(/^Bucket "nohost": .*The Keboola host is not configured: run `pulumi config set keboola:host/) });
    } finally {
      if (saved !== undefined) process.env.KBC_HOST = saved;
      await plugin.close();
    }
  });

  it("refuses a setting it does not have and a timeout that is not a positive number, naming the settings", async () => {
    const { promisify } = await import("node:util");
    const proto = await import("@pulumi/pulumi/proto/provider_pb");
    const { Struct } = await import("google-protobuf/google/protobuf/struct_pb");
    const check = promisify<import("@pulumi/pulumi/proto/provider_pb").CheckRequest, import("@pulumi/pulumi/proto/provider_pb").CheckResponse>(p.client.checkConfig.bind(p.client));
    const res = await check(new proto.CheckRequest().setUrn("urn:pulumi:test::harness::pulumi:providers:keboola::default").setNews(Struct.fromJavaScript({ host: "h", hots: "x", taskTimeout: "soon", requestTimeout: "30", version: "0.1.0" })));
    expect(res.getFailuresList().map((f) => [f.getProperty(), f.getReason()])).toEqual([
      ["hots", "is not a setting of the keboola provider; its settings are host, token, streamUrl, queueUrl, encryptionUrl, schedulerUrl, taskTimeout, requestTimeout, projectId"],
      ["taskTimeout", 'must be a positive number of seconds, got "soon"'],
    ]);
  });
});

describe("a Bucket through the plugin", () => {
  const r = { type: "Bucket", name: "sales" };
  it("is checked, created, read, diffed, updated and deleted by the Bucket kind, its state free of bookkeeping", async () => {
    const checked = await p.check(r, {}, { stage: "in", name: "sales", description: "Sales" });
    expect(checked.failures).toEqual([]);
    expect(hiddenKeys(checked.inputs)).toEqual([]);
    const made = await p.create(r, checked.inputs);
    expect(made.id).toBe("in.c-sales");
    expect(made.props).toMatchObject({ stage: "in", name: "sales", description: "Sales", bucketId: "in.c-sales", branchId: "default" });
    expect(hiddenKeys(made.props)).toEqual([]);
    // The owner marker names the resource in the dynamic resources' form (ownerOfUrn).
    const bucket = await h.ctx.client().storage.findBucket("default", "in.c-sales");
    const marker = bucket?.metadata?.find((m) => m.key === "keboola-pulumi.owner")?.value;
    expect(marker).toBe("urn:pulumi:test::harness::pulumi-nodejs:dynamic/keboola:Bucket::sales");

    const read = await p.read(r, made.id, made.props);
    expect(read.id).toBe("in.c-sales");
    expect(read.props).toEqual(made.props);
    expect(read.inputs).toMatchObject({ stage: "in", name: "sales", description: "Sales" });

    const none = await p.diff(r, made.id, made.props, checked.inputs);
    expect(none.getChanges()).toBe(1); // DIFF_NONE
    const renamed = await p.diff(r, made.id, made.props, { ...checked.inputs, name: "revenue" });
    expect([renamed.getChanges(), renamed.getReplacesList()]).toEqual([2, ["name"]]); // DIFF_SOME, a replacement
    const described = await p.diff(r, made.id, made.props, { ...checked.inputs, description: "Sales, by day" });
    expect([described.getChanges(), described.getReplacesList()]).toEqual([2, []]);

    h.emu.clearRequests();
    const updated = await p.update(r, made.id, made.props, { ...checked.inputs, description: "Sales, by day" });
    expect(updated).toMatchObject({ description: "Sales, by day", bucketId: "in.c-sales" });
    expect(h.writes()).toEqual(["POST /v2/storage/buckets/in.c-sales/metadata"]);

    await p.delete(r, made.id, updated);
    expect(await h.ctx.client().storage.findBucket("default", "in.c-sales")).toBeUndefined();
    // Gone: Read answers no id, which the engine takes as deleted outside Pulumi.
    expect((await p.read(r, made.id, updated)).id).toBe("");
  });

  it("reads a bucket from its id alone, as `pulumi import` asks", async () => {
    await h.ctx.client().storage.createBucket("default", { stage: "out", name: "shared", description: "" });
    h.emu.clearRequests();
    const read = await p.read({ type: "Bucket", name: "adopted" }, "out.c-shared", {});
    expect(read.id).toBe("out.c-shared");
    expect(read.props).toMatchObject({ bucketId: "out.c-shared", stage: "out", name: "shared", branchId: "default" });
    expect(read.inputs).toMatchObject({ stage: "out", name: "shared" });
    expect(h.writes().filter((w) => !w.includes("/_emulator"))).toEqual([]);
  });

  it("refuses a bad input with the dynamic resources' text and path, writing nothing", async () => {
    const res = await p.check({ type: "Bucket", name: "bad" }, {}, { stage: "raw", name: "x" });
    expect(res.failures).toHaveLength(1);
    expect(res.failures[0].property).toBe("stage");
    expect(h.writes()).toEqual([]);
  });
});

describe("a Source through the plugin", () => {
  it("answers its ingestion URL marked secret, and its own marker keeps the dynamic form", async () => {
    const r = { type: "Source", name: "events" };
    const checked = await p.check(r, {}, { name: "App events" });
    expect(checked.failures).toEqual([]);
    const made = await p.create(r, checked.inputs);
    expect(made.props.url).toMatchObject({ ...SECRET, value: expect.stringContaining("/stream/") });
    expect(hiddenKeys(made.props)).toEqual([]);
    const stream = await h.ctx.client().stream();
    const remote = await stream.getSource("default", String(made.props.sourceId));
    expect(remote.description).toContain(`managed by keboola-pulumi: ${ownerOfUrn(urnOf("Source", "events"))}`);
    // The same resource through the dynamic door (an alias moving it) recognises the source as its own.
    const owner = "urn:pulumi:test::harness::pulumi-nodejs:dynamic/keboola:Source::events";
    const again = await dynamicSource.check(h.ctx, {}, { __resourceName: "events", __owner: owner, name: "App events" });
    expect(again.failures ?? []).toEqual([]);
    await p.delete(r, made.id, made.props);
  });
});

describe("owners across the two front doors", () => {
  it("are one marker, so a configuration id derived from the owner is the same through either door", () => {
    const plugin = urnOf("ComponentConfig", "users");
    const dynamic = "urn:pulumi:test::harness::pulumi-nodejs:dynamic/keboola:ComponentConfig::users";
    expect(ownerOfUrn(plugin)).toBe(dynamic);
    expect(ownerOfUrn(dynamic)).toBe(dynamic);
    expect(derivedConfigId(ownerOfUrn(plugin))).toBe(derivedConfigId(dynamic));
    // Parent types stay as they are; only the resource's own type is the door's.
    expect(ownerOfUrn("urn:pulumi:s::p::my:Component$keboola:index:Bucket::b")).toBe("urn:pulumi:s::p::my:Component$pulumi-nodejs:dynamic/keboola:Bucket::b");
  });

  it("an unknown type token is refused naming the types the plugin serves", async () => {
    const err = await p.check({ type: "Bukket", name: "x" }, {}, {}).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: grpc.status.INVALID_ARGUMENT, details: expect.stringContaining('keboola: unknown resource type "keboola:index:Bukket"; this provider serves keboola:index:Branch, keboola:index:Source,') });
  });
});

describe("import: every kind read from its id alone", () => {
  // What `pulumi import` asks: Read with the id and no properties, then Check of the inputs Read
  // gave, as old and new inputs (pulumi/pulumi pkg/resource/deploy/step.go, ImportStep.Apply);
  // the next preview diffs the program's inputs (the generated code: the same) against that state.
  const made = new Map<string, { id: string; props: Record<string, unknown> }>();
  const create = async (type: string, name: string, inputs: Record<string, unknown>) => {
    const checked = await p.check({ type, name }, {}, inputs);
    expect(checked.failures, `${type} check`).toEqual([]);
    const r = await p.create({ type, name }, checked.inputs);
    made.set(type, r);
    return r;
  };
  beforeAll(async () => {
    const branch = await create("Branch", "imp-dev", { name: "import-dev" });
    expect(branch.id).toMatch(/^\d+$/);
    await create("Bucket", "imp-bucket", { stage: "in", name: "imp" });
    await create("Table", "imp-table", { bucketId: "in.c-imp", name: "t", columns: ["id", "name"], primaryKey: ["id"] });
    const source = await create("Source", "imp-source", { name: "Import source" });
    const sourceId = String(source.props.sourceId);
    await create("SourceSettings", "imp-source-settings", { sourceId, targetImportTrigger: { interval: "2m" } });
    const sink = await create("Sink", "imp-sink", { sourceId, name: "Import sink", tableId: "in.c-imp.events", columns: [{ type: "uuid", name: "id", primaryKey: true }, { type: "body", name: "body" }] });
    await create("SinkSettings", "imp-sink-settings", { sourceId, sinkId: String(sink.props.sinkId), syncWait: false });
    const vars = await create("VariableConfig", "imp-vars", { name: "Vars", variables: [{ name: "endpoint" }], defaultValues: { endpoint: "users" } });
    const config = await create("ComponentConfig", "imp-config", {
      componentId: "keboola.ex-generic-v2",
      name: "Import config",
      variables: { configId: vars.props.configId, valuesRowId: vars.props.valuesRowId },
      configuration: { parameters: { api: { baseUrl: "https://api.example.com/" }, config: { jobs: [{ endpoint: "{{endpoint}}" }] } } },
      rows: [{ name: "Row one", configuration: { parameters: { a: 1 } } }],
    });
    await create("JobRun", "imp-job", { componentId: "keboola.ex-generic-v2", configId: config.props.configId });
    const flow = await create("Flow", "imp-flow", { name: "Import flow", phases: [{ name: "extract", tasks: [{ componentId: "keboola.ex-generic-v2", configId: config.props.configId }] }] });
    await create("Schedule", "imp-schedule", { name: "Import schedule", cron: "0 3 * * *", target: { componentId: "keboola.flow", configId: flow.props.configId } });
  }, 60_000);

  const TYPES = ["Branch", "Bucket", "Table", "Source", "SourceSettings", "Sink", "SinkSettings", "VariableConfig", "ComponentConfig", "JobRun", "Flow", "Schedule"];
  it.each(TYPES)("%s", async (type) => {
    const { id, props } = made.get(type)!;
    h.emu.clearRequests();
    const r = { type, name: `imported-${type}` };
    const read = await p.read(r, id, {});
    expect(read.id).toBe(id);
    expect(hiddenKeys(read.props)).toEqual([]);
    expect(Object.keys(read.inputs).length, "inputs for the generated code").toBeGreaterThan(0);
    const checked = await p.check(r, read.inputs, read.inputs);
    expect(checked.failures).toEqual([]);
    const diff = await p.diff(r, id, read.props, checked.inputs);
    expect([diff.getChanges(), diff.getReplacesList()], JSON.stringify({ state: read.props, inputs: checked.inputs })).toEqual([1, []]);
    // The outputs a created resource has, an imported one has too.
    expect(Object.keys(read.props).sort()).toEqual(expect.arrayContaining(Object.keys(props).filter((k) => k !== "adoptExisting" && props[k] !== undefined).sort()));
    expect(h.writes().filter((w) => !w.includes("/_emulator"))).toEqual([]);
  });
});

describe("lookups (Invoke)", () => {
  beforeAll(async () => {
    const storage = h.ctx.client().storage;
    await storage.createBucket("default", { stage: "in", name: "look", description: "" });
    await p.create({ type: "Table", name: "look-table" }, (await p.check({ type: "Table", name: "look-table" }, {}, { bucketId: "in.c-look", name: "typed", columns: ["id", "amount"], primaryKey: ["id"], definition: { id: { type: "VARCHAR", length: "10" }, amount: { type: "NUMBER", length: "10,2" } } })).inputs);
    await p.create({ type: "Source", name: "look-source" }, (await p.check({ type: "Source", name: "look-source" }, {}, { name: "Lookup source" })).inputs);
    await p.create({ type: "Branch", name: "look-branch" }, (await p.check({ type: "Branch", name: "look-branch" }, {}, { name: "lookup-dev" })).inputs);
    h.emu.clearRequests();
  }, 30_000);

  it("getBucket and getTable answer the kinds' properties: a table's columns, types and primary key", async () => {
    expect((await p.invoke("getBucket", { bucketId: "in.c-look" })).result).toMatchObject({ bucketId: "in.c-look", stage: "in", name: "look", branchId: "default" });
    const table = (await p.invoke("getTable", { tableId: "in.c-look.typed" })).result;
    expect(table).toMatchObject({ tableId: "in.c-look.typed", bucketId: "in.c-look", name: "typed", columns: ["id", "amount"], primaryKey: ["id"], definition: { id: { type: "VARCHAR", length: "10" }, amount: { type: "NUMBER", length: "10,2" } } });
  });

  it("getSource answers the ingestion URL as a secret", async () => {
    const { result } = await p.invoke("getSource", { sourceId: "lookup-source" });
    expect(result).toMatchObject({ sourceId: "lookup-source", name: "Lookup source", type: "http", url: { ...SECRET, value: expect.stringContaining("/stream/") } });
  });

  it("getBranch finds a development branch by name or id; getComponent answers the catalog entry with its configuration schema", async () => {
    const byName = (await p.invoke("getBranch", { name: "lookup-dev" })).result;
    expect(byName).toMatchObject({ name: "lookup-dev", branchId: expect.stringMatching(/^\d+$/) });
    expect((await p.invoke("getBranch", { branchId: byName.branchId })).result).toMatchObject({ name: "lookup-dev" });
    const component = (await p.invoke("getComponent", { componentId: "keboola.ex-generic-v2" })).result;
    expect(component).toMatchObject({ componentId: "keboola.ex-generic-v2", type: "extractor" });
    expect(component).toHaveProperty("configurationSchema");
  });

  it("says what is missing, which argument is wrong, which function is unknown, and writes nothing", async () => {
    await expect(p.invoke("getBucket", { bucketId: "in.c-none" })).rejects.toMatchObject({ code: grpc.status.NOT_FOUND, details: 'getBucket: nothing found for {"bucketId":"in.c-none"}' });
    expect((await p.invoke("getBucket", { bucketid: "in.c-look" })).failures).toContainEqual({ property: "bucketid", reason: expect.stringContaining('did you mean "bucketId"') });
    await expect(p.invoke("getBukket", {})).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT, details: expect.stringContaining('unknown function "keboola:index:getBukket"') });
    expect(h.writes().filter((w) => !w.includes("/_emulator"))).toEqual([]);
  });
});
