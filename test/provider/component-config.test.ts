import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { componentConfig, variableConfig } from "./hosted";
import { createVia, LIMITED_TOKEN, ownerUrn, startHarness, type Harness } from "./harness";
import type { Props } from "../../provider/lifecycle/types";

// ComponentConfig's handler in detail (provider/kinds/component-config.ts): what create checks
// again before its first write (a binding that went away since the preview, purge rights), which
// changes replace it, and what read brings back of the recorded intent. config.test.ts covers the
// lifecycle with rows, variables and secrets.

let h: Harness;
let vars: { configId: string; valuesRowId: string };
beforeAll(async () => {
  h = await startHarness({ taskDurationMs: 5 });
  const made = await createVia(variableConfig, h.ctx, "cc-vars", { name: "Vars", variables: [{ name: "limit", type: "int" }], defaultValues: { limit: "1" } });
  vars = { configId: String(made.outs.configId), valuesRowId: String(made.outs.valuesRowId) };
});
afterAll(async () => h?.close());
beforeEach(() => h.emu.clearRequests());

const EX = "keboola.ex-generic-v2";
const args = (extra: Props = {}) => ({ componentId: EX, name: "Users", configuration: { parameters: { limit: "{{limit}}" } }, ...extra });
const checked = async (name: string, news: Props, c = h.ctx) => (await componentConfig.check(c, {}, { __resourceName: name, __owner: ownerUrn(name), ...news })).inputs as Props;

describe("ComponentConfig in detail", () => {
  it("create checks the binding again before writing: a variables configuration gone since the preview, or a values row it does not have", async () => {
    const inputs = await checked("bound", args({ variables: { configId: vars.configId, valuesRowId: vars.valuesRowId } }));
    h.emu.clearRequests();
    await expect(componentConfig.create(h.ctx, { ...inputs, variables: { configId: "no-such-vars" } })).rejects.toThrow(
      'ComponentConfig "bound": variables.configId "no-such-vars" is not a keboola.variables configuration in branch default (missing or in the trash). Nothing was changed.',
    );
    await expect(componentConfig.create(h.ctx, { ...inputs, variables: { configId: vars.configId, valuesRowId: "999999" } })).rejects.toThrow(
      `ComponentConfig "bound": variables.valuesRowId "999999" is not a row of variables configuration ${vars.configId}. Nothing was changed.`,
    );
    expect(h.writes()).toEqual([]);
    // A second values row: the binding names one of the rows, not all of them.
    await h.ctx.client().storage.createRow("default", "keboola.variables", vars.configId, { name: "Other values", configuration: { values: [{ name: "limit", value: "2" }] } });
    await expect(componentConfig.create(h.ctx, inputs)).resolves.toMatchObject({ outs: { name: "Users" } });
    // The declared names come from the variables configuration when the binding does not carry them.
    await expect(componentConfig.create(h.ctx, { ...inputs, configId: "bound-2", variables: { configId: vars.configId } })).resolves.toMatchObject({ outs: { name: "Users" } });
  });

  it("refuses purgeOnDelete with a token that may not purge the trash, writing nothing", async () => {
    const limited = h.emu.state.tokens.find((t) => t.token === LIMITED_TOKEN)!;
    h.emu.state.tokens.push({ ...limited, id: "1005", token: "cc-no-purge-token-7d1f", description: "No purge", isMasterToken: false, componentAccess: [EX] });
    const c = h.contextFor("cc-no-purge-token-7d1f");
    const inputs = await checked("purging", args({ purgeOnDelete: true }), c);
    h.emu.clearRequests();
    await expect(componentConfig.create(c, inputs)).rejects.toThrow(/^ComponentConfig "purging": purgeOnDelete is set, but the token "No purge" \(id 1005\) may not purge the trash/);
    expect(h.writes()).toEqual([]);
  });

  it("a new branch or component replaces the configuration", async () => {
    const olds = { branchId: "default", componentId: EX, configId: "c", name: "Users", description: "", configuration: {}, rows: [], isDisabled: false, purgeOnDelete: false };
    expect(await componentConfig.diff(h.ctx, "x", olds, { ...olds, branchId: "12" })).toMatchObject({ changes: true, replaces: ["branchId"] });
    expect(await componentConfig.diff(h.ctx, "x", olds, { ...olds, componentId: "keboola.ex-db-snowflake" })).toMatchObject({ changes: true, replaces: ["componentId"] });
    expect(await componentConfig.diff(h.ctx, "x", olds, { ...olds })).toMatchObject({ changes: false, replaces: [] });
  });

  it("read brings back the recorded intent: a declared configId, purgeOnDelete, adoptExisting", async () => {
    const made = await createVia(componentConfig, h.ctx, "recorded", args({ configId: "recorded-cfg", purgeOnDelete: true }));
    const read = await componentConfig.read(h.ctx, made.id, made.outs);
    expect(read.props).toMatchObject({ explicitConfigId: true, purgeOnDelete: true, adoptExisting: false });
    expect(read.inputs).toMatchObject({ configId: "recorded-cfg", purgeOnDelete: true });
    expect((await componentConfig.read(h.ctx, made.id, { ...made.outs, adoptExisting: true })).props).toMatchObject({ adoptExisting: true });
    const derived = await createVia(componentConfig, h.ctx, "derived", args());
    const readDerived = await componentConfig.read(h.ctx, derived.id, derived.outs);
    expect(readDerived.props).toMatchObject({ explicitConfigId: false, purgeOnDelete: false });
    expect(readDerived.inputs).not.toHaveProperty("configId");
  });
});

