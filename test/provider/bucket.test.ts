import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bucket } from "./hosted";
import { createVia, ownerUrn, startHarness, type Harness } from "./harness";
import type { Props } from "../../provider/resources/types";

// Bucket's read, update, adoption and delete against the emulator (provider/resources/bucket.ts);
// storage.test.ts covers its create and its guards with tables.

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());
beforeEach(() => h.emu.clearRequests());

const storage = () => h.ctx.client().storage;
const writes = () => h.writes().filter((w) => !w.includes("/_emulator"));

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
    const remote = await storage().findBucket("default", "in.c-adopted");
    expect(remote?.metadata?.find((m) => m.key === "keboola-pulumi.owner")?.value).toBe(ownerUrn("adopted"));
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
