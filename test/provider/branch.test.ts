import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PartialFailure, type Props } from "../../provider/lifecycle/types";
import { UNKNOWN } from "../../provider/validation/check";
import type { FaultOptions } from "../../emulator/core/faults";
import { OWNER_KEY, withMarker } from "../../provider/lifecycle/ownership";
import { branch } from "./hosted";
import { createVia, LIMITED_TOKEN, ownerUrn, startHarness, throttled, updateVia, withOneFault, type Harness } from "./harness";

// The Branch kind against the emulator's dev-branch endpoints (emulator/storage/branches.ts, which
// cites keboola/storage-api-php-client tests/Common/DevBranchesTest.php and keboola-sdk-go
// pkg/keboola/storage_branch.go): create and delete through their Storage jobs, exactly once
// under a lost answer, a 5xx and a crash during the create job, and refusals at preview.

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ taskDurationMs: 20 });
});
afterAll(async () => {
  await h?.close();
});

const storage = () => h.ctx.client().storage;
const named = async (name: string) => (await storage().devBranches()).filter((b) => b.name === name);
const createJobs = (name: string) => Object.values(h.emu.state.storage.jobs).filter((j) => j.operationName === "devBranchCreate" && j.work.name === name);

describe("Branch", () => {
  it("creates a branch whose metadata names its owner and whose description is the declared one; renames and describes it in place; deletes it, and a second delete succeeds", async () => {
    const made = await createVia(branch, h.ctx, "pr-1", { name: "pr-1", description: "Pull request 1" });
    expect(made.outs).toMatchObject({ name: "pr-1", description: "Pull request 1", branchId: made.id });
    const [b] = await named("pr-1");
    expect(String(b.id)).toBe(made.id);
    expect(b.description).toBe("Pull request 1");
    expect((await storage().branchMetadata(made.id)).find((m) => m.key === OWNER_KEY)?.value).toBe(ownerUrn("pr-1"));

    const read = await branch.read(h.ctx, made.id, made.outs);
    expect(read.props).toMatchObject({ name: "pr-1", description: "Pull request 1" });

    const renamed = await updateVia(branch, h.ctx, "pr-1", made.id, made.outs, made.inputs, { name: "pr-1-renamed", description: "Renamed" });
    expect(renamed.diff.changes).toBe(true);
    expect(renamed.outs).toMatchObject({ name: "pr-1-renamed", description: "Renamed", branchId: made.id });
    expect((await storage().findDevBranch(made.id))?.name).toBe("pr-1-renamed");

    // No change: no write.
    const before = h.writes().length;
    const again = await updateVia(branch, h.ctx, "pr-1", made.id, renamed.outs, renamed.inputs, { name: "pr-1-renamed", description: "Renamed" });
    expect(again.diff.changes).toBe(false);
    expect(h.writes().length).toBe(before);

    await branch.delete(h.ctx, made.id, renamed.outs);
    expect(await storage().findDevBranch(made.id)).toBeUndefined();
    await branch.delete(h.ctx, made.id, renamed.outs);
    expect((await branch.read(h.ctx, made.id, renamed.outs)).id).toBe("");
  });

  const FAULTS = { lost: { rateLostResponse: 1 }, "5xx": { rate5xx: 1 } } satisfies Record<string, FaultOptions>;
  for (const kind of ["lost", "5xx"] as const) {
    it(`a ${kind} answer to the create leaves exactly one branch, recognised as this resource's`, async () => {
      const name = `faulted-${kind}`;
      const made = await withOneFault(h, kind, FAULTS[kind], "POST", "/v2/storage/dev-branches", () => createVia(branch, h.ctx, name, { name }));
      expect(await named(name)).toHaveLength(1);
      expect(createJobs(name).filter((j) => j.status === "success")).toHaveLength(1);
      expect((await storage().branchMetadata(made.id)).find((m) => m.key === OWNER_KEY)?.value).toBe(ownerUrn(name));
      expect((await storage().findDevBranch(made.id))?.description).toBe("");
    });
  }

  it("a crash during the create job: the next up finds the branch by its name and the marker its create carried, and creates none", async () => {
    const name = "crashed";
    // What the crashed `up` sent before it died: the create, carrying the owner marker.
    await storage().createDevBranch({ name, description: withMarker("", ownerUrn(name)) });
    const made = await createVia(branch, h.ctx, name, { name });
    expect(await named(name)).toHaveLength(1);
    expect(createJobs(name)).toHaveLength(1);
    expect((await storage().branchMetadata(made.id)).find((m) => m.key === OWNER_KEY)?.value).toBe(ownerUrn(name));
    expect((await storage().findDevBranch(made.id))?.description).toBe("");
  });

  it("refuses at preview, writing nothing: a name another stack's branch has, the default branch's name, and a token that cannot create branches", async () => {
    await createVia(branch, h.ctx, "theirs", { name: "theirs", __owner: ownerUrn("theirs", "other-stack") });
    const before = h.writes().length;
    const taken = await branch.check(h.ctx, {}, { __resourceName: "mine", __owner: ownerUrn("mine"), name: "theirs" });
    expect(taken.failures).toEqual([
      { property: "name", reason: expect.stringMatching(/^branch name "theirs" is taken: branch \d+ has it and belongs to stack "other-stack" of project "harness", resource .* "theirs": choose another name, or set adoptExisting: true to take that branch over$/) },
    ]);
    const main = await branch.check(h.ctx, {}, { __resourceName: "main", __owner: ownerUrn("main"), name: "Main" });
    expect(main.failures?.[0]?.reason).toMatch(/^branch name "Main" is the name of the default \(production\) branch: choose another name$/);
    const limited = await branch.check(h.contextFor(LIMITED_TOKEN), {}, { __resourceName: "lim", __owner: ownerUrn("lim"), name: "lim" });
    expect(limited.failures?.[0]).toMatchObject({ property: "name", reason: expect.stringMatching(/is not a master token, and only a master token creates development branches/) });
    // A guest's master token creates branches but deletes none (emulator/storage/branches.ts cites DevBranchesTest).
    h.emu.state.tokens.push({ ...h.emu.state.tokens[0]!, id: "1099", token: "guest-token-branch-test", description: "Guest", admin: { id: 9, name: "Guest", role: "guest" } });
    const guest = await branch.check(h.contextFor("guest-token-branch-test"), {}, { __resourceName: "g", __owner: ownerUrn("g"), name: "g" });
    expect(guest.failures?.[0]?.reason).toMatch(/belongs to a guest, who may create development branches but not delete them, so `pulumi destroy` could not remove this one/);
    expect(h.writes().length).toBe(before);
  });

  it("adoptExisting takes over a branch made by hand, recording its owner and the declared description", async () => {
    await storage().waitJob(await storage().createDevBranch({ name: "by-hand", description: "made in the UI" }), "branch");
    const made = await createVia(branch, h.ctx, "adopted", { name: "by-hand", description: "now managed", adoptExisting: true });
    expect(await named("by-hand")).toHaveLength(1);
    expect((await storage().findDevBranch(made.id))?.description).toBe("now managed");
    expect((await storage().branchMetadata(made.id)).find((m) => m.key === OWNER_KEY)?.value).toBe(ownerUrn("adopted"));
  });
});