describe("ComponentConfig read's warnings", () => {
  const declared = [{ name: "limit", type: "int" }];
  it("follow the configuration when the declarations are recorded: a placeholder edited away by hand warns on refresh, in the configuration and in a row bound on its own", async () => {
    const made = await createVia(componentConfig, h.ctx, "warns", args({ variables: { configId: vars.configId, valuesRowId: vars.valuesRowId, declared } }));
    expect(made.outs.warnings).toEqual([]);
    const storage = h.ctx.client().storage;
    const configId = String(made.outs.configId);
    const current = await storage.getConfig("default", EX, configId);
    await storage.updateConfig("default", EX, configId, { configuration: { ...current.configuration, parameters: { limit: 5 } } });
    const read = await componentConfig.read(h.ctx, made.id, made.outs);
    expect(read.props?.warnings).toEqual(['variable "limit" is declared but no {{limit}} placeholder in the configuration or its rows uses it']);

    const rowBound = await createVia(componentConfig, h.ctx, "row-warns", {
      componentId: EX,
      name: "Rows",
      configuration: { parameters: {} },
      rows: [{ name: "Row", configuration: { parameters: { n: "{{limit}}" } }, variables: { configId: vars.configId, declared } }],
    });
    expect(rowBound.outs.warnings).toEqual([]);
    const rowId = (rowBound.outs.rowIds as string[])[0]!;
    const rowNow = (await storage.getConfig("default", EX, String(rowBound.outs.configId))).rows[0]!;
    await storage.updateRow("default", EX, String(rowBound.outs.configId), rowId, { configuration: { ...rowNow.configuration, parameters: { n: 1 } } });
    expect((await componentConfig.read(h.ctx, rowBound.id, rowBound.outs)).props?.warnings).toEqual([
      'variable "limit" is declared but no {{limit}} placeholder in rows[0] (bound to its own variables) uses it',
    ]);
  });

  it("stay as recorded when the declarations are not known (a binding recorded without them)", async () => {
    const made = await createVia(componentConfig, h.ctx, "warns-kept", args({ variables: { configId: vars.configId } }));
    const { declared: _d, ...refs } = made.outs.variables as Props;
    const recorded = { ...made.outs, variables: refs, warnings: ["recorded warning"] };
    expect((await componentConfig.read(h.ctx, made.id, recorded)).props?.warnings).toEqual(["recorded warning"]);
    expect((await componentConfig.read(h.ctx, made.id, { ...recorded, warnings: undefined })).props?.warnings).toEqual([]);
  });
});

describe("ComponentConfig import", () => {
  it("takes a configuration with variables_id as bound on import (nothing recorded), its rows likewise; one without as unbound", async () => {
    const storage = h.ctx.client().storage;
    await storage.createConfig("default", EX, { configurationId: "imported-bound", name: "Imported", configuration: { parameters: { limit: "{{limit}}" }, variables_id: vars.configId, variables_values_id: vars.valuesRowId } });
    await storage.createRow("default", EX, "imported-bound", { rowId: "r1", name: "Row", configuration: { parameters: { n: "{{limit}}" }, variables_id: vars.configId } });
    await storage.createRow("default", EX, "imported-bound", { rowId: "r2", name: "Plain row", configuration: { parameters: { n: 1 } } });
    const read = await componentConfig.read(h.ctx, `default/${EX}/imported-bound`, {});
    expect(read.props).toMatchObject({ variables: { configId: vars.configId, valuesRowId: vars.valuesRowId }, configuration: { parameters: { limit: "{{limit}}" } } });
    const rows = (read.props as Props).rows as Props[];
    expect(rows.map((r) => r.variables)).toEqual([{ configId: vars.configId }, undefined]);
    // With a recorded state (not an import), a binding is what the state recorded: none here, so
    // one added by hand shows as a change of the configuration (its variables_id), not as a binding.
    const recorded = await componentConfig.read(h.ctx, `default/${EX}/imported-bound`, { rowIds: ["r1", "r2"], rows: [{ name: "Row" }, { name: "Plain row" }] });
    expect(recorded.props).not.toHaveProperty("variables");
    expect(recorded.props).toMatchObject({ configuration: { variables_id: vars.configId, variables_values_id: vars.valuesRowId } });
    expect(((recorded.props as Props).rows as Props[])[0]).toMatchObject({ configuration: { variables_id: vars.configId } });
    await storage.createConfig("default", EX, { configurationId: "imported-plain", name: "Plain", configuration: { parameters: { limit: 1 } } });
    const plain = await componentConfig.read(h.ctx, `default/${EX}/imported-plain`, {});
    expect(plain.props).not.toHaveProperty("variables");
  });
});
