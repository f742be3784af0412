import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sink, source } from "./hosted";
import { createVia, startHarness, updateVia, type Harness } from "./harness";
import { exportProject } from "../../provider/manifest/export";

// Source.enabled: a disabled source is declared as such, switched by the service's disable/enable
// tasks, read back by refresh and exported. Its sinks, disabled with it by the service
// ("Auto-disabled with the parent source.", keboola-as-code
// `internal/pkg/service/stream/definition/repository/sink/sink_disable.go`), keep their own
// `enabled` and show no diff.

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ taskDurationMs: 10 });
});
afterAll(async () => {
  await h?.close();
});

const SOURCES = "/stream/v1/branches/default/sources";
const live = (id: string) => Object.values(h.emu.state.stream.sources).find((s) => s.sourceId === id && !s.deleted);

describe("Source.enabled", () => {
  it("creates a disabled source, enables and disables it in place, and its sinks follow without a diff of their own", async () => {
    h.emu.clearRequests();
    const src = await createVia(source, h.ctx, "off", { name: "off-src", enabled: false });
    expect(src.outs.enabled).toBe(false);
    expect(live("off-src")?.disabled).toBeDefined();
    expect(h.writes()).toEqual([`POST ${SOURCES}`, `PUT ${SOURCES}/off-src/disable`]);

    // Unchanged: no diff; refresh reads the disabled source back as declared.
    expect((await source.diff(h.ctx, src.id, src.outs, src.inputs)).changes).toBe(false);
    const read = await source.read(h.ctx, src.id, src.outs);
    expect(read.props?.enabled).toBe(false);
    expect(read.inputs?.enabled).toBe(false);

    const on = await updateVia(source, h.ctx, "off", src.id, src.outs, src.inputs, { name: "off-src", enabled: true });
    expect(on.diff.replaces).toEqual([]);
    expect(on.outs.enabled).toBe(true);
    expect(live("off-src")?.disabled).toBeUndefined();

    const snk = await createVia(sink, h.ctx, "off-sink", { sourceId: "off-src", name: "Out", tableId: "in.c-off.out", columns: [{ type: "uuid", name: "id" }] });
    const off = await updateVia(source, h.ctx, "off", src.id, on.outs, on.inputs, { name: "off-src", enabled: false });
    expect(off.outs.enabled).toBe(false);
    // The service disabled the sink with its source; the sink itself is still declared and read as enabled.
    const sinkRecord = Object.values(h.emu.state.stream.sinks).find((s) => s.sinkId === "out" && s.sourceId === "off-src");
    expect(sinkRecord?.disabled?.reason).toBe("Auto-disabled with the parent source.");
    const sinkRead = await sink.read(h.ctx, snk.id, snk.outs);
    expect(sinkRead.props?.enabled).toBe(true);
    h.emu.clearRequests();
    const sinkAgain = await updateVia(sink, h.ctx, "off-sink", snk.id, sinkRead.props!, snk.inputs, { sourceId: "off-src", name: "Out", tableId: "in.c-off.out", columns: [{ type: "uuid", name: "id" }] });
    expect(sinkAgain.diff.changes).toBe(false);
    expect(h.writes()).toEqual([]);

    // Export describes the disabled source as disabled, and its sink as enabled.
    const exported = await exportProject(h.ctx.client(), { components: [] });
    expect(exported.manifest.sources?.["off-src"]).toMatchObject({ sourceId: "off-src", enabled: false });
    expect(exported.manifest.sinks?.out?.enabled).toBeUndefined();
  });

  it("state written before `enabled` existed reads as enabled: no diff for an enabled source", async () => {
    const src = await createVia(source, h.ctx, "old-state", { name: "old-state" });
    const { enabled: _e, ...oldOuts } = src.outs;
    const { enabled: _i, ...oldInputs } = src.inputs;
    const checked = await source.check(h.ctx, oldInputs, { ...oldInputs });
    expect((await source.diff(h.ctx, src.id, oldOuts, checked.inputs as Record<string, unknown>)).changes).toBe(false);
  });
});
