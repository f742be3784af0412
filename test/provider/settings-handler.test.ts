import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sink, sinkSettings, source, sourceSettings } from "./hosted";
import { createVia, MASTER_TOKEN, startHarness, type Harness } from "./harness";
import { UNKNOWN } from "../../provider/validation/check";
import type { Props } from "../../provider/lifecycle/types";

// SourceSettings and SinkSettings (provider/lifecycle/settings-handler.ts) against the emulator:
// what check asks before anything exists, what a first apply writes, where state lacks the target,
// and how delete treats a failure. stream.test.ts covers the plain lifecycle.

let h: Harness;
let n = 0;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());
beforeEach(() => {
  h.emu.clearRequests();
  h.emu.setFaults({});
});

/** A source and a sink of it, made by another process (its client), so nothing counts as created here. */
async function elsewhere(): Promise<{ sourceId: string; sinkId: string }> {
  const other = h.contextFor(MASTER_TOKEN);
  const sourceId = `set-src-${++n}`;
  await createVia(source, other, sourceId, { name: sourceId, sourceId });
  await createVia(sink, other, `${sourceId}-sink`, { sourceId, sinkId: "raw", name: "Raw", tableId: `in.c-settings.t${n}`, columns: [{ type: "uuid", name: "id" }] });
  h.emu.clearRequests();
  return { sourceId, sinkId: "raw" };
}

const patches = () => h.emu.writes().filter((w) => w.method === "PATCH").map((w) => w.path);

describe("check", () => {
  it("refuses settings of a source or sink that does not exist, naming the property, what is missing and what to pass", async () => {
    const { sourceId } = await elsewhere();
    const src = await sourceSettings.check(h.ctx, {}, { sourceId: "nowhere", targetImportTrigger: { count: 1000 } });
    expect(src.failures).toEqual([
      { property: "sourceId", reason: 'source "nowhere" does not exist in branch default: pass the sourceId of a Source (for example events.sourceId), not its name' },
    ]);
    const snk = await sinkSettings.check(h.ctx, {}, { sourceId, sinkId: "nothing", targetImportTrigger: { count: 1000 } });
    expect(snk.failures).toEqual([
      { property: "sinkId", reason: `sink "nothing" of source "${sourceId}" does not exist in branch default: pass the sinkId of a Sink (for example raw.sinkId), not its name` },
    ]);
    // The resource class says no resource of the program declares it.
    const undeclared = await sinkSettings.check(h.ctx, {}, { __program: { declared: false }, sourceId, sinkId: "nothing", targetImportTrigger: { count: 1000 } });
    expect(undeclared.failures?.[0]?.reason).toBe(
      `sink "nothing" of source "${sourceId}" does not exist in branch default, and no Sink of this program declares it: pass the sinkId of a Sink (for example raw.sinkId), not its name`,
    );
  });

  it("an empty id says which id to pass", async () => {
    expect((await sourceSettings.check(h.ctx, {}, { sourceId: "", targetImportTrigger: { count: 1000 } })).failures).toEqual([
      { property: "sourceId", reason: "must not be empty: pass the sourceId of a Source" },
    ]);
    expect((await sinkSettings.check(h.ctx, {}, { sourceId: "", sinkId: "", targetImportTrigger: { count: 1000 } })).failures).toEqual([
      { property: "sourceId", reason: "must not be empty: pass the sourceId of the Sink's source" },
      { property: "sinkId", reason: "must not be empty: pass the sinkId of a Sink" },
    ]);
  });

  it("asks nothing when a Sink of the program declares it, on an update, when an id is unknown, or when the inputs are already wrong", async () => {
    const ok = (r: { failures?: unknown[] }) => expect(r.failures).toEqual([]);
    ok(await sinkSettings.check(h.ctx, {}, { __program: { declared: true }, sourceId: "future", sinkId: "future", targetImportTrigger: { count: 1000 } }));
    ok(await sinkSettings.check(h.ctx, { sourceId: "old" }, { sourceId: "gone", sinkId: "gone", targetImportTrigger: { count: 1000 } }));
    ok(await sinkSettings.check(h.ctx, {}, { sourceId: UNKNOWN, sinkId: "raw", targetImportTrigger: { count: 1000 } }));
    // Not even the branch (a development branch is refused when the inputs are otherwise right).
    const wrong = await sourceSettings.check(h.ctx, {}, { branchId: "12345", sourceId: "nowhere", targetImportTrigger: { count: 0 } });
    expect(wrong.failures?.map((f) => f.property)).toEqual(["targetImportTrigger.count"]);
    expect(h.emu.requests()).toEqual([]);
  });
});

