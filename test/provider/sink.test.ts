import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sink, source } from "./hosted";
import { createVia, ownerUrn, startHarness, throttled, type Harness } from "./harness";
import type { Props } from "../../provider/lifecycle/types";
import { splitMarker } from "../../provider/lifecycle/ownership";
import { UNKNOWN } from "../../provider/validation/check";

// Sink's handler in detail (provider/kinds/sink.ts): which checks run when (and look nothing
// up once an input is wrong), the Table of the same program and the sink that shares a table, when
// the destination table is compared, token rotation, partial states, and read, update and delete
// addressed by the id alone. stream.test.ts covers the lifecycle.

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ taskDurationMs: 5 });
  await createVia(source, h.ctx, "sinks-src", { name: "sinks-src" });
  await createVia(source, h.ctx, "other-src", { name: "other-src" });
});
afterAll(async () => h?.close());
beforeEach(() => h.emu.clearRequests());

const SINKS = "/stream/v1/branches/default/sources/sinks-src/sinks";
const id = { type: "uuid", name: "id" };
const body = { type: "body", name: "body" };
const args = (over: Props = {}): Props => ({ sourceId: "sinks-src", name: "s", tableId: "in.c-sinks.events", columns: [id, body], ...over });
const check = (name: string, news: Props, olds: Props = {}) => sink.check(h.ctx, olds, { __resourceName: name, __owner: ownerUrn(name), ...news });
const properties = async (name: string, news: Props, olds: Props = {}) => ((await check(name, news, olds)).failures ?? []).map((f) => f.property);
const tableReads = () => h.emu.requests().filter((r) => r.method === "GET" && r.path.includes("/tables/")).length;

describe("Sink check in detail", () => {
  it("names an empty sourceId with the fix, and looks nothing up once an input is wrong", async () => {
    expect((await check("empty", args({ sourceId: "" }))).failures).toEqual([{ property: "sourceId", reason: "must not be empty: pass the sourceId of a Source" }]);
    // A name with no letter or digit to derive the sink id from: found after the inputs parse.
    h.emu.clearRequests();
    expect(await properties("no-id", args({ name: "!!!", allowedSignals: ["logs"], tableId: "in.c-sinks.other" }))).toEqual(["name"]);
    expect(h.emu.requests()).toEqual([]);
    // Nor is an unknown branch judged by the program's branch once an input is wrong.
    expect(await properties("no-id", { ...args({ name: "!!!", branchId: UNKNOWN }), __program: { branch: { resource: "dev", name: "dev" } } })).toEqual(["name"]);
  });

  it("compares with a Table of this program by its declaration, and not while that is unknown", async () => {
    const fact = { resource: "events-table", tableId: "in.c-sinks.decl", columns: ["id", "other"], primaryKey: [] };
    const r = await check("decl", { ...args({ tableId: "in.c-sinks.decl" }), __program: { declaredTable: fact } });
    expect(r.failures?.map((f) => f.property)).toEqual(["columns"]);
    expect(r.failures?.[0]?.reason).toMatch(/^the mapping does not match the existing table "in\.c-sinks\.decl" \(declared by keboola:Table "events-table" in this program\)\.\n/);
    expect((await check("decl", { ...args({ tableId: "in.c-sinks.decl" }), __program: { declaredTable: { ...fact, columns: ["id", "body"] } } })).failures).toEqual([]);
    expect((await check("decl", { ...args({ tableId: "in.c-sinks.decl" }), __program: { declaredTable: { ...fact, columns: ["id", UNKNOWN] } } })).failures).toEqual([]);
  });

  it("compares with the sink of this program that creates the same table, and not while its columns are unknown", async () => {
    const other = { sink: "first-sink", columns: [{ name: "id" }, { name: "other" }] };
    expect(await properties("second", { ...args({ tableId: "in.c-sinks.shared" }), __program: { sharedTable: other } })).toEqual(["columns"]);
    expect(await properties("second", { ...args({ tableId: "in.c-sinks.shared" }), __program: { sharedTable: { sink: "first-sink", columns: [{ name: "id" }, { name: UNKNOWN }] } } })).toEqual([]);
  });

  it("compares the destination table when the mapping is new or changes, not when an update keeps it", async () => {
    const made = await createVia(sink, h.ctx, "kept", args({ tableId: "in.c-sinks.kept" }));
    // The table changes by hand: a mapping kept as it is does not stop an unrelated update.
    const storage = h.ctx.client().storage;
    await storage.waitJob(await storage.addColumn("default", "in.c-sinks.kept", { name: "extra" }), "test");
    const drifted = (await storage.findTable("default", "in.c-sinks.kept"))?.columns;
    expect(drifted).toEqual(["id", "body", "extra"]);
    expect(await properties("kept", args({ tableId: "in.c-sinks.kept", name: "renamed" }), made.outs)).toEqual([]);
    // A changed mapping, or another table, is compared with the table as it is.
    expect(await properties("kept", args({ tableId: "in.c-sinks.kept", columns: [id] }), made.outs)).toEqual(["columns"]);
    await createVia(sink, h.ctx, "other-table", args({ name: "o", tableId: "in.c-sinks.narrow", columns: [id] }));
    expect(await properties("kept", args({ tableId: "in.c-sinks.narrow" }), made.outs)).toEqual(["columns"]);
    // A sink with no recorded mapping is new: compared.
    expect(await properties("fresh", args({ tableId: "in.c-sinks.kept" }), { sinkId: "fresh" })).toEqual(["columns"]);
  });

  it("checks the new slot when a deployed sink's id changes", async () => {
    await createVia(sink, h.ctx, "held", args({ name: "held", sinkId: "held", tableId: "in.c-sinks.held" }));
    const mine = await createVia(sink, h.ctx, "mine", args({ name: "mine", sinkId: "mine", tableId: "in.c-sinks.held" }));
    expect(await properties("mine", args({ name: "mine", sinkId: "mine", tableId: "in.c-sinks.held" }), mine.outs)).toEqual([]);
    expect(await properties("mine", args({ name: "mine", sinkId: "held", tableId: "in.c-sinks.held" }), mine.outs)).toEqual(["sinkId"]);
  });
});

