import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sink, sinkSettings, source } from "./hosted";
import { ensureTable } from "../../emulator/storage/tables";
import type { Props } from "../../provider/lifecycle/types";
import { createVia, MASTER_TOKEN, ownerUrn, startHarness, type Harness } from "./harness";

// The requests a fleet costs: what one provider process reuses (a source's sinks, known from its
// own writes) and skips (reading the settings of a sink it has just created), and that the reuse
// never hides a change this process made.

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());
beforeEach(() => {
  h.emu.clearRequests();
  h.emu.setFaults({});
});

const COLUMNS = [{ type: "uuid", name: "id" }];
const sinkLists = () => h.emu.requests().filter((r) => r.method === "GET" && /\/sources\/[^/]+\/sinks(\?|$)/.test(r.path)).length;
const settingsReads = () => h.emu.requests().filter((r) => r.method === "GET" && r.path.endsWith("/settings")).length;
const checkSink = (name: string, news: Props) => sink.check(h.ctx, {}, { __resourceName: name, __owner: ownerUrn(name), ...news });

describe("the sinks of a source, as one process knows them", () => {
  it("are listed once for all the sinks checked, and include the sinks this process created since", async () => {
    const src = await createVia(source, h.ctx, "roster-src", { name: "Roster", sourceId: "roster-src" });
    h.emu.clearRequests();
    const args = (n: number) => ({ sourceId: src.outs.sourceId, name: `S${n}`, sinkId: `s${n}`, tableId: `in.c-roster.t${n}`, columns: COLUMNS });
    for (let n = 1; n <= 3; n++) await createVia(sink, h.ctx, `s${n}`, args(n));
    expect(sinkLists()).toBe(1);

    // A sink this process created is seen by the check of another resource that wants its id.
    const taken = await checkSink("other", { ...args(2), tableId: "in.c-roster.t2" });
    expect(taken.failures).toEqual([{ property: "sinkId", reason: expect.stringMatching(/sink "s2" already exists in source "roster-src" and belongs to .*resource keboola:Resource "s2"/) }]);
    expect(sinkLists()).toBe(1);
  });

  it("are listed again after any other write to the source's sinks: a deleted sink's id is free", async () => {
    const src = await createVia(source, h.ctx, "roster-del", { name: "Roster Del", sourceId: "roster-del" });
    const args = { sourceId: src.outs.sourceId, name: "Gone", sinkId: "gone", tableId: "in.c-roster.gone", columns: COLUMNS };
    const created = await createVia(sink, h.ctx, "gone", args);
    expect((await checkSink("again", args)).failures).toHaveLength(1);
    h.emu.clearRequests();
    await sink.delete(h.ctx, created.id, created.outs);
    expect((await checkSink("again", args)).failures).toEqual([]);
    expect(sinkLists()).toBe(1);
  });

  it("are listed again after a create whose task failed", async () => {
    const src = await createVia(source, h.ctx, "roster-fail", { name: "Roster Fail", sourceId: "roster-fail" });
    const args = { sourceId: src.outs.sourceId, name: "Broken", sinkId: "broken", tableId: "in.c-roster.broken", columns: COLUMNS };
    const checked = await checkSink("broken", args);
    h.emu.setFaults({ failTasks: ["api.create.sink"] });
    await expect(sink.create(h.ctx, checked.inputs as Props)).rejects.toThrow(/task .* failed/);
    h.emu.setFaults({});
    h.emu.clearRequests();
    // Not created: its id is free again, which only a new listing can tell.
    expect((await checkSink("other-broken", args)).failures).toEqual([]);
    expect(sinkLists()).toBe(1);
  });
});

