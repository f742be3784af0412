import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bucket } from "./hosted";
import { createVia, ownerUrn, startHarness, throttled, type Harness } from "./harness";
import { PartialFailure, type Props } from "../../provider/lifecycle/types";

// Bucket's read, update, adoption and delete against the emulator (provider/kinds/bucket.ts);
// storage.test.ts covers its create and its guards with tables.

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());
beforeEach(() => h.emu.clearRequests());

const storage = () => h.ctx.client().storage;
const writes = () => h.writes().filter((w) => !w.includes("/_emulator"));
/** Every request since the last clear, as "METHOD path" without the query. */
const asked = () => h.emu.requests().map((r) => `${r.method} ${r.path.replace(/\?.*$/, "")}`);
/** The owner marker a bucket carries. */
const marker = async (bucketId: string) => (await storage().findBucket("default", bucketId))?.metadata?.find((m) => m.key === "keboola-pulumi.owner")?.value;

describe("Bucket", () => {
  it("reads back what it created without drift; a display name declared equal to the name stays as declared", async () => {
    const made = await createVia(bucket, h.ctx, "plain", { stage: "out", name: "plain", description: "Plain", displayName: "plain" });
    const declared = { branchId: "default", stage: "out", name: "plain", description: "Plain", displayName: "plain", forceDelete: false, adoptExisting: false };
    expect(made.outs).toMatchObject({ ...declared, bucketId: "out.c-plain" });
    const read = await bucket.read(h.ctx, made.id, made.outs);
    expect(read).toMatchObject({ id: "out.c-plain", props: { ...declared, bucketId: "out.c-plain" }, inputs: declared });
    expect(read.inputs).not.toHaveProperty("bucketId");
  });

  it("notices a description and a display name changed by hand, and a bucket dropped by hand", async () => {
    const made = await createVia(bucket, h.ctx, "drift", { stage: "in", name: "drift", description: "Declared" });
    await storage().setBucketMetadata("default", "in.c-drift", "user", [{ key: "KBC.description", value: "Edited in the UI" }]);
    await storage().updateBucket("default", "in.c-drift", { displayName: "drift-shown" });
    const read = await bucket.read(h.ctx, made.id, made.outs);
    expect(read.inputs).toMatchObject({ description: "Edited in the UI", displayName: "drift-shown" });
    // Another provider's metadata under the same key is not the description.
    await storage().setBucketMetadata("default", "in.c-drift", "keboola-pulumi", [{ key: "KBC.description", value: "not the description" }]);
    expect((await bucket.read(h.ctx, made.id, made.outs)).inputs).toMatchObject({ description: "Edited in the UI" });
    await storage().deleteBucket("default", "in.c-drift", false, "test");
    expect(await bucket.read(h.ctx, made.id, made.outs)).toEqual({ id: "" });
    // Read from the id alone (state without the bucket's id or branch).
    const other = await createVia(bucket, h.ctx, "by-id", { stage: "in", name: "by-id" });
    expect((await bucket.read(h.ctx, other.id, {})).props).toMatchObject({ branchId: "default", bucketId: "in.c-by-id", forceDelete: false, adoptExisting: false });
  });

  it("updates the description and the display name in place, writing only what differs", async () => {
    const made = await createVia(bucket, h.ctx, "upd", { stage: "in", name: "upd", description: "One" });
    h.emu.clearRequests();
    const same = await bucket.update(h.ctx, made.id, made.outs, { ...made.inputs });
    expect(writes()).toEqual([]);
    expect(same.outs).toMatchObject({ description: "One", bucketId: "in.c-upd" });
    const changed = await bucket.update(h.ctx, made.id, made.outs, { ...made.inputs, description: "Two", displayName: "upd-shown" });
    expect(changed.outs).toMatchObject({ description: "Two", displayName: "upd-shown" });
    expect(writes()).toEqual(["POST /v2/storage/buckets/in.c-upd/metadata", "PUT /v2/storage/buckets/in.c-upd"]);
    const remote = await storage().findBucket("default", "in.c-upd");
    expect([remote?.displayName, remote?.metadata?.find((m) => m.provider === "user" && m.key === "KBC.description")?.value]).toEqual(["upd-shown", "Two"]);
    // Back to no display name: the service's default, the name without c-.
    h.emu.clearRequests();
    const back = await bucket.update(h.ctx, made.id, changed.outs, { ...made.inputs, description: "Two" });
    expect(writes()).toEqual(["PUT /v2/storage/buckets/in.c-upd"]);
    expect((await storage().findBucket("default", "in.c-upd"))?.displayName).toBe("upd");
    expect(back.outs).not.toHaveProperty("displayName");
  });

  it("takes the description from the user's metadata, else the bucket's own, never another provider's", async () => {
    const made = await createVia(bucket, h.ctx, "desc", { stage: "in", name: "desc", description: "At create" });
    await storage().setBucketMetadata("default", "in.c-desc", "system", [{ key: "KBC.description", value: "not the description" }]);
    expect((await bucket.read(h.ctx, made.id, made.outs)).inputs).toMatchObject({ description: "At create" });
  });

  it("leaves alone a display name equal to the bucket's full name (c- included) when none is declared", async () => {
    const made = await createVia(bucket, h.ctx, "legacy", { stage: "in", name: "legacy" });
    await storage().updateBucket("default", "in.c-legacy", { displayName: "c-legacy" });
    h.emu.clearRequests();
    await bucket.update(h.ctx, made.id, made.outs, { ...made.inputs });
    expect(writes()).toEqual([]);
  });

  it("an update of a bucket dropped by hand says to refresh", async () => {
    const made = await createVia(bucket, h.ctx, "gone-upd", { stage: "in", name: "gone-upd" });
    await storage().deleteBucket("default", "in.c-gone-upd", false, "test");
    await expect(bucket.update(h.ctx, made.id, made.outs, { ...made.inputs, description: "x" })).rejects.toThrow(
      'Bucket "in.c-gone-upd" (resource "gone-upd") no longer exists: run `pulumi refresh` so Pulumi recreates it',
    );
  });

  it("adopts an existing bucket and brings it to the declared description and display name", async () => {
    await storage().createBucket("default", { name: "adopted", stage: "in", description: "By hand" });
    const made = await createVia(bucket, h.ctx, "adopted", { stage: "in", name: "adopted", description: "Declared", displayName: "adopted-x", adoptExisting: true });
    expect(made.outs).toMatchObject({ description: "Declared", displayName: "adopted-x", bucketId: "in.c-adopted" });
    expect(await marker("in.c-adopted")).toBe(ownerUrn("adopted"));
  });

  it("adopting a bucket another resource created moves its marker to the adopter", async () => {
    const declared = { stage: "in", name: "handed-over", description: "" };
    await createVia(bucket, h.ctx, "former", declared);
    expect(await marker("in.c-handed-over")).toBe(ownerUrn("former"));
    await createVia(bucket, h.ctx, "adopter", { ...declared, adoptExisting: true });
    expect(await marker("in.c-handed-over")).toBe(ownerUrn("adopter"));
  });

  it("after a lost answer, takes over the bucket its own create made (alreadyExists), and refuses another stack's", async () => {
    // What the first attempt left: the bucket with this resource's marker.
    const b = await storage().createBucket("default", { name: "retried", stage: "in", description: "" });
    await storage().setBucketMetadata("default", b.id, "keboola-pulumi", [{ key: "keboola-pulumi.owner", value: ownerUrn("retried") }]);
    const inputs: Props = { __resourceName: "retried", __owner: ownerUrn("retried"), branchId: "default", stage: "in", name: "retried", description: "Now", forceDelete: false, adoptExisting: false };
    const made = await bucket.create(h.ctx, inputs);
    expect(made.outs).toMatchObject({ bucketId: "in.c-retried", description: "Now" });
    const theirs = { ...inputs, __resourceName: "theirs", __owner: ownerUrn("retried", "other-stack") };
    await expect(bucket.create(h.ctx, theirs)).rejects.toThrow(/^Bucket "in\.c-retried" \(resource "theirs"\) already exists in branch default and belongs to stack "test"/);
  });

  it("deleting a bucket that is already gone succeeds without a write", async () => {
    const made = await createVia(bucket, h.ctx, "gone-del", { stage: "in", name: "gone-del" });
    await storage().deleteBucket("default", "in.c-gone-del", false, "test");
    h.emu.clearRequests();
    await bucket.delete(h.ctx, made.id, made.outs);
    expect(writes()).toEqual([]);
  });
});