describe("apply", () => {
  it("a first apply on an object made elsewhere writes only the keys whose value differs, and nothing when none does", async () => {
    const { sourceId, sinkId } = await elsewhere();
    // The service's defaults: count 50000, interval 1m (test/emulator: the settings table).
    // "1m" is the service's "1m0s", "5120KB" its "5MB": equal as durations and sizes, not as texts.
    const same = await createVia(sinkSettings, h.ctx, "same", { sourceId, sinkId, targetImportTrigger: { interval: "1m" }, stagingUploadTrigger: { size: "5120KB" } });
    expect(same.id).toBe(`default/${sourceId}/${sinkId}/settings`);
    expect(patches()).toEqual([]);
    // 10000 is another key's value (staging upload count), not this key's.
    await createVia(sinkSettings, h.ctx, "differs", { sourceId, sinkId, targetImportTrigger: { interval: "1m", count: 10000 } });
    expect(patches()).toEqual([`/stream/v1/branches/default/sources/${sourceId}/sinks/${sinkId}/settings`]);
    const remote = (await (await h.ctx.client().stream()).getSettings("default", sourceId, sinkId)).settings;
    expect(remote.find((s) => s.key === "storage.level.target.import.trigger.count")).toMatchObject({ value: 10000, overwritten: true });
    expect(remote.find((s) => s.key === "storage.level.target.import.trigger.interval")).toMatchObject({ overwritten: false });
    // The sink's version says who changed it and why.
    expect((await (await h.ctx.client().stream()).getSink("default", sourceId, sinkId)).version.description).toBe("Updated by Pulumi.");
  });

  it("an update writes the changed keys even when the service already has them", async () => {
    const { sourceId } = await elsewhere();
    const made = await createVia(sourceSettings, h.ctx, "upd", { sourceId, targetImportTrigger: { count: 2000 } });
    expect(made.id).toBe(`default/${sourceId}/settings`);
    // Somebody sets the value the program is about to declare.
    const other = await h.contextFor(MASTER_TOKEN).client().stream();
    await other.runTask(await other.patchSettings("default", sourceId, undefined, [{ key: "storage.level.target.import.trigger.count", value: 3000 }], "by hand"), "by hand");
    h.emu.clearRequests();
    await sourceSettings.update(h.ctx, made.id, made.outs, { ...made.inputs, targetImportTrigger: { count: 3000 } });
    expect(patches()).toEqual([`/stream/v1/branches/default/sources/${sourceId}/settings`]);
  });

  it("a failed settings task names the settings and the resource", async () => {
    const { sourceId } = await elsewhere();
    h.emu.setFaults({ failTasks: ["api.update.sourceSettings"] });
    const checked = await sourceSettings.check(h.ctx, {}, { __resourceName: "failing", sourceId, targetImportTrigger: { count: 1234 } });
    await expect(sourceSettings.create(h.ctx, checked.inputs as Props)).rejects.toThrow(new RegExp(`Settings of source "${sourceId}" \\(resource "failing"\\): task .* failed`));
    const sinkChecked = await sinkSettings.check(h.ctx, {}, { __resourceName: "failing-sink", sourceId, sinkId: "raw", targetImportTrigger: { count: 1234 } });
    h.emu.setFaults({ failTasks: ["api.update.sinkSettings"] });
    await expect(sinkSettings.create(h.ctx, sinkChecked.inputs as Props)).rejects.toThrow(new RegExp(`Settings of sink "${sourceId}/raw" \\(resource "failing-sink"\\): task .* failed`));
  });
});

describe("state without its target, diff, delete", () => {
  it("reads the target from the id when state lacks it (a half-finished create)", async () => {
    const { sourceId, sinkId } = await elsewhere();
    const snk = await sinkSettings.read(h.ctx, `default/${sourceId}/${sinkId}/settings`, {});
    expect(snk.props).toMatchObject({ branchId: "default", sourceId, sinkId });
    const src = await sourceSettings.read(h.ctx, `default/${sourceId}/settings`, {});
    expect(src.props).toMatchObject({ branchId: "default", sourceId });
    expect(src.props).not.toHaveProperty("sinkId");
    expect(h.emu.requests().map((r) => r.path)).toEqual([
      `/stream/v1/branches/default/sources/${sourceId}/sinks/${sinkId}/settings`,
      `/stream/v1/branches/default/sources/${sourceId}/settings`,
    ]);
  });

  it("replaces settings moved to another source or sink, and updates changed values in place", async () => {
    const olds = { branchId: "default", sourceId: "a", sinkId: "s", targetImportTrigger: { count: 1000 } };
    const d = (news: Props) => sinkSettings.diff(h.ctx, "default/a/s/settings", olds, news);
    expect(await d({ ...olds })).toMatchObject({ changes: false, replaces: [] });
    expect(await d({ ...olds, sinkId: "t" })).toMatchObject({ changes: true, replaces: ["sinkId"] });
    expect(await d({ ...olds, sourceId: "b", sinkId: "s" })).toMatchObject({ changes: true, replaces: ["sourceId"] });
    expect(await d({ ...olds, targetImportTrigger: { count: 2000 } })).toMatchObject({ changes: true, replaces: [] });
    // A sink id given where none was (source settings have none) is a move too.
    const src = { branchId: "default", sourceId: "a", targetImportTrigger: { count: 1000 } };
    expect(await sourceSettings.diff(h.ctx, "default/a/settings", src, { ...src })).toMatchObject({ changes: false });
  });

  it("delete resets the managed keys once, with its own change description; nothing to reset writes nothing; a failure other than gone is reported", async () => {
    const { sourceId, sinkId } = await elsewhere();
    const made = await createVia(sinkSettings, h.ctx, "reset", { sourceId, sinkId, targetImportTrigger: { count: 1000 } });
    h.emu.clearRequests();
    await sinkSettings.delete(h.ctx, made.id, made.outs);
    expect(patches()).toEqual([`/stream/v1/branches/default/sources/${sourceId}/sinks/${sinkId}/settings`]);
    expect((await (await h.ctx.client().stream()).getSink("default", sourceId, sinkId)).version.description).toBe("Reset by Pulumi.");
    h.emu.clearRequests();
    await sinkSettings.delete(h.ctx, made.id, { branchId: "default", sourceId, sinkId });
    expect(h.emu.requests()).toEqual([]);
    h.emu.setFaults({ failTasks: ["api.update.sinkSettings"] });
    await expect(sinkSettings.delete(h.ctx, made.id, made.outs)).rejects.toThrow(/task .* failed/);
  });
});
