import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createVia, MASTER_TOKEN, ownerUrn, startHarness, throttled, type Harness } from "./harness";
import { source } from "./hosted";
import { KeboolaApiError } from "../../provider/api/errors";
import { branchFailure, componentFailure, configSlotFailure, declaredBranchFailure, forgetBranches, isNew, sinkSlotFailure, sourceSlotFailure, streamBranchFailure, unlessForbidden } from "../../provider/lifecycle/preflight";
import { STACK_BRANCH_RESOURCE } from "../../provider/lifecycle/facts";
import { UNKNOWN } from "../../provider/validation/check";
import type { ResourceContext } from "../../provider/lifecycle/types";
import type { ProgramFacts } from "../../provider/lifecycle/facts";
import { withMarker } from "../../provider/lifecycle/ownership";

// The preflights check asks the stack (provider/lifecycle/preflight.ts), called directly: what
// each refuses, in which words, and what it reads to decide (the branch listing is read once per
// client and read again for a branch it does not list).

let h: Harness;
let devId: string;
beforeAll(async () => {
  h = await startHarness({ taskDurationMs: 5 });
  const storage = h.ctx.client().storage;
  const job = await storage.waitJob(await storage.createDevBranch({ name: "preflight-dev", description: "" }), "test");
  devId = String(job.results!["id" as never]);
});
afterAll(async () => h?.close());
beforeEach(() => h.emu.clearRequests());

/** A context of its own, so each test starts with no listing cached. */
const fresh = (): ResourceContext & { call: { facts: ProgramFacts } } => ({ ...h.contextFor(MASTER_TOKEN), call: { facts: {} } });
const listings = () => h.emu.requests().filter((r) => r.method === "GET" && /\/v2\/storage\/dev-branches\/?(\?|$)/.test(r.path)).length;
const apiError = (status: number) => new KeboolaApiError(status, undefined, "no", { service: "storage", method: "GET", path: "/x" });