describe("Bucket in detail", () => {
  const check = (name: string, news: Props, olds: Props = {}, owner = ownerUrn(name)) => bucket.check(h.ctx, olds, { __resourceName: name, __owner: owner, ...news });
  // A table made by hand (no marker): no stack's.
  const foreignTable = async (bucketId: string, name: string) =>
    storage().waitJob(await storage().createTableDefinition("default", bucketId, { name, primaryKeysNames: [], columns: [{ name: "a", definition: { type: "VARCHAR" } }] }), "table");

  it("counts an unmarked bucket as this resource's only when it is what its own create makes: empty, with the declared description", async () => {
    await storage().createBucket("default", { name: "unmarked", stage: "in", description: "Same" });
    expect((await check("unmarked", { stage: "in", name: "unmarked", description: "Same" })).failures).toEqual([]);
    expect((await check("unmarked", { stage: "in", name: "unmarked", description: "Other" })).failures).toEqual([
      { property: "name", reason: 'bucket "in.c-unmarked" already exists and belongs to nobody recorded (not created by keboola-pulumi, or its marker was edited away): choose another name, or set adoptExisting: true to take it over' },
    ]);
    await foreignTable("in.c-unmarked", "t");
    expect((await check("unmarked", { stage: "in", name: "unmarked", description: "Same" })).failures?.map((f) => f.property)).toEqual(["name"]);
    // Another stack's marked bucket is refused as that stack's.
    await createVia(bucket, h.ctx, "marked", { stage: "in", name: "marked", __owner: ownerUrn("marked", "other-stack") });
    expect((await check("marked", { stage: "in", name: "marked" })).failures).toEqual([{ property: "name", reason: expect.stringMatching(/^bucket "in\.c-marked" already exists and belongs to stack "other-stack"/) }]);
  });

  it("after a lost answer, marks the empty bucket its own create made, and does not mark again one marked already", async () => {
    await storage().createBucket("default", { name: "lost-unmarked", stage: "in", description: "" });
    const inputs: Props = { __resourceName: "lost-unmarked", __owner: ownerUrn("lost-unmarked"), branchId: "default", stage: "in", name: "lost-unmarked", description: "", forceDelete: false, adoptExisting: false };
    await bucket.create(h.ctx, inputs);
    expect(await marker("in.c-lost-unmarked")).toBe(ownerUrn("lost-unmarked"));
    h.emu.clearRequests();
    await bucket.create(h.ctx, inputs);
    // Only the refused create: the marker is there, the bucket as declared.
    expect(writes()).toEqual(["POST /v2/storage/buckets"]);
  });

  it("creates with the declared display name; a failed write after the create leaves the bucket in the state", async () => {
    await createVia(bucket, h.ctx, "shown", { stage: "in", name: "shown", displayName: "Shown-in-UI" });
    expect((await storage().findBucket("default", "in.c-shown"))?.displayName).toBe("Shown-in-UI");
    const inputs = (await check("half", { stage: "in", name: "half" })).inputs as Props;
    const failed = await throttled(h, "POST", "/v2/storage/buckets/in.c-half/metadata", () => bucket.create(h.ctx, inputs));
    expect(failed).toBeInstanceOf(PartialFailure);
    expect(failed).toMatchObject({ id: "in.c-half", properties: { bucketId: "in.c-half", name: "half" } });
    expect((failed as Error).message).toMatch(/^Bucket "in\.c-half" \(resource "half"\): POST \/v2\/storage\/buckets\/in\.c-half\/metadata \(storage\) failed with 429/);
  });

  it("a check asks the stack only what it needs: nothing for a deployed bucket that keeps its id, the new id alone for a new one", async () => {
    const made = await createVia(bucket, h.ctx, "kept", { stage: "in", name: "kept", description: "D" });
    h.emu.clearRequests();
    expect((await bucket.check(h.ctx, made.inputs, { ...made.inputs, description: "Changed" })).failures).toEqual([]);
    expect(asked()).toEqual([]);
    expect((await check("fresh", { stage: "in", name: "fresh" })).failures).toEqual([]);
    expect(asked()).toEqual(["GET /v2/storage/buckets/in.c-fresh"]);
    // A new name for a deployed bucket is a new id: checked like a new bucket's.
    await createVia(bucket, h.ctx, "holder", { stage: "in", name: "held" });
    expect((await check("kept", { ...made.inputs, name: "held" }, made.inputs)).failures).toEqual([
      { property: "name", reason: expect.stringMatching(/^bucket "in\.c-held" already exists and belongs to stack "test" of project "harness", resource keboola:Resource "holder": /) },
    ]);
  });

  it("an update that changes nothing reads the bucket once and writes nothing", async () => {
    const made = await createVia(bucket, h.ctx, "still", { stage: "in", name: "still", description: "D" });
    h.emu.clearRequests();
    await bucket.update(h.ctx, made.id, made.outs, made.inputs);
    expect(asked()).toEqual(["GET /v2/storage/buckets/in.c-still"]);
  });

  it("refuses at preview a replacement whose delete would drop another stack's tables, saying when the old bucket goes, unless its recorded forceDelete gives them up", async () => {
    const made = await createVia(bucket, h.ctx, "moving", { stage: "in", name: "moving", displayName: "moving-shown" });
    await foreignTable("in.c-moving", "foreign");
    const renamed = await check("moving", { stage: "in", name: "moved", displayName: "moving-shown" }, made.outs);
    expect(renamed.failures?.[0]).toMatchObject({
      property: "name",
      reason: expect.stringMatching(/^changing name replaces the bucket, and it keeps the display name, which the service keeps unique in the stage, so bucket "in\.c-moving" is deleted before the new one is created; it holds 1 table\(s\) this stack does not manage \(in\.c-moving\.foreign\)\. Move or drop them first, or set forceDelete: true and run `pulumi up` before this change/),
    });
    const newName = await check("moving", { stage: "in", name: "moved", displayName: "moved-shown" }, made.outs);
    expect(newName.failures?.[0]?.reason).toMatch(/^changing name replaces the bucket, and bucket "in\.c-moving" is deleted once the new one exists; it holds 1 table/);
    expect((await check("moving", { stage: "in", name: "moved", displayName: "moved-shown" }, { ...made.outs, forceDelete: true })).failures).toEqual([]);
  });
});
