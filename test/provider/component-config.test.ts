import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { componentConfig, variableConfig } from "./hosted";
import { createVia, LIMITED_TOKEN, ownerUrn, startHarness, type Harness } from "./harness";
import type { Props } from "../../provider/resources/types";

// ComponentConfig's handler in detail (provider/resources/component-config.ts): what create checks
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
