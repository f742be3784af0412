import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { source, sink, sinkSettings, sourceSettings } from "./hosted";
import { PartialFailure, type Props } from "../../provider/lifecycle/types";
import { createVia, ownerUrn, startHarness, updateVia, type Harness } from "./harness";
import { getTable } from "../../emulator/storage/tables";

// Source, Sink and the settings resources against the emulator: every lifecycle path, adoption,
// the table-schema guard, partial failure, and injected faults without duplicates or orphans.

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());
beforeEach(() => {
  h.emu.clearRequests();
  h.emu.setFaults({});
});

const ALL_COLUMNS = [
  { type: "uuid", name: "id" },
  { type: "datetime", name: "at" },
  { type: "ip", name: "ip" },
  { type: "body", name: "body" },
  { type: "headers", name: "headers" },
  { type: "path", name: "user", path: "user.id", defaultValue: "anonymous", rawString: true },
  { type: "template", name: "summary", rawString: true, template: { content: "Body('user.id', 'x') + ':' + Body('action', '?')" } },
];

async function stream() {
  return h.ctx.client().stream();
}

describe("Source", () => {
  it("creates with the id derived from the name, and reads back without drift", async () => {
    const { id, outs, inputs } = await createVia(source, h.ctx, "events", { name: "Web Events" });
    expect(id).toBe("101/web-events");
    expect(outs).toMatchObject({ sourceId: "web-events", branchId: "default", projectId: 4242, type: "http", name: "Web Events", description: "" });
    expect(String(outs.url)).toMatch(/\/stream\/4242\/web-events\/[A-Za-z0-9]{48}$/);
    expect(h.writes()).toEqual(["POST /stream/v1/branches/default/sources"]);

    const read = await source.read(h.ctx, id, { ...outs });
    expect(read.id).toBe(id);
    expect(read.props).toEqual(outs);
    const diff = await source.diff(h.ctx, id, outs, { ...inputs, ...(read.inputs as Props) });
    expect(diff.changes).toBe(false);
  });

  it("renames in place, keeping the derived id; a new sourceId replaces", async () => {
    const created = await createVia(source, h.ctx, "renamed", { name: "Old Name" });
    const { outs, diff } = await updateVia(source, h.ctx, "renamed", created.id, created.outs, created.inputs, { name: "New Name", description: "now described" });
    expect(diff.replaces).toEqual([]);
    expect(outs).toMatchObject({ sourceId: "old-name", name: "New Name", description: "now described" });
    expect((await (await stream()).getSource("default", "old-name")).name).toBe("New Name");

    const checked = await source.check(h.ctx, created.inputs, { name: "New Name", sourceId: "other-id" });
    expect((await source.diff(h.ctx, created.id, outs, checked.inputs as Props)).replaces).toEqual(["sourceId"]);
  });

  it("reports an empty id once deleted, and delete tolerates already gone", async () => {
    const { id, outs } = await createVia(source, h.ctx, "doomed", { name: "Doomed" });
    await source.delete(h.ctx, id, outs);
    expect((await source.read(h.ctx, id, outs)).id).toBe("");
    await expect(source.delete(h.ctx, id, outs)).resolves.toBeUndefined();
  });

  it("refuses to take over an existing source unless adoptExisting is set", async () => {
    await createVia(source, h.ctx, "first", { name: "Shared" });
    h.emu.clearRequests();
    const checked = await source.check(h.ctx, {}, { __resourceName: "second", __owner: ownerUrn("second"), name: "Shared" });
    await expect(source.create(h.ctx, checked.inputs as Props)).rejects.toThrow(
      /Source "shared" \(resource "second"\) already exists in branch default and belongs to .*resource keboola:Resource "first".* set adoptExisting: true/,
    );
    // The create was sent and refused with 409; nothing was changed.
    expect(h.emu.writes().map((w) => `${w.method} ${w.status}`)).toEqual(["POST 409"]);
    h.emu.clearRequests();

    const adopted = await createVia(source, h.ctx, "second", { name: "Shared", description: "adopted", adoptExisting: true });
    expect(adopted.outs).toMatchObject({ sourceId: "shared", description: "adopted" });
    // An explicit takeover reads first: its only write brings the source to the declared state (and marks it).
    expect(h.writes()).toEqual(["PATCH /stream/v1/branches/default/sources/shared"]);
  });

  it("checks inputs with the property path and the fix", async () => {
    const r = await source.check(h.ctx, {}, { name: "x".repeat(41), sourceId: "Not Normal", type: "kafka" });
    expect(r.failures).toEqual([
      { property: "sourceId", reason: "must be lowercase letters, digits and single dashes (the service would rename it): write it normalized" },
      { property: "name", reason: "must be at most 40 characters: shorten it" },
      { property: "type", reason: 'must be "http" or "otlp"' },
    ]);
  });

  it("exposes the OTLP url, base url and secret of an OTLP source", async () => {
    const { outs } = await createVia(source, h.ctx, "otel", { name: "Otel", type: "otlp" });
    expect(outs.type).toBe("otlp");
    expect(typeof outs.url).toBe("string");
    expect(typeof outs.secret).toBe("string");
  });
});