describe("preflights", () => {
  it("unlessForbidden: a 403 checks nothing, any other error is the error", async () => {
    await expect(unlessForbidden(Promise.reject(apiError(403)))).resolves.toBeUndefined();
    await expect(unlessForbidden(Promise.reject(apiError(400)))).rejects.toThrow("failed with 400");
    await expect(unlessForbidden(Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    await expect(unlessForbidden(Promise.resolve(5))).resolves.toBe(5);
  });

  it("isNew: a resource with no old inputs, or whose addressing fields changed; a field missing from both, or the default branch spelled out, is the same", () => {
    expect(isNew({}, { sourceId: "a" })).toBe(true);
    expect(isNew({ __owner: "x" }, { sourceId: "a" })).toBe(true);
    expect(isNew({ name: "n", sourceId: "a" }, { sourceId: "a" })).toBe(false);
    expect(isNew({ name: "n", sourceId: "a" }, { sourceId: "b" })).toBe(true);
    expect(isNew({ name: "n" }, { branchId: "default" })).toBe(false);
    expect(isNew({ name: "n", branchId: "default" }, { branchId: undefined })).toBe(false);
    expect(isNew({ name: "n" }, { branchId: "12" })).toBe(true);
    expect(isNew({ name: "n" }, { configId: undefined })).toBe(false);
    expect(isNew({ name: "n" }, { configId: "" })).toBe(false);
    expect(isNew({ name: "n" }, { configId: "default" })).toBe(true);
  });

  it("branchFailure: the default branch needs no request; a listed branch one listing per client; an unknown one names the project's branches", async () => {
    const ctx = fresh();
    expect(await branchFailure(ctx, "default")).toBeUndefined();
    expect(h.emu.requests()).toEqual([]);
    expect(await branchFailure(ctx, devId)).toBeUndefined();
    expect(await branchFailure(ctx, devId)).toBeUndefined();
    expect(listings()).toBe(1);
    const branches = await h.ctx.client().storage.devBranches();
    const named = branches.map((b) => (b.isDefault ? `${b.id} (default)` : String(b.id))).join(", ");
    h.emu.clearRequests();
    expect(await branchFailure(ctx, "999999")).toEqual({ property: "branchId", reason: `branch 999999 does not exist in the project (its branches: ${named}): use "default" or one of these ids` });
    // A branch not in the cached listing is looked for in a new one.
    expect(listings()).toBe(1);
    // One made since the cached listing is found in a new one.
    const storage = h.ctx.client().storage;
    const later = String((await storage.waitJob(await storage.createDevBranch({ name: "preflight-later", description: "" }), "test")).results!["id" as never]);
    expect(await branchFailure(ctx, later)).toBeUndefined();
    forgetBranches(ctx.client());
    h.emu.clearRequests();
    expect(await branchFailure(ctx, devId)).toBeUndefined();
    expect(listings()).toBe(1);
  });

  it("streamBranchFailure: an unknown branch is judged only by the program; a development branch is refused; the default one by its id passes", async () => {
    const ctx = fresh();
    expect(await streamBranchFailure(ctx, UNKNOWN)).toBeUndefined();
    expect(h.emu.requests()).toEqual([]);
    const dev = await streamBranchFailure(ctx, devId);
    expect(dev).toEqual({
      property: "branchId",
      reason: `branch ${devId} is a development branch, and the Stream service serves only the default branch (it answers "Currently only default branch is supported, branch "${devId}" is not default."; keboola/keboola-as-code internal/pkg/service/stream/dependencies/reqbranch.go): keep Stream sources, sinks and their settings in the default branch (branchId: "default")`,
    });
    const defaultId = String((await h.ctx.client().storage.devBranches()).find((b) => b.isDefault)!.id);
    expect(await streamBranchFailure(ctx, defaultId)).toBeUndefined();
    const declared = { ...ctx, call: { ...ctx.call, facts: { branch: { resource: "feature" } } } };
    expect((await streamBranchFailure(declared, UNKNOWN))?.reason).toBe(
      'branchId is the development branch of Branch "feature" of this program, and the Stream service serves only the default branch (it answers "Currently only default branch is supported, branch "<id>" is not default."; keboola/keboola-as-code internal/pkg/service/stream/dependencies/reqbranch.go): keep Stream sources, sinks and their settings in the default branch (branchId: "default")',
    );
  });

  it("declaredBranchFailure: a stack's own development branch, by name or not", () => {
    expect(declaredBranchFailure({}, "S", "F")).toBeUndefined();
    expect(declaredBranchFailure({ branch: { resource: STACK_BRANCH_RESOURCE, name: "dev-1" } }, "S", "F")?.reason).toBe(
      'this stack deploys into development branch "dev-1" (stack config keboola:branch), and S: declare them only in the production stack (in a program, when keboola.stackBranch() is undefined; a keboola.yaml manifest leaves them out of a development-branch stack itself)',
    );
    expect(declaredBranchFailure({ branch: { resource: STACK_BRANCH_RESOURCE } }, "S", "F")?.reason).toMatch(/^this stack deploys into development branch of its keboola:branch \(stack config/);
  });

  it("slots: an id of another owner is refused unless taken over, an owner's own passes, an unmarked one is nobody's; declared objects count against the limit", async () => {
    await createVia(source, h.ctx, "slot-held", { name: "slot-held" });
    const ctx = fresh();
    const p = { branchId: "default", sourceId: "slot-held", adoptExisting: false };
    expect(await sourceSlotFailure(ctx, p, ownerUrn("slot-held"), "name")).toBeUndefined();
    expect(await sourceSlotFailure(ctx, { ...p, adoptExisting: true }, ownerUrn("other"), "name")).toBeUndefined();
    expect((await sourceSlotFailure(ctx, p, ownerUrn("other"), "sourceId"))?.property).toBe("sourceId");
    expect((await sourceSlotFailure(ctx, p, undefined, "name"))?.reason).toMatch(/^source "slot-held" already exists in branch default and belongs to stack "test"/);
    // An unmarked source is nobody's: not this resource's either when its owner is not known.
    const s = await h.ctx.client().stream();
    await s.runTask(await s.createSource("default", { sourceId: "slot-bare", type: "http", name: "slot-bare", description: "" }), "test");
    expect((await sourceSlotFailure(fresh(), { ...p, sourceId: "slot-bare" }, undefined, "name"))?.property).toBe("name");
    await s.runTask(
      await s.createSink("default", "slot-bare", { sinkId: "bare-sink", type: "table", name: "bare-sink", description: "", allowedSignals: [], table: { type: "keboola", tableId: "in.c-pf.bare", mapping: { columns: [{ type: "body", name: "b" }] } } }),
      "test",
    );
    expect((await sinkSlotFailure(fresh(), { branchId: "default", sourceId: "slot-bare", sinkId: "bare-sink", adoptExisting: false }, undefined, {}, "name"))?.property).toBe("name");
    // Planned sources: unknown ids and this one's own are not counted, repeated ones once.
    const many = { ...ctx, call: { ...ctx.call, facts: { declaredBefore: Array.from({ length: 200 }, (_, i) => `planned-${i % 150}`).concat([UNKNOWN, "new-one", "slot-held"]) } } };
    const full = await sourceSlotFailure(many, { ...p, sourceId: "new-one" }, ownerUrn("x"), "name");
    expect(full?.reason).toMatch(/^in branch default already has \d+ sources and this program creates 150 more before this one \("planned-0", "planned-1", /);
  });

  it("sink slots: a source of this program not created yet, by its unknown id or its name; a missing source; an existing sink's owner", async () => {
    const ctx = fresh();
    const p = { branchId: "default", sourceId: UNKNOWN, sinkId: "s1", adoptExisting: false };
    expect(await sinkSlotFailure(ctx, p, ownerUrn("s"), {}, "name")).toBeUndefined();
    expect(await sinkSlotFailure(ctx, p, ownerUrn("s"), { declared: true }, "name")).toBeUndefined();
    const planned = await sinkSlotFailure(ctx, p, ownerUrn("s"), { declared: true, declaredBefore: Array.from({ length: 300 }, (_, i) => `k${i}`) }, "name");
    expect(planned?.reason).toMatch(/^in its source \(a Source of this program, created in this run\) already has 0 sinks and this program creates 300 more/);
    const missing = await sinkSlotFailure(ctx, { ...p, sourceId: "not-there" }, ownerUrn("s"), {}, "name");
    expect(missing).toEqual({
      property: "sourceId",
      reason: 'source "not-there" does not exist in branch default: pass the sourceId of a Source (for example events.sourceId, not the source\'s name), or create that source first',
    });
    const declaredMissing = await sinkSlotFailure(ctx, { ...p, sourceId: "not-there" }, ownerUrn("s"), { declared: true, declaredBefore: Array.from({ length: 300 }, (_, i) => `k${i}`) }, "name");
    expect(declaredMissing?.reason).toMatch(/^in source "not-there" \(created in this run\) already has 0 sinks/);
  });

  it("configuration slots: free, ours, taken over, or somebody else's", async () => {
    const ctx = fresh();
    const storage = h.ctx.client().storage;
    await storage.createConfig("default", "keboola.ex-generic-v2", { configurationId: "pf-cfg", name: "x", changeDescription: withMarker("Created", ownerUrn("cfg-owner")) });
    const p = { branchId: "default", componentId: "keboola.ex-generic-v2", configId: "pf-cfg", adoptExisting: false };
    h.emu.clearRequests();
    expect(await configSlotFailure(ctx, { ...p, configId: undefined }, ownerUrn("x"))).toBeUndefined();
    expect(h.emu.requests()).toEqual([]); // Keboola chooses the id: nothing to look up
    expect(await configSlotFailure(ctx, { ...p, configId: "pf-free" }, ownerUrn("x"))).toBeUndefined();
    expect(await configSlotFailure(ctx, { ...p, adoptExisting: true }, ownerUrn("x"))).toBeUndefined();
    const taken = await configSlotFailure(ctx, p, undefined);
    expect(taken?.property).toBe("configId");
    expect(taken?.reason).toMatch(/^configuration "pf-cfg" of keboola\.ex-generic-v2 already exists in branch default and belongs to /);
    // Unmarked: nobody's, so not this resource's when its owner is not known.
    await storage.createConfig("default", "keboola.ex-generic-v2", { configurationId: "pf-bare", name: "x", changeDescription: "by hand" });
    expect((await configSlotFailure(ctx, { ...p, configId: "pf-bare" }, undefined))?.property).toBe("configId");
  });

  it("componentFailure: a failed listing of the components is asked again by the next check", async () => {
    const ctx = fresh();
    const failed = await throttled(h, "GET", "/v2/storage", () => componentFailure(ctx, "keboola.ex-generic-v2", "default"));
    expect(failed).toBeInstanceOf(KeboolaApiError);
    expect(await componentFailure(ctx, "keboola.ex-generic-v2", "default")).toBeUndefined();
  });

  it("componentFailure: an id the index lacks, with the nearest one or where to find the right one", async () => {
    const ctx = fresh();
    expect((await componentFailure(ctx, "keboola.ex-genric-v2", "default"))?.reason).toMatch(/^"keboola\.ex-genric-v2" is not a component of this stack \(the Storage API index lists \d+\): did you mean "keboola\.ex-generic-v2"\?$/);
    expect((await componentFailure(ctx, "zz-nothing-alike", "default"))?.reason).toMatch(/^"zz-nothing-alike" is not a component of this stack \(the Storage API index lists \d+\): check the id in the component's page of the Keboola UI$/);
  });

  it("branchFailure: a failed listing of the branches is asked again by the next check", async () => {
    const ctx = fresh();
    const failed = await throttled(h, "GET", "/v2/storage/dev-branches", () => branchFailure(ctx, devId));
    expect(failed).toBeInstanceOf(KeboolaApiError);
    expect(await branchFailure(ctx, devId)).toBeUndefined();
  });
});
