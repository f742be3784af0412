import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FaultOptions } from "../../emulator/core/faults";
import { OWNER_KEY, withMarker } from "../../provider/resources/ownership";
import { branch } from "./hosted";
import { createVia, LIMITED_TOKEN, ownerUrn, startHarness, updateVia, withOneFault, type Harness } from "./harness";

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
