import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { componentConfig, variableConfig, sourceSettings } from "./hosted";
import { OWNER_KEY } from "../../provider/lifecycle/ownership";
import { createVia, ownerUrn, startHarness, type Harness } from "./harness";

// Taking over what exists (what an exported manifest does): `adoptExisting: true` on the
// configuration resources brings an existing configuration to the declared state writing only
// what differs, and settings write only the values that differ from the service's. The one write a
// takeover always makes is its bookkeeping: the configuration gets this resource's owner marker
// (in its metadata), so later runs recognise it as theirs.

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ taskDurationMs: 10 });
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => h.emu.clearRequests());

const storage = () => h.ctx.client().storage;
const base = (componentId: string, configId: string) => `/v2/storage/branch/default/components/${componentId}/configs/${configId}`;

describe("adoptExisting on configurations", () => {
  it("VariableConfig: takes over the configuration and its only values row; writes only a changed value", async () => {
    const vars = await storage().createConfig("default", "keboola.variables", { configurationId: "vars-a", name: "Vars", configuration: { variables: [{ name: "limit", type: "int" }] } });
    const row = await storage().createRow("default", "keboola.variables", String(vars.id), { name: "Values", configuration: { values: [{ name: "limit", value: "5" }] } });
    const args = { configId: "vars-a", name: "Vars", variables: [{ name: "limit", type: "int" }], adoptExisting: true };

    h.emu.clearRequests();
    const same = await createVia(variableConfig, h.ctx, "vars", { ...args, defaultValues: { limit: "5" } });
    expect(h.writes()).toEqual([`POST ${base("keboola.variables", "vars-a")}/metadata`]);
    const marked = h.emu.state.storage.configs["101/keboola.variables/vars-a"];
    expect(marked.metadata?.find((m) => m.key === OWNER_KEY)?.value).toBe(ownerUrn("vars"));
    expect(marked.configuration).toEqual({ variables: [{ name: "limit", type: "int" }] });
    h.emu.clearRequests();
    expect(same.outs).toMatchObject({ configId: "vars-a", valuesRowId: String(row.id), defaultValues: { limit: "5" } });

    const changed = await createVia(variableConfig, h.ctx, "vars", { ...args, defaultValues: { limit: "7" } });
    expect(h.writes()).toEqual([`PUT ${base("keboola.variables", "vars-a")}/rows/${String(row.id)}`]);
    expect(changed.outs.defaultValues).toEqual({ limit: "7" });
  });

  it("VariableConfig without adoptExisting still refuses an existing id", async () => {
    await storage().createConfig("default", "keboola.variables", { configurationId: "vars-b", name: "Vars", configuration: { variables: [] } });
    const checked = await variableConfig.check(h.ctx, {}, { __resourceName: "v", configId: "vars-b", name: "Vars", variables: [] });
    await expect(variableConfig.create(h.ctx, checked.inputs ?? {})).rejects.toThrow(/already exists/);
  });

  it("ComponentConfig: matches rows by rowId, writes only the row and fields that differ", async () => {
    const c = await storage().createConfig("default", "keboola.ex-generic-v2", { configurationId: "cfg-a", name: "Orders", configuration: { parameters: { a: 1 } } });
    const open = await storage().createRow("default", "keboola.ex-generic-v2", String(c.id), { name: "Open", configuration: { s: "open" } });
    const closed = await storage().createRow("default", "keboola.ex-generic-v2", String(c.id), { name: "Closed", configuration: { s: "closed" } });
    const args = (closedName: string) => ({
      componentId: "keboola.ex-generic-v2",
      configId: "cfg-a",
      name: "Orders",
      configuration: { parameters: { a: 1 } },
      rows: [
        { rowId: String(open.id), name: "Open", configuration: { s: "open" } },
        { rowId: String(closed.id), name: closedName, configuration: { s: "closed" } },
      ],
      adoptExisting: true,
    });

    h.emu.clearRequests();
    const same = await createVia(componentConfig, h.ctx, "orders", args("Closed"));
    expect(h.writes()).toEqual([`POST ${base("keboola.ex-generic-v2", "cfg-a")}/metadata`]);
    expect(h.emu.state.storage.configs["101/keboola.ex-generic-v2/cfg-a"].metadata?.find((m) => m.key === OWNER_KEY)?.value).toBe(ownerUrn("orders"));
    h.emu.clearRequests();
    expect(same.outs.rowIds).toEqual([String(open.id), String(closed.id)]);

    await createVia(componentConfig, h.ctx, "orders", args("Closed orders"));
    expect(h.writes()).toEqual([`PUT ${base("keboola.ex-generic-v2", "cfg-a")}/rows/${String(closed.id)}`]);
    expect((await storage().getConfig("default", "keboola.ex-generic-v2", "cfg-a")).rows.map((r) => r.name)).toEqual(["Open", "Closed orders"]);
  });

  it("adoptExisting without configId is refused at check", async () => {
    const res = await componentConfig.check(h.ctx, {}, { __resourceName: "x", componentId: "keboola.ex-generic-v2", name: "X", adoptExisting: true });
    expect(res.failures).toEqual([{ property: "adoptExisting", reason: expect.stringMatching(/needs configId/) }]);
  });
});

describe("settings on create", () => {
  it("write only the values that differ from the service's", async () => {
    const stream = await h.ctx.client().stream();
    await stream.runTask(await stream.createSource("default", { sourceId: "s-adopt", type: "http", name: "S" }), "source");
    await stream.runTask(await stream.patchSettings("default", "s-adopt", undefined, [{ key: "storage.level.target.import.trigger.count", value: 500 }]), "settings");

    h.emu.clearRequests();
    await createVia(sourceSettings, h.ctx, "s", { sourceId: "s-adopt", targetImportTrigger: { count: 500, interval: "1m" } });
    expect(h.writes()).toEqual([]); // 500 is set, 1m is the default (1m0s)

    await createVia(sourceSettings, h.ctx, "s", { sourceId: "s-adopt", targetImportTrigger: { count: 600, interval: "1m" } });
    const patches = h.emu.writes().filter((w) => w.method === "PATCH");
    expect(patches.map((w) => w.path)).toEqual(["/stream/v1/branches/default/sources/s-adopt/settings"]);
  });
});