describe("Branch in detail", () => {
  const check = (news: Props, olds: Props = {}, c = h.ctx) => branch.check(c, olds, { __resourceName: "detail", __owner: ownerUrn("detail"), ...news });
  const byHand = async (name: string) => String((await storage().waitJob(await storage().createDevBranch({ name, description: "made in the UI" }), "branch")).results!["id" as never]);
  const branchReads = () => h.emu.requests().filter((r) => r.method === "GET" && r.path.startsWith("/v2/storage/dev-branches"));

  it("refuses a bad name without asking the service anything", async () => {
    h.emu.clearRequests();
    expect((await check({ name: "  " })).failures).toEqual([{ property: "name", reason: "must not be empty: name the branch (e.g. the pull request, `pr-12`)" }]);
    expect((await check({ name: "x".repeat(256) })).failures).toEqual([{ property: "name", reason: "must be at most 255 characters: shorten it" }]);
    expect(h.emu.requests()).toEqual([]);
    // A name not known yet (another resource's output): the defaults, and the token is asked about
    // (that needs no name), the name is not looked up.
    const pending = await check({ name: UNKNOWN });
    expect(pending).toEqual({ inputs: expect.objectContaining({ name: UNKNOWN, description: "", adoptExisting: false }), failures: [] });
    expect(branchReads()).toEqual([]);
    expect((await check({ name: UNKNOWN }, {}, h.contextFor(LIMITED_TOKEN))).failures?.map((f) => f.property)).toEqual(["name"]);
  });

  it("says which token cannot create branches and why", async () => {
    const limited = h.emu.state.tokens.find((t) => t.token === LIMITED_TOKEN)!;
    expect((await check({ name: "lim" }, {}, h.contextFor(LIMITED_TOKEN))).failures).toEqual([
      { property: "name", reason: `the token "${limited.description}" (id ${limited.id}) is not a master token, and only a master token creates development branches: use a master token of a project admin (Keboola: Users & Settings > API Tokens)` },
    ]);
    h.emu.state.tokens.push({ ...h.emu.state.tokens[0]!, id: "1098", token: "read-only-token-branch-test", description: "Reader", admin: { id: 8, name: "Reader", role: "readOnly" } });
    expect((await check({ name: "ro" }, {}, h.contextFor("read-only-token-branch-test"))).failures).toEqual([
      { property: "name", reason: 'the token "Reader" (id 1098) belongs to a read-only user, who cannot create development branches: use the master token of a user with another role' },
    ]);
    // A deployed branch is not created again: its check does not ask whether the token could.
    const made = await createVia(branch, h.ctx, "kept", { name: "kept" });
    expect((await check({ name: "kept", description: "new" }, made.outs, h.contextFor(LIMITED_TOKEN))).failures).toEqual([]);
  });

  it("once deployed, looks the name up only when it changes; a new name taken by another branch is refused, one this branch has already is not", async () => {
    const made = await createVia(branch, h.ctx, "detail", { name: "detail-1" });
    // Checked again from scratch (a state lost after the create): the branch is this resource's own.
    expect((await check({ name: "detail-1" })).failures).toEqual([]);
    h.emu.clearRequests();
    expect((await check({ name: "detail-1", description: "changed" }, made.outs)).failures).toEqual([]);
    expect(branchReads()).toEqual([]);
    const other = await byHand("detail-other");
    expect((await check({ name: "detail-other" }, made.outs)).failures).toEqual([
      { property: "name", reason: expect.stringMatching(new RegExp(`^branch name "detail-other" is taken: branch ${other} has it and belongs to nobody`)) },
    ]);
    // Renamed by hand to the new name already: it is this branch (its id), not a taken name.
    await storage().updateDevBranch(made.id, { name: "detail-2" });
    expect((await check({ name: "detail-2" }, made.outs)).failures).toEqual([]);
    // The same name on another branch than the one in the state is taken.
    const stranger = (olds: Props) => branch.check(h.ctx, olds, { __resourceName: "stranger", __owner: ownerUrn("stranger"), name: "detail-2" });
    expect((await stranger(made.outs)).failures).toEqual([]);
    expect((await stranger({ ...made.outs, branchId: other })).failures?.map((f) => f.property)).toEqual(["name"]);
  });

  it("a branch with no owner is nobody's: a resource without an owner does not take it as its own", async () => {
    const id = await byHand("ownerless");
    // Metadata of its own that is not an owner.
    await storage().setBranchMetadata(id, [{ key: "note", value: ownerUrn("anon") }]);
    const refused = await branch.check(h.ctx, {}, { __resourceName: "anon", name: "ownerless" });
    expect(refused.failures).toEqual([{ property: "name", reason: expect.stringMatching(/^branch name "ownerless" is taken: branch \d+ has it and belongs to nobody/) }]);
  });

  it("a create that finds another stack's branch under the name (taken since the preview) says so and takes nothing over", async () => {
    await createVia(branch, h.ctx, "raced", { name: "raced", __owner: ownerUrn("raced", "other-stack") });
    await expect(branch.create(h.ctx, { __resourceName: "mine", __owner: ownerUrn("mine"), name: "raced", description: "", adoptExisting: false })).rejects.toThrow(
      /^Branch "raced" \(resource "mine"\) already exists in the project and belongs to stack "other-stack" .*Nothing was taken over\. Choose another name, or set adoptExisting: true to take this branch over\.$/,
    );
  });

  it("a rerun of a create that finished writes nothing more; a failed write after the create leaves the branch in the state", async () => {
    const made = await createVia(branch, h.ctx, "rerun", { name: "rerun", description: "Declared" });
    h.emu.clearRequests();
    const again = await branch.create(h.ctx, made.inputs);
    expect(again.id).toBe(made.id);
    // Only the refused create: no metadata or description write.
    expect(h.writes()).toEqual(["POST /v2/storage/dev-branches"]);

    const failed = await throttled(h, "POST", "/v2/storage/branch/", () => createVia(branch, h.ctx, "unmarked", { name: "unmarked", description: "Declared" }));
    expect(failed).toBeInstanceOf(PartialFailure);
    const [b] = await named("unmarked");
    expect(failed).toMatchObject({ id: String(b!.id), properties: { name: "unmarked", branchId: String(b!.id) } });
    expect((failed as Error).message).toMatch(/^Branch "unmarked" \(resource "unmarked"\): POST \/v2\/storage\/branch\/\d+\/metadata \(storage\) failed with 429/);
  });

  it("reads adoptExisting from the state (false when it says nothing); an update writes only what differs, nothing when nothing does; a branch gone says to refresh", async () => {
    const made = await createVia(branch, h.ctx, "upd", { name: "upd", description: "One" });
    expect((await branch.read(h.ctx, made.id, {})).props).toMatchObject({ adoptExisting: false, name: "upd", description: "One", branchId: made.id });
    expect((await branch.read(h.ctx, made.id, { adoptExisting: true })).props).toMatchObject({ adoptExisting: true });
    h.emu.clearRequests();
    await branch.update(h.ctx, made.id, made.outs, made.inputs);
    expect(h.writes()).toEqual([]);
    await branch.update(h.ctx, made.id, made.outs, { ...made.inputs, description: "Two" });
    expect(h.writes()).toEqual([`PUT /v2/storage/dev-branches/${made.id}`]);
    await branch.delete(h.ctx, made.id, made.outs);
    await expect(branch.update(h.ctx, made.id, made.outs, made.inputs)).rejects.toThrow(/^Branch "upd" \(resource "upd"\) no longer exists: run `pulumi refresh` so Pulumi recreates it$/);
  });
});