describe("Sink", () => {
  let src: { outs: Props };
  beforeAll(async () => {
    src = await createVia(source, h.ctx, "sink-parent", { name: "Sink Parent" });
  });
  const base = () => ({ sourceId: String(src.outs.sourceId) });

  it("creates with every column type, reads back without drift, and updates the mapping in place", async () => {
    const created = await createVia(sink, h.ctx, "all", { ...base(), name: "All Columns", tableId: "in.c-provider.all", columns: ALL_COLUMNS });
    expect(created.id).toBe("101/sink-parent/all-columns");
    expect(created.outs).toMatchObject({ sinkId: "all-columns", tableId: "in.c-provider.all", enabled: true });
    const table = await h.ctx.client().storage.findTable("default", "in.c-provider.all");
    expect(table?.columns).toEqual(ALL_COLUMNS.map((c) => c.name));

    const read = await sink.read(h.ctx, created.id, created.outs);
    expect(read.props).toEqual(created.outs);
    expect((await sink.diff(h.ctx, created.id, created.outs, { ...created.inputs, ...(read.inputs as Props) })).changes).toBe(false);

    h.emu.clearRequests();
    const renamed = await updateVia(sink, h.ctx, "all", created.id, created.outs, created.inputs, { ...base(), name: "All Columns", description: "d", tableId: "in.c-provider.all", columns: ALL_COLUMNS });
    expect(renamed.diff.replaces).toEqual([]);
    expect(h.writes()).toEqual(["PATCH /stream/v1/branches/default/sources/sink-parent/sinks/all-columns"]);
  });

  it("stops a mapping that does not match the existing table, at check, with both lists and no write", async () => {
    await createVia(sink, h.ctx, "owner", { ...base(), name: "Owner", tableId: "in.c-provider.fixed", columns: [{ type: "uuid", name: "id" }, { type: "body", name: "body" }] });
    h.emu.clearRequests();
    const r = await sink.check(h.ctx, {}, { ...base(), name: "Clash", tableId: "in.c-provider.fixed", columns: [{ type: "body", name: "body" }, { type: "uuid", name: "id" }] });
    expect(r.failures).toHaveLength(1);
    expect(r.failures![0].property).toBe("columns");
    expect(r.failures![0].reason).toContain("table columns:   [id, body]");
    expect(r.failures![0].reason).toContain("mapping columns: [body, id]");
    expect(h.writes()).toEqual([]);
  });

  it("re-reads the table when an update changes the columns alone: a table changed since preview stops it before any write", async () => {
    const args = { ...base(), name: "Reread", tableId: "in.c-provider.reread", columns: [{ type: "uuid", name: "id" }] };
    const created = await createVia(sink, h.ctx, "reread", args);
    // Someone adds a column to the table; the new mapping matches it at preview.
    const table = getTable(h.emu.context, 101, "in.c-provider.reread")!;
    table.columns.push("value");
    const news = { ...args, columns: [{ type: "uuid", name: "id" }, { type: "body", name: "value" }] };
    const checked = await sink.check(h.ctx, created.inputs, { __resourceName: "reread", __owner: ownerUrn("reread"), ...news });
    expect(checked.failures).toEqual([]);
    const diff = await sink.diff(h.ctx, created.id, created.outs, checked.inputs as Props);
    expect(diff).toMatchObject({ changes: true, replaces: [] });

    // Between preview and up, the table changes again: the update reads it itself and stops.
    table.columns.push("extra");
    h.emu.clearRequests();
    const err = await sink.update(h.ctx, created.id, created.outs, checked.inputs as Props).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toMatch(/Sink "sink-parent\/reread".*table columns: {3}\[id, value, extra\]\n {2}mapping columns: \[id, value\]/s);
    expect(h.writes()).toEqual([]);
    expect(h.emu.requests().filter((r) => r.method === "GET" && r.path.endsWith("/tables/in.c-provider.reread")).length).toBe(1);
    // Nothing changed on the sink.
    expect((await (await stream()).getSink("default", "sink-parent", "reread")).table?.mapping.columns.map((c) => c.name)).toEqual(["id"]);
  });

  it("reports an invalid template with its line and column at check", async () => {
    const r = await sink.check(h.ctx, {}, { ...base(), name: "Bad", tableId: "in.c-provider.bad", columns: [{ type: "template", name: "t", template: { content: "Invalid" } }] });
    expect(r.failures).toEqual([
      {
        property: "columns[0].template.content",
        reason: expect.stringContaining('Column "t" template is invalid: 1:1-8 Unknown variable: Invalid'),
      },
    ]);
  });

  it("disables, re-enables, and rotates the token by disable then enable", async () => {
    const args = { ...base(), name: "Toggle", tableId: "in.c-provider.toggle", columns: [{ type: "uuid", name: "id" }] };
    const created = await createVia(sink, h.ctx, "toggle", args);
    h.emu.clearRequests();
    const off = await updateVia(sink, h.ctx, "toggle", created.id, created.outs, created.inputs, { ...args, enabled: false });
    expect(off.outs.enabled).toBe(false);
    expect(h.writes()).toEqual(["PUT /stream/v1/branches/default/sources/sink-parent/sinks/toggle/disable"]);

    h.emu.clearRequests();
    const on = await updateVia(sink, h.ctx, "toggle", created.id, off.outs, off.inputs, { ...args, enabled: true, rotateToken: "2026-11" });
    expect(on.outs.enabled).toBe(true);
    expect(h.writes()).toEqual(["PUT /stream/v1/branches/default/sources/sink-parent/sinks/toggle/enable"]);

    h.emu.clearRequests();
    const rotated = await updateVia(sink, h.ctx, "toggle", created.id, on.outs, on.inputs, { ...args, rotateToken: "2026-12" });
    expect(rotated.outs.rotateToken).toBe("2026-12");
    expect(h.writes()).toEqual([
      "PUT /stream/v1/branches/default/sources/sink-parent/sinks/toggle/disable",
      "PUT /stream/v1/branches/default/sources/sink-parent/sinks/toggle/enable",
    ]);
  });

  it("keeps tracking a sink whose create task failed if it exists, and leaves nothing behind otherwise", async () => {
    h.emu.setFaults({ failTasks: ["api.create.sink"] });
    const checked = await sink.check(h.ctx, {}, { __resourceName: "failing", ...base(), name: "Failing", tableId: "in.c-provider.failing", columns: [{ type: "uuid", name: "id" }] });
    const err = await sink.create(h.ctx, checked.inputs as Props).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(String((err as Error).message)).toMatch(/Sink "sink-parent\/failing" \(resource "failing"\).*failed/);
    const left = await (await stream()).findSink("default", "sink-parent", "failing");
    if (left) {
      expect(err).toBeInstanceOf(PartialFailure);
      expect((err as PartialFailure).id).toBe("101/sink-parent/failing");
    } else {
      expect(err).not.toBeInstanceOf(PartialFailure);
    }
  });

  it("refuses allowedSignals on a sink of an HTTP source, and accepts them on an OTLP one", async () => {
    const r = await sink.check(h.ctx, {}, { ...base(), name: "Signals", tableId: "in.c-provider.signals", allowedSignals: ["logs"], columns: [{ type: "uuid", name: "id" }] });
    expect(r.failures).toEqual([{ property: "allowedSignals", reason: expect.stringContaining('source "sink-parent" is an HTTP source') }]);
    const otlp = await createVia(source, h.ctx, "otlp-parent", { name: "Otlp Parent", type: "otlp" });
    const ok = await createVia(sink, h.ctx, "traces", { sourceId: otlp.outs.sourceId, name: "Traces", tableId: "in.c-provider.traces", allowedSignals: ["traces"], columns: [{ type: "body", name: "span" }] });
    expect(ok.outs.allowedSignals).toEqual(["traces"]);

    const cleared = await updateVia(sink, h.ctx, "traces", ok.id, ok.outs, ok.inputs, { sourceId: otlp.outs.sourceId, name: "Traces", tableId: "in.c-provider.traces", allowedSignals: [], columns: [{ type: "body", name: "span" }] });
    expect(cleared.outs.allowedSignals).toBeUndefined();
    expect((await (await stream()).getSink("default", String(otlp.outs.sourceId), "traces")).allowedSignals ?? []).toEqual([]);
    const read = await sink.read(h.ctx, ok.id, cleared.outs);
    expect((await sink.diff(h.ctx, ok.id, cleared.outs, { ...cleared.inputs, ...(read.inputs as Props) })).changes).toBe(false);
  });

  it("adopts an existing sink only when asked", async () => {
    const args = { ...base(), name: "Adoptee", tableId: "in.c-provider.adoptee", columns: [{ type: "uuid", name: "id" }] };
    await createVia(sink, h.ctx, "adoptee", args);
    const checked = await sink.check(h.ctx, {}, { __resourceName: "again", ...args });
    await expect(sink.create(h.ctx, checked.inputs as Props)).rejects.toThrow(/already exists.*adoptExisting: true/);
    const adopted = await createVia(sink, h.ctx, "again", { ...args, description: "mine now", adoptExisting: true });
    expect(adopted.outs.description).toBe("mine now");
  });

  it("reports an empty id after the sink is deleted behind Pulumi's back", async () => {
    const created = await createVia(sink, h.ctx, "vanishing", { ...base(), name: "Vanishing", tableId: "in.c-provider.vanishing", columns: [{ type: "uuid", name: "id" }] });
    const s = await stream();
    await s.runTask(await s.deleteSink("default", "sink-parent", "vanishing"), "test");
    expect((await sink.read(h.ctx, created.id, created.outs)).id).toBe("");
    await expect(sink.delete(h.ctx, created.id, created.outs)).resolves.toBeUndefined();
  });
});