describe("Sink lifecycle in detail", () => {
  it("an update that keeps the mapping reads no table; one that changes it reads the table first", async () => {
    const made = await createVia(sink, h.ctx, "reads", args({ name: "reads", tableId: "in.c-sinks.reads" }));
    h.emu.clearRequests();
    const renamed = await sink.update(h.ctx, made.id, made.outs, { ...made.inputs, name: "other name" });
    expect(tableReads()).toBe(0);
    expect(renamed.outs).toMatchObject({ name: "other name" });
    const stored = Object.values(h.emu.state.stream.sinks).find((x) => x.sinkId === "reads" && !x.deleted);
    expect(stored?.version?.description).toBe("Updated by Pulumi.");
    h.emu.clearRequests();
    await expect(sink.update(h.ctx, made.id, renamed.outs, { ...made.inputs, columns: [id] })).rejects.toThrow(/the mapping does not match the existing table "in\.c-sinks\.reads"/);
    expect(tableReads()).toBeGreaterThan(0);
    expect(h.writes()).toEqual([]);
  });

  it("an update without an owner keeps the marker the sink has", async () => {
    const made = await createVia(sink, h.ctx, "marked", args({ name: "marked", tableId: "in.c-sinks.marked", description: "One" }));
    const { __owner: _o, ...inputs }: Props = { ...made.inputs, description: "Two" };
    const { __owner: _p, ...olds }: Props = made.outs;
    await sink.update(h.ctx, made.id, olds, inputs);
    const remote = await (await h.ctx.client().stream()).getSink("default", "sinks-src", "marked");
    expect(splitMarker(remote.description)).toEqual({ text: "Two", owner: ownerUrn("marked") });
  });

  it("rotates the token only when rotateToken changes to a value: the same value, or none, rotates nothing", async () => {
    const made = await createVia(sink, h.ctx, "rot", args({ name: "rot", tableId: "in.c-sinks.rot", rotateToken: "1" }));
    const toggles = () => h.writes().filter((w) => /\/(disable|enable)$/.test(w));
    h.emu.clearRequests();
    await sink.update(h.ctx, made.id, made.outs, { ...made.inputs, description: "d" });
    expect(toggles()).toEqual([]);
    const { rotateToken: _r, ...without } = made.inputs;
    const off = await sink.update(h.ctx, made.id, made.outs, without);
    expect(toggles()).toEqual([]);
    expect(off.outs).not.toHaveProperty("rotateToken");
    h.emu.clearRequests();
    await sink.update(h.ctx, made.id, made.outs, { ...made.inputs, rotateToken: "2" });
    expect(toggles()).toEqual([`PUT ${SINKS}/rot/disable`, `PUT ${SINKS}/rot/enable`]);
  });

  it("a sink taken over is brought to the declared mapping without a token rotation", async () => {
    const s = await h.ctx.client().stream();
    await s.runTask(
      await s.createSink("default", "sinks-src", { sinkId: "adopted", type: "table", name: "adopted", description: "", allowedSignals: [], table: { type: "keboola", tableId: "in.c-sinks.adopted", mapping: { columns: [id] } } }),
      "test",
    );
    h.emu.clearRequests();
    const taken = await createVia(sink, h.ctx, "adopter", args({ name: "adopted", tableId: "in.c-sinks.adopted2", adoptExisting: true }));
    expect(h.writes().filter((w) => /\/(disable|enable)$/.test(w))).toEqual([]);
    expect(h.writes()).toContain(`PATCH ${SINKS}/adopted`);
    expect(taken.outs).toMatchObject({ tableId: "in.c-sinks.adopted2", columns: [id, body], enabled: true });
  });

  it("a new sink declared disabled that cannot be disabled is kept in state as it stands", async () => {
    const inputs = (await check("born-off", args({ name: "born-off", tableId: "in.c-sinks.off", enabled: false }))).inputs as Props;
    const err = await throttled(h, "PUT", `${SINKS}/born-off/disable`, () => sink.create(h.ctx, inputs));
    expect(err).toMatchObject({ properties: { sinkId: "born-off", enabled: true, tableId: "in.c-sinks.off" } });
    expect((err as Error).message).toBe(
      `Sink "born-off": creating failed: PUT ${SINKS}/born-off/disable (stream) failed with 429 stream.api.tooManyRequests: Too Many Requests`,
    );
  });

  it("a sink another stack created under the same id is refused, naming its source and branch", async () => {
    await createVia(sink, h.ctx, "first", args({ name: "taken", tableId: "in.c-sinks.taken" }));
    const inputs = { ...args({ name: "taken", tableId: "in.c-sinks.taken" }), __resourceName: "second", __owner: ownerUrn("second", "other-stack") };
    await expect(sink.create(h.ctx, inputs)).rejects.toThrow(/in source "sinks-src" of branch default/);
  });

  it("read and delete address a sink by the id alone; read defaults adoptExisting; an update of a sink gone says to refresh", async () => {
    const made = await createVia(sink, h.ctx, "by-id", args({ name: "by-id", tableId: "in.c-sinks.byid" }));
    const bare = await sink.read(h.ctx, made.id, {});
    expect(bare.props).toMatchObject({ branchId: "default", sourceId: "sinks-src", sinkId: "by-id", adoptExisting: false });
    await sink.delete(h.ctx, made.id, {});
    expect(await sink.read(h.ctx, made.id, {})).toEqual({ id: "" });
    await expect(sink.update(h.ctx, made.id, made.outs, made.inputs)).rejects.toThrow(
      'Sink "sinks-src/by-id" (resource "by-id") no longer exists: run `pulumi refresh` so Pulumi recreates it',
    );
  });
});