describe("the destination tables, as the checks of sinks see them", () => {
  const tableReads = () => h.emu.requests().filter((r) => r.method === "GET" && /\/v2\/storage\/tables\//.test(r.path)).length;
  const bucketListings = () => h.emu.requests().filter((r) => r.method === "GET" && /\/buckets\/[^/]+\/tables/.test(r.path)).length;

  it("come from one listing of the bucket for all the checks, while each create reads its table itself", async () => {
    const src = await createVia(source, h.ctx, "tables-src", { name: "Tables", sourceId: "tables-src" });
    h.emu.clearRequests();
    for (let n = 1; n <= 4; n++) {
      await checkSink(`t${n}`, { sourceId: src.outs.sourceId, name: `T${n}`, tableId: `in.c-tables.t${n}`, columns: COLUMNS, __program: { declared: true } });
    }
    expect({ bucketListings: bucketListings(), tableReads: tableReads() }).toEqual({ bucketListings: 1, tableReads: 0 });
    h.emu.clearRequests();
    await createVia(sink, h.ctx, "t1", { sourceId: src.outs.sourceId, name: "T1", tableId: "in.c-tables.t1", columns: COLUMNS });
    expect(tableReads()).toBe(1);
  });

  it("include a table this process had the service create: a second sink of it with other columns is refused at check", async () => {
    const src = await createVia(source, h.ctx, "shared-src", { name: "Shared", sourceId: "shared-src" });
    const first = { sourceId: src.outs.sourceId, name: "First", tableId: "in.c-shared.events", columns: COLUMNS };
    const second = { sourceId: src.outs.sourceId, name: "Second", tableId: "in.c-shared.events", columns: [{ type: "uuid", name: "other" }] };
    // Both checked before anything exists (one listing: the table is absent), then the first created.
    expect((await checkSink("second", second)).failures).toEqual([]);
    await createVia(sink, h.ctx, "first", first);
    const refused = await checkSink("second", second);
    expect(refused.failures).toEqual([{ property: "columns", reason: expect.stringMatching(/in\.c-shared\.events/) }]);
  });

  it("never stand in for the table at create: a table made meanwhile with other columns stops the create", async () => {
    const src = await createVia(source, h.ctx, "late-src", { name: "Late", sourceId: "late-src" });
    const args = { sourceId: src.outs.sourceId, name: "Late", tableId: "in.c-late.events", columns: COLUMNS };
    const checked = await checkSink("late", args);
    expect(checked.failures).toEqual([]);
    // Someone else creates the table with other columns after the check.
    ensureTable(h.emu.context, 101, "in.c-late.events", ["something", "else"]);
    h.emu.clearRequests();
    await expect(sink.create(h.ctx, checked.inputs as Props)).rejects.toThrow(/in\.c-late\.events/);
    expect(h.writes()).toEqual([]);
  });
});

describe("SinkSettings on a sink", () => {
  it("that this process has just created writes every key without reading the settings", async () => {
    const src = await createVia(source, h.ctx, "fresh-src", { name: "Fresh", sourceId: "fresh-src" });
    const snk = await createVia(sink, h.ctx, "fresh-sink", { sourceId: src.outs.sourceId, name: "Fresh", tableId: "in.c-fresh.t", columns: COLUMNS });
    h.emu.clearRequests();
    // 10000 is the service default of the staging count: written all the same. The sink is declared
    // in the same program (as the class passes it), so check does not ask whether it exists.
    await createVia(sinkSettings, h.ctx, "fresh-settings", { sourceId: src.outs.sourceId, sinkId: snk.outs.sinkId, stagingUploadTrigger: { count: 10000, size: "1MB" }, __program: { declared: true } });
    expect(settingsReads()).toBe(0);
    expect(h.writes()).toEqual(["PATCH /stream/v1/branches/default/sources/fresh-src/sinks/fresh/settings"]);
    const remote = (await (await h.ctx.client().stream()).getSettings("default", "fresh-src", "fresh")).settings;
    expect(remote.find((s) => s.key === "storage.level.staging.upload.trigger.count")).toMatchObject({ value: 10000, overwritten: true });
  });

  it("that another process created reads the settings first and writes only what differs", async () => {
    const src = await createVia(source, h.ctx, "old-src", { name: "Old", sourceId: "old-src" });
    const snk = await createVia(sink, h.ctx, "old-sink", { sourceId: src.outs.sourceId, name: "Old", tableId: "in.c-old.t", columns: COLUMNS });
    const other = h.contextFor(MASTER_TOKEN); // a new client: another provider process
    h.emu.clearRequests();
    await createVia(sinkSettings, other, "old-settings", { sourceId: src.outs.sourceId, sinkId: snk.outs.sinkId, stagingUploadTrigger: { count: 10000 } });
    // One read by check (the sink must exist), one by create right before deciding what to write.
    expect(settingsReads()).toBe(2);
    expect(h.writes()).toEqual([]);
  });
});

describe("the tables of a bucket, as one process's checks know them", () => {
  const bucketListings = () => h.emu.requests().filter((r) => r.method === "GET" && /\/buckets\/in\.c-listed\/tables(\?|$)/.test(r.path)).length;

  it("are listed once while sinks into the bucket are checked and created in turn, and a table this process had created is read on its own", async () => {
    const src = await createVia(source, h.ctx, "listed-src", { name: "Listed", sourceId: "listed-src" });
    const args = (n: number, columns = COLUMNS) => ({ sourceId: src.outs.sourceId, name: `L${n}`, sinkId: `l${n}`, tableId: `in.c-listed.t${n}`, columns });
    h.emu.clearRequests();
    // As Pulumi runs a fleet: each sink's check, then its create (which has the service create its table).
    for (let n = 1; n <= 4; n++) {
      expect((await checkSink(`l${n}`, args(n))).failures).toEqual([]);
      await createVia(sink, h.ctx, `l${n}`, args(n));
    }
    // Before: each create dropped the listing, so each check listed the bucket again (n listings of up to n tables).
    expect(bucketListings()).toBe(1);

    // The listing predates table t3, which this process had the service create: t3 is read on its own,
    // so another sink wanting other columns in it is refused at check.
    const tableReads = () => h.emu.requests().filter((r) => r.method === "GET" && r.path.includes("/tables/in.c-listed.t3")).length;
    const before = tableReads();
    const other = await checkSink("other-t3", { ...args(3, [{ type: "uuid", name: "id" }, { type: "body", name: "payload" }]), sinkId: "other-t3", name: "Other" });
    expect(other.failures).toEqual([{ property: "columns", reason: expect.stringMatching(/in\.c-listed\.t3/) }]);
    expect(tableReads()).toBe(before + 1);
    expect(bucketListings()).toBe(1);
  });
});