describe("settings", () => {
  it("manages only the keys set, compares by value, and resets them on delete", async () => {
    const src = await createVia(source, h.ctx, "settings-src", { name: "Settings Source", sourceId: "settings-src" });
    const snk = await createVia(sink, h.ctx, "settings-sink", { sourceId: src.outs.sourceId, name: "Settings Sink", tableId: "in.c-provider.settings", columns: [{ type: "uuid", name: "id" }] });
    const args = { sourceId: src.outs.sourceId, sinkId: snk.outs.sinkId, targetImportTrigger: { interval: "1m", count: 1000 }, stagingUploadTrigger: { size: "1MB" } };
    const created = await createVia(sinkSettings, h.ctx, "s", args);
    const s = await stream();
    const remote = (await s.getSettings("default", "settings-src", "settings-sink")).settings;
    const value = (key: string) => remote.find((x) => x.key === key);
    expect(value("storage.level.target.import.trigger.count")).toMatchObject({ value: 1000, overwritten: true });
    expect(value("storage.level.staging.upload.trigger.interval")).toMatchObject({ overwritten: false });

    const read = await sinkSettings.read(h.ctx, created.id, created.outs);
    expect(read.inputs).toMatchObject({ targetImportTrigger: { interval: "1m", count: 1000 }, stagingUploadTrigger: { size: "1MB" } });
    expect((await sinkSettings.diff(h.ctx, created.id, created.outs, { ...created.inputs, ...(read.inputs as Props) })).changes).toBe(false);

    await sinkSettings.delete(h.ctx, created.id, created.outs);
    const after = (await s.getSettings("default", "settings-src", "settings-sink")).settings;
    for (const key of ["storage.level.target.import.trigger.interval", "storage.level.target.import.trigger.count", "storage.level.staging.upload.trigger.size"]) {
      const setting = after.find((x) => x.key === key)!;
      expect(setting.value, key).toEqual(setting.defaultValue);
    }
  });

  it("deleting settings, or a sink, whose source is already deleted (with its sinks) succeeds without a task", async () => {
    // What a delete finds when the source went first: not under deletedWith (Pulumi then skips these
    // deletes), but e.g. after `pulumi state` surgery or a delete behind Pulumi's back.
    const src = await createVia(source, h.ctx, "gone-src", { name: "Gone Source", sourceId: "gone-src" });
    const snk = await createVia(sink, h.ctx, "gone-sink", { sourceId: "gone-src", name: "Gone Sink", tableId: "in.c-provider.gone", columns: [{ type: "uuid", name: "id" }] });
    const sinkSet = await createVia(sinkSettings, h.ctx, "gone-sink-settings", { sourceId: "gone-src", sinkId: snk.outs.sinkId, stagingUploadTrigger: { count: 1000 } });
    const sourceSet = await createVia(sourceSettings, h.ctx, "gone-src-settings", { sourceId: "gone-src", targetImportTrigger: { count: 1000 } });
    await source.delete(h.ctx, src.id, src.outs);
    h.emu.clearRequests();

    await sinkSettings.delete(h.ctx, sinkSet.id, sinkSet.outs);
    await sourceSettings.delete(h.ctx, sourceSet.id, sourceSet.outs);
    await sink.delete(h.ctx, snk.id, snk.outs);
    expect(h.emu.writes().map((w) => `${w.method} ${w.path} ${w.status}`)).toEqual([
      "PATCH /stream/v1/branches/default/sources/gone-src/sinks/gone-sink/settings 404",
      "PATCH /stream/v1/branches/default/sources/gone-src/settings 404",
      "DELETE /stream/v1/branches/default/sources/gone-src/sinks/gone-sink 404",
    ]);
    expect((await sinkSettings.read(h.ctx, sinkSet.id, sinkSet.outs)).id).toBe("");
    expect((await sink.read(h.ctx, snk.id, snk.outs)).id).toBe("");
  });

  it("refuses out-of-range values at check", async () => {
    const r = await sourceSettings.check(h.ctx, {}, { sourceId: "x", targetImportTrigger: { interval: "10s" }, stagingUploadTrigger: { count: 0 } });
    expect(r.failures?.map((f) => f.property)).toEqual(["stagingUploadTrigger.count", "targetImportTrigger.interval"]);
  });
});

