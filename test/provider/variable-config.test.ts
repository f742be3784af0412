import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { variableConfig } from "./hosted";
import { createVia, ownerUrn, startHarness, throttled, updateVia, type Harness } from "./harness";
import type { Props } from "../../provider/lifecycle/types";
import { UNKNOWN } from "../../provider/validation/check";

// VariableConfig's handler in detail (provider/kinds/variable-config.ts): what an update writes
// of the declarations and the values row, what a create that finds its configuration takes over, a
// create stopped halfway, and what read makes of an imported configuration. config.test.ts covers
// the plain lifecycle.

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ taskDurationMs: 5 });
});
afterAll(async () => h?.close());
beforeEach(() => h.emu.clearRequests());

const VARS = "keboola.variables";
const args = (extra: Props = {}) => ({
  name: "Vars",
  variables: [
    { name: "limit", type: "int" },
    { name: "endpoint", type: "string" },
  ],
  defaultValues: { limit: "2", endpoint: "users" },
  ...extra,
});
const at = (configId: unknown) => `/v2/storage/branch/default/components/${VARS}/configs/${String(configId)}`;
const remote = (configId: unknown) => h.ctx.client().storage.getConfig("default", VARS, String(configId));
const check = async (name: string, news: Props, olds: Props = {}) => variableConfig.check(h.ctx, olds, { __resourceName: name, __owner: ownerUrn(name), ...news });

