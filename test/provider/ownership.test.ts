import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { source, componentConfig, variableConfig } from "./hosted";
import { OWNER_KEY, splitMarker } from "../../provider/lifecycle/ownership";
import type { Props } from "../../provider/lifecycle/types";
import { createVia, ownerUrn, startHarness, type Harness } from "./harness";

// Ownership: an object found under our id is taken over only when it carries this resource's
// owner marker, or with adoptExisting (which then marks it); anything else is a conflict that
// names both owners and changes nothing.

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ taskDurationMs: 10 });
});
afterAll(async () => {
  await h?.close();
});

const cfgPath = (id: string) => `101/keboola.ex-generic-v2/${id}`;

describe("owner markers", () => {
  it("marks a source's description remotely and never shows the marker as a diff", async () => {
    const created = await createVia(source, h.ctx, "marked", { name: "Marked", description: "mine" });
    const remote = Object.values(h.emu.state.stream.sources).find((s) => s.sourceId === "marked")!;
    expect(splitMarker(remote.description)).toEqual({ text: "mine", owner: ownerUrn("marked") });
    expect(created.outs.description).toBe("mine");
    const read = await source.read(h.ctx, created.id, created.outs);
    expect(read.inputs?.description).toBe("mine");
  });

  it("refuses a configuration of another stack under an explicit configId, naming both owners, and writes nothing", async () => {
    const args = { componentId: "keboola.ex-generic-v2", configId: "contested", name: "Contested", rows: [{ name: "r" }] };
    await createVia(componentConfig, h.ctx, "first", args);
    const before = JSON.stringify(h.emu.state.storage.configs[cfgPath("contested")]);
    const theirs = await componentConfig.check(h.ctx, {}, { __resourceName: "second", __owner: ownerUrn("second", "prod"), ...args });
    const err = await componentConfig.create(h.ctx, theirs.inputs as Props).catch((e: unknown) => e);
    // The host shows it as the provider's own error, without a stack.
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/configuration "contested" of keboola\.ex-generic-v2 already exists in branch default and belongs to stack "test".*"first"; this resource is stack "prod".*"second"\. Nothing was taken over\. Set another configId, or set adoptExisting: true/);
    expect(JSON.stringify(h.emu.state.storage.configs[cfgPath("contested")])).toBe(before);
  });

  it("takes over a foreign configuration with adoptExisting and marks it as its own", async () => {
    const args = { componentId: "keboola.ex-generic-v2", configId: "adoptable", name: "Adoptable" };
    await createVia(componentConfig, h.ctx, "original", args);
    const adopted = await createVia(componentConfig, h.ctx, "adopter", { ...args, adoptExisting: true });
    expect(adopted.outs.configId).toBe("adoptable");
    expect(h.emu.state.storage.configs[cfgPath("adoptable")].metadata?.find((m) => m.key === OWNER_KEY)?.value).toBe(ownerUrn("adopter"));
    expect(Object.keys(h.emu.state.storage.configs).filter((k) => k.endsWith("/adoptable"))).toHaveLength(1);
  });

  it("still knows a configuration as its own after a user's edit replaced its change description", async () => {
    // The marker is in the configuration's metadata: an edit in the UI writes a new version with
    // its own changeDescription, which would otherwise lose it (ownership.ts).
    const args = { componentId: "keboola.ex-generic-v2", configId: "edited", name: "Edited", configuration: { parameters: { a: 1 } } };
    await createVia(componentConfig, h.ctx, "keeper", args);
    await h.ctx.client().storage.updateConfig("default", "keboola.ex-generic-v2", "edited", { configuration: { parameters: { a: 2 } }, changeDescription: "edited in the UI" });
    expect(splitMarker(h.emu.state.storage.configs[cfgPath("edited")].changeDescription).owner).toBeUndefined();
    // The same resource created again (its state lost): found as its own and brought back, no conflict.
    const again = await createVia(componentConfig, h.ctx, "keeper", args);
    expect(again.outs.configId).toBe("edited");
    expect(h.emu.state.storage.configs[cfgPath("edited")].configuration).toEqual({ parameters: { a: 1 } });
  });

  it("derives a configuration id from the owner, so a repeated create finds its own configuration instead of making a second", async () => {
    const args = { name: "Repeated", variables: [{ name: "a" }], defaultValues: { a: "1" } };
    const first = await createVia(variableConfig, h.ctx, "repeated", args);
    expect(first.outs.configId).toMatch(/^kp-[0-9a-f]{20}$/);
    // Pulumi lost the first result (a crash before the state was saved) and creates again.
    const again = await createVia(variableConfig, h.ctx, "repeated", args);
    expect(again.outs).toMatchObject({ configId: first.outs.configId, valuesRowId: first.outs.valuesRowId, defaultValues: { a: "1" } });
    const all = Object.values(h.emu.state.storage.configs).filter((c) => c.name === "Repeated");
    expect(all.map((c) => c.rows.length)).toEqual([1]);
  });
});