describe("faults", () => {
  it("survives 429s, 5xx and resets with exactly one source and sink, and leaves none after delete", async () => {
    h.emu.setFaults({ seed: 13, rate429: 0.15, retryAfterSeconds: 0, rate5xx: 0.15, rateReset: 0.1, pathPrefixes: ["/stream/", "/v2/"] });
    const src = await createVia(source, h.ctx, "flaky", { name: "Flaky" });
    const snk = await createVia(sink, h.ctx, "flaky-sink", { sourceId: src.outs.sourceId, name: "Flaky Sink", tableId: "in.c-provider.flaky", columns: [{ type: "uuid", name: "id" }] });
    // Each kind of fault was really injected (the seed is chosen so that it is).
    const injected = h.emu.faultCounts();
    expect({ "429": injected["429"] > 0, "5xx": injected["5xx"] > 0, reset: injected.reset > 0 }).toEqual({ "429": true, "5xx": true, reset: true });
    h.emu.setFaults({});
    const s = await stream();
    const sources = (await s.listSources("default")).sources.filter((x) => x.sourceId === "flaky");
    expect(sources).toHaveLength(1);
    h.emu.setFaults({ seed: 12, rate429: 0.15, retryAfterSeconds: 0, rate5xx: 0.15, rateReset: 0.1, pathPrefixes: ["/stream/", "/v2/"] });
    await sink.delete(h.ctx, snk.id, snk.outs);
    await source.delete(h.ctx, src.id, src.outs);
    h.emu.setFaults({});
    expect(await s.findSource("default", "flaky")).toBeUndefined();
  });

  it("waits for the emulator's Retry-After before repeating a request answered 429", async () => {
    h.emu.setFaults({ seed: 8, rate429: 0.5, retryAfterSeconds: 1, methods: ["POST"], pathPrefixes: ["/stream/v1/branches/default/sources"] });
    await createVia(source, h.ctx, "patient", { name: "Patient" });
    h.emu.setFaults({});
    const posts = h.emu.requests().filter((r) => r.method === "POST" && r.path === "/stream/v1/branches/default/sources");
    const first429 = posts.findIndex((r) => r.status === 429);
    expect(first429).toBeGreaterThanOrEqual(0);
    const next = posts[first429 + 1]!;
    expect(Date.parse(next.at) - Date.parse(posts[first429]!.at)).toBeGreaterThanOrEqual(950);
    expect(posts.at(-1)!.status).toBe(202);
    expect((await (await stream()).listSources("default")).sources.filter((x) => x.sourceId === "patient")).toHaveLength(1);
  });

  it("fails a create whose task fails with the task's message and no orphan", async () => {
    h.emu.setFaults({ failTasks: ["api.create.source"] });
    const checked = await source.check(h.ctx, {}, { __resourceName: "broken", name: "Broken" });
    await expect(source.create(h.ctx, checked.inputs as Props)).rejects.toThrow(/Source "broken" \(resource "broken"\): task .* failed/);
    h.emu.setFaults({});
    const left = await (await stream()).findSource("default", "broken");
    expect(left).toBeUndefined();
  });
});