describe("VariableConfig in detail", () => {
  it("check: adoptExisting needs a configId; unknown values are not checked, known ones are; an unknown branch is not looked up", async () => {
    expect((await check("adopt", args({ adoptExisting: true }))).failures).toEqual([
      { property: "adoptExisting", reason: "needs configId: set the id of the existing configuration to take over, or remove adoptExisting" },
    ]);
    expect((await check("partly", args({ defaultValues: { limit: UNKNOWN, endpoint: "x" } }))).failures).toEqual([]);
    expect((await check("partly", args({ defaultValues: { limit: "two", endpoint: UNKNOWN } }))).failures).toMatchObject([{ property: "defaultValues.limit" }]);
    expect((await check("all-unknown", args({ defaultValues: UNKNOWN }))).failures).toEqual([]);
    expect((await check("decl-unknown", args({ variables: UNKNOWN, defaultValues: { limit: "two" } }))).failures).toEqual([]);
    h.emu.clearRequests();
    expect((await check("branch-unknown", args({ branchId: UNKNOWN, configId: "v-unknown-branch" }))).failures).toEqual([]);
    expect(h.emu.requests()).toEqual([]);
  });

  it("check refuses a configId another stack's configuration holds, and not a configuration's own one on update", async () => {
    const made = await createVia(variableConfig, h.ctx, "v-held", args({ configId: "v-held" }));
    const r = await check("v-other", args({ configId: "v-held" }));
    expect(r.failures).toMatchObject([{ property: "configId" }]);
    expect((await check("v-held", args({ configId: "v-held" }), made.inputs)).failures).toEqual([]);
  });

  it("update writes the configuration only for its name, description or declarations, keeping keys added by hand", async () => {
    const made = await createVia(variableConfig, h.ctx, "v-decl", args());
    const id = made.id;
    await h.ctx.client().storage.updateConfig("default", VARS, String(made.outs.configId), { configuration: { ...(await remote(made.outs.configId)).configuration, note: "by hand" } });
    h.emu.clearRequests();
    const renamed = await updateVia(variableConfig, h.ctx, "v-decl", id, made.outs, made.inputs, args({ name: "Vars 2", description: "d", variables: [...args().variables, { name: "extra", type: "string" }] }));
    expect(h.writes()).toEqual([`PUT ${at(made.outs.configId)}`]);
    const after = await remote(made.outs.configId);
    expect(after).toMatchObject({ name: "Vars 2", description: "d", configuration: { note: "by hand", variables: [...args().variables, { name: "extra", type: "string" }] } });
    expect(after.changeDescription).toContain("Updated by Pulumi");
    expect(renamed.outs).toMatchObject({ name: "Vars 2", description: "d", valuesRowId: made.outs.valuesRowId });
  });

  it("removing defaultValues deletes the values row; adding them creates one named Default values, values in declaration order", async () => {
    const made = await createVia(variableConfig, h.ctx, "v-row", args());
    h.emu.clearRequests();
    const { defaultValues: _d, ...withoutValues } = args();
    const removed = await updateVia(variableConfig, h.ctx, "v-row", made.id, made.outs, made.inputs, withoutValues);
    expect(h.writes()).toEqual([`DELETE ${at(made.outs.configId)}/rows/${String(made.outs.valuesRowId)}`]);
    expect(removed.outs.valuesRowId).toBeUndefined();
    expect(removed.outs.defaultValues).toBeUndefined();
    expect((await remote(made.outs.configId)).rows).toEqual([]);

    h.emu.clearRequests();
    const added = await updateVia(variableConfig, h.ctx, "v-row", made.id, removed.outs, removed.inputs, args({ defaultValues: { endpoint: "orders", limit: 5 } }));
    expect(h.writes()).toEqual([`POST ${at(made.outs.configId)}/rows`]);
    const rows = (await remote(made.outs.configId)).rows;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: added.outs.valuesRowId, name: "Default values", configuration: { values: [{ name: "limit", value: "5" }, { name: "endpoint", value: "orders" }] } });
    expect(added.outs.defaultValues).toEqual({ limit: "5", endpoint: "orders" });
  });

  it("a values row deleted by hand is created again by the next update, and not deleted twice", async () => {
    const made = await createVia(variableConfig, h.ctx, "v-gone-row", args());
    await h.ctx.client().storage.deleteRow("default", VARS, String(made.outs.configId), String(made.outs.valuesRowId));
    h.emu.clearRequests();
    const again = await variableConfig.update(h.ctx, made.id, made.outs, made.inputs);
    expect(h.writes()).toEqual([`POST ${at(made.outs.configId)}/rows`]);
    expect(again.outs).toMatchObject({ defaultValues: { limit: "2", endpoint: "users" } });
    expect(again.outs.valuesRowId).not.toBe(made.outs.valuesRowId);
  });

  it("adoption: the values row is the one named Default values, else the only row; the configuration gets the marker", async () => {
    const storage = h.ctx.client().storage;
    await storage.createConfig("default", VARS, { configurationId: "v-adopt", name: "Old", configuration: { variables: [{ name: "limit", type: "int" }] } });
    await storage.createRow("default", VARS, "v-adopt", { name: "Something", configuration: { values: [{ name: "limit", value: "9" }] } });
    const named = await storage.createRow("default", VARS, "v-adopt", { name: "Default values", configuration: { values: [{ name: "limit", value: "1" }] } });
    const adopted = await createVia(variableConfig, h.ctx, "v-adopt", args({ configId: "v-adopt", adoptExisting: true }));
    expect(adopted.outs.valuesRowId).toBe(String(named.id));
    expect(adopted.outs).toMatchObject({ name: "Vars", defaultValues: { limit: "2", endpoint: "users" } });
    expect((await remote("v-adopt")).changeDescription).toContain(ownerUrn("v-adopt"));

    await storage.createConfig("default", VARS, { configurationId: "v-adopt-1", name: "Old", configuration: { variables: [{ name: "limit", type: "int" }] } });
    const only = await storage.createRow("default", VARS, "v-adopt-1", { name: "Whatever", configuration: { values: [{ name: "limit", value: "9" }] } });
    const single = await createVia(variableConfig, h.ctx, "v-adopt-1", args({ configId: "v-adopt-1", adoptExisting: true }));
    expect(single.outs.valuesRowId).toBe(String(only.id));
    expect((await remote("v-adopt-1")).rows).toHaveLength(1);

    // Several rows, none named as ours: none is taken for the values row; one is made.
    await storage.createConfig("default", VARS, { configurationId: "v-adopt-2", name: "Old", configuration: { variables: [{ name: "limit", type: "int" }] } });
    for (const name of ["First", "Second"]) await storage.createRow("default", VARS, "v-adopt-2", { name, configuration: { values: [{ name: "limit", value: "9" }] } });
    const several = await createVia(variableConfig, h.ctx, "v-adopt-2", args({ configId: "v-adopt-2", adoptExisting: true }));
    const rows = (await remote("v-adopt-2")).rows;
    expect(rows.map((r) => r.name)).toEqual(["First", "Second", "Default values"]);
    expect(several.outs.valuesRowId).toBe(rows[2]!.id);
  });

  it("a create whose values row cannot be written leaves a partial state naming the configuration; the next update adds the row", async () => {
    const inputs = (await check("v-partial", args({ configId: "v-partial" }))).inputs as Props;
    const err = await throttled(h, "POST", `${at("v-partial")}/rows`, () => variableConfig.create(h.ctx, inputs));
    expect(err).toMatchObject({ id: `default/${VARS}/v-partial`, properties: { configId: "v-partial", name: "Vars" } });
    expect((err as Error).message).toMatch(/^VariableConfig "v-partial": /);
    const state = (err as { properties: Props }).properties;
    expect(state.valuesRowId).toBeUndefined();
    const fixed = await variableConfig.update(h.ctx, `default/${VARS}/v-partial`, state, inputs);
    expect(fixed.outs).toMatchObject({ defaultValues: { limit: "2", endpoint: "users" } });
  });

  it("read: on import a single row is the values row, several are not guessed; a declared configId comes back as an input", async () => {
    const made = await createVia(variableConfig, h.ctx, "v-import", args({ configId: "v-import" }));
    const imported = await variableConfig.read(h.ctx, made.id, {});
    expect(imported.props).toMatchObject({ valuesRowId: made.outs.valuesRowId, defaultValues: { limit: "2", endpoint: "users" }, explicitConfigId: false, purgeOnDelete: false });
    expect(imported.inputs).not.toHaveProperty("configId");

    const recorded = await variableConfig.read(h.ctx, made.id, made.outs);
    expect(recorded.inputs).toMatchObject({ configId: "v-import" });
    expect(recorded.props).toEqual(made.outs);

    await h.ctx.client().storage.createRow("default", VARS, "v-import", { name: "More", configuration: { values: [] } });
    const two = await variableConfig.read(h.ctx, made.id, {});
    expect(two.props?.valuesRowId).toBeUndefined();
    expect(two.props?.defaultValues).toBeUndefined();
  });

  it("delete with purgeOnDelete leaves nothing in the trash; without it the configuration can be restored", async () => {
    const purged = await createVia(variableConfig, h.ctx, "v-purge", args({ purgeOnDelete: true }));
    await variableConfig.delete(h.ctx, purged.id, purged.outs);
    const trash = await h.ctx.client().storage.listDeletedConfigs("default", VARS);
    expect(trash.map((c) => String(c.id))).not.toContain(purged.outs.configId);
    // A state that records only the id (an import) is addressed by it.
    const kept = await createVia(variableConfig, h.ctx, "v-keep", args());
    await variableConfig.delete(h.ctx, kept.id, {});
    expect((await h.ctx.client().storage.listDeletedConfigs("default", VARS)).map((c) => String(c.id))).toContain(kept.outs.configId);
  });
});
