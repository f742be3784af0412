import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { source } from "./hosted";
import { createVia, ownerUrn, startHarness, throttled, updateVia, type Harness } from "./harness";
import type { Props } from "../../provider/lifecycle/types";
import { splitMarker } from "../../provider/lifecycle/ownership";

// Source's handler in detail (provider/kinds/source.ts): which check looks the slot up, what
// converge writes (and does not), a rotation that keeps failing, the partial states it leaves, and
// read and update of a source gone. stream.test.ts, rotate-secret.test.ts and
// source-enabled.test.ts cover the lifecycle.

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ taskDurationMs: 5 });
});
afterAll(async () => h?.close());
beforeEach(() => h.emu.clearRequests());

const SOURCES = "/stream/v1/branches/default/sources";
const stream = () => h.ctx.client().stream();
const check = (name: string, news: Props, olds: Props = {}) => source.check(h.ctx, olds, { __resourceName: name, __owner: ownerUrn(name), ...news });

describe("Source in detail", () => {
  it("check looks nothing up once an input is wrong, and checks the new slot when a deployed source's id changes", async () => {
    // A name with no letter or digit to derive the source id from: found after the inputs parse.
    const r = await check("bad", { name: "!!!" });
    expect(r.failures?.map((f) => f.property)).toEqual(["name"]);
    expect(h.emu.requests()).toEqual([]);

    await createVia(source, h.ctx, "held-elsewhere", { name: "held", sourceId: "src-held" });
    const mine = await createVia(source, h.ctx, "mine", { name: "mine", sourceId: "src-mine" });
    // Same id as deployed: not looked up as a new slot.
    expect((await check("mine", { name: "mine", sourceId: "src-mine" }, mine.outs)).failures).toEqual([]);
    // A new id for the deployed source: the slot is checked, and another resource's source refused.
    const moved = await check("mine", { name: "mine", sourceId: "src-held" }, mine.outs);
    expect(moved.failures?.map((f) => f.property)).toEqual(["sourceId"]);
  });

  it("an update writes only what differs: the type alone, with the change description as the version's; an update that changes nothing writes nothing and reads once", async () => {
    const made = await createVia(source, h.ctx, "typed", { name: "typed" });
    h.emu.clearRequests();
    const otlp = await updateVia(source, h.ctx, "typed", made.id, made.outs, made.inputs, { name: "typed", type: "otlp" });
    expect(h.writes()).toEqual([`PATCH ${SOURCES}/typed`]);
    expect(otlp.outs).toMatchObject({ type: "otlp" });
    expect((await (await stream()).getSource("default", "typed")).type).toBe("otlp");
    const stored = Object.values(h.emu.state.stream.sources).find((x) => x.sourceId === "typed" && !x.deleted);
    expect(stored?.version?.description).toBe("Updated by Pulumi.");

    h.emu.clearRequests();
    await source.update(h.ctx, made.id, otlp.outs, otlp.inputs as Props);
    expect(h.writes()).toEqual([]);
    // One look at the source, none after: nothing changed, so what was read is the answer.
    expect(h.emu.requests().filter((r) => r.method === "GET").length).toBe(1);
  });

  it("a source taken over is brought to the declared description with this resource's marker; one taken over already needs no write", async () => {
    const s = await stream();
    await s.runTask(await s.createSource("default", { sourceId: "src-adopt", type: "http", name: "adopt-me", description: "by hand" }), "test");
    const adopted = await createVia(source, h.ctx, "adopter", { name: "adopt-me", sourceId: "src-adopt", description: "Declared", adoptExisting: true });
    const remote = await s.getSource("default", "src-adopt");
    expect(splitMarker(remote.description)).toEqual({ text: "Declared", owner: ownerUrn("adopter") });
    expect(adopted.outs).toMatchObject({ description: "Declared" });

    // Created again after a lost answer: found with the marker, already as declared: no write, one read.
    h.emu.clearRequests();
    await source.create(h.ctx, adopted.inputs);
    expect(h.writes()).toEqual([]);
  });

  it("an update without an owner keeps the marker the source has", async () => {
    const made = await createVia(source, h.ctx, "kept-marker", { name: "kept-marker", description: "One" });
    const { __owner: _o, ...inputs }: Props = { ...made.inputs, description: "Two" };
    const { __owner: _p, ...olds }: Props = made.outs;
    await source.update(h.ctx, made.id, olds, inputs);
    expect(splitMarker((await (await stream()).getSource("default", "kept-marker")).description)).toEqual({ text: "Two", owner: ownerUrn("kept-marker") });
  });

  it("a rotation refused past three ambiguous attempts fails naming the source, and records the other changes with the old rotateSecret", async () => {
    const made = await createVia(source, h.ctx, "rot-fail", { name: "rot-fail", rotateSecret: "1" });
    const before = h.emu.faultCounts().byMethod.POST?.["5xx"] ?? 0;
    h.emu.setFaults({ rate5xx: 1, methods: ["POST"], pathPrefixes: [`${SOURCES}/rot-fail/rotate-secret`] });
    let err: unknown;
    try {
      err = await source.update(h.ctx, made.id, made.outs, { ...made.inputs, rotateSecret: "2", description: "changed" }).catch((e: unknown) => e);
    } finally {
      h.emu.setFaults({});
    }
    expect((h.emu.faultCounts().byMethod.POST?.["5xx"] ?? 0) - before, "5xx answers to the rotation").toBe(3);
    expect((err as Error).message).toBe(
      'Source "rot-fail" (resource "rot-fail"): rotating its ingestion secret failed: POST /stream/v1/branches/default/sources/rot-fail/rotate-secret (stream) failed with 500 stream.api.internalError: Internal Server Error',
    );
    expect(err).toMatchObject({ id: made.id, properties: { description: "changed", rotateSecret: "1", url: made.outs.url } });
  });

  it("removing rotateSecret rotates nothing", async () => {
    const made = await createVia(source, h.ctx, "rot-off", { name: "rot-off", rotateSecret: "1" });
    const { rotateSecret: _r, ...without } = made.inputs;
    const after = await source.update(h.ctx, made.id, made.outs, without as Props);
    expect(h.writes().filter((w) => w.endsWith("/rotate-secret"))).toEqual([]);
    expect(after.outs).toMatchObject({ url: made.outs.url });
    expect(after.outs).not.toHaveProperty("rotateSecret");
  });

  it("a new source declared disabled that cannot be disabled is kept in state as it stands", async () => {
    const inputs = (await check("born-off", { name: "born-off", enabled: false })).inputs as Props;
    const err = await throttled(h, "PUT", `${SOURCES}/born-off/disable`, () => source.create(h.ctx, inputs));
    expect(err).toMatchObject({ properties: { sourceId: "born-off", enabled: true } });
    expect((err as Error).message).toBe(
      'Source "born-off": creating failed: PUT /stream/v1/branches/default/sources/born-off/disable (stream) failed with 429 stream.api.tooManyRequests: Too Many Requests',
    );
  });

  it("read addresses by state, else by the id in the default branch, and defaults adoptExisting; an update of a source gone says to refresh", async () => {
    const made = await createVia(source, h.ctx, "gone", { name: "gone" });
    const bare = await source.read(h.ctx, "whatever/gone", {});
    expect(bare.props).toMatchObject({ branchId: "default", sourceId: "gone", adoptExisting: false });
    expect(bare.inputs).not.toHaveProperty("url");
    const s = await stream();
    await s.runTask(await s.deleteSource("default", "gone"), "test");
    await expect(source.update(h.ctx, made.id, made.outs, made.inputs)).rejects.toThrow('Source "gone" (resource "gone") no longer exists: run `pulumi refresh` to recreate it');
    expect(await source.read(h.ctx, made.id, made.outs)).toEqual({ id: "" });
    // Deleting what is gone is done already.
    await source.delete(h.ctx, made.id, {});
  });
});
