import { describe, expect, it } from "vitest";
import { createStreamObject as createOnce } from "../../provider/lifecycle/stream-create";
import { OwnershipConflict } from "../../provider/lifecycle/ownership";
import { KeboolaApiError, KeboolaNetworkError, KeboolaTaskError } from "../../provider/api/errors";
import type { StreamTask } from "../../provider/api/stream";

// createOnce decides, after each kind of failure, whether the object is ours, somebody else's,
// absent (create again) or left behind by a failed task.

const info = { service: "stream" as const, method: "POST", path: "/v1/x" };
const task = { taskId: "t", isFinished: false } as StreamTask;
const reset = () => new KeboolaNetworkError(info, "ECONNRESET", true);
const MINE = "urn:pulumi:dev::app::pulumi-nodejs:dynamic/keboola:Source::events";
const THEIRS = "urn:pulumi:prod::app::pulumi-nodejs:dynamic/keboola:Source::events";
// keboola/keboola-as-code api/stream/design.go: CreateSource answers SourceAlreadyExistsError (409).
const conflict409 = () => new KeboolaApiError(409, "stream.api.sourceAlreadyExists", 'Source "x" already exists in the branch.', info);

interface Steps {
  creates: Array<() => StreamTask>;
  visibleAfterFinds: number;
  taskFails?: boolean;
  owner?: string;
  adoptExisting?: boolean;
}

function scenario(steps: Steps) {
  const calls = { create: 0, find: 0, runTask: 0 };
  const op = {
    label: 'Source "x"',
    where: "in branch 1",
    owner: MINE as string | undefined,
    adoptExisting: steps.adoptExisting ?? false,
    fix: "Choose another sourceId.",
    find: async () => (++calls.find > steps.visibleAfterFinds ? { id: "x", owner: steps.owner ?? MINE } : undefined),
    ownerOf: (o: { owner: string }) => o.owner,
    create: async () => steps.creates[calls.create++]!(),
    runTask: async () => {
      calls.runTask++;
      if (steps.taskFails) throw new KeboolaTaskError("t", "Unknown error", 'Source "x"');
      return { ...task, isFinished: true, status: "success" as const };
    },
    leftBehind: (_o: unknown, err: Error): never => {
      throw Object.assign(new Error(`left behind: ${err.message}`), { leftBehind: true });
    },
  };
  return { calls, op, run: () => createOnce(op) };
}

describe("createOnce", () => {
  it("creates and waits for the task", async () => {
    const s = scenario({ creates: [() => task], visibleAfterFinds: 0 });
    await expect(s.run()).resolves.toEqual({ object: { id: "x", owner: MINE }, existed: false });
    expect(s.calls).toEqual({ create: 1, find: 1, runTask: 1 });
  });

  it("takes the created object from the finished task when it can, without reading it back", async () => {
    const s = scenario({ creates: [() => task], visibleAfterFinds: 0 });
    const fromTask = { id: "from-task", owner: MINE };
    await expect(createOnce({ ...s.op, fromTask: () => fromTask })).resolves.toEqual({ object: fromTask, existed: false });
    expect(s.calls).toEqual({ create: 1, find: 0, runTask: 1 });
  });

  it("after an ambiguous failure, takes over the object carrying its own marker without creating again", async () => {
    const s = scenario({ creates: [() => { throw reset(); }], visibleAfterFinds: 0 });
    await expect(s.run()).resolves.toMatchObject({ existed: true });
    expect(s.calls.create).toBe(1);
  });

  it("after a 5xx to the create (processed or not), reads back before anything else", async () => {
    const s = scenario({ creates: [() => { throw new KeboolaApiError(502, undefined, "Bad Gateway", info); }, () => task], visibleAfterFinds: 1 });
    await expect(s.run()).resolves.toMatchObject({ existed: false });
    expect(s.calls).toMatchObject({ create: 2, runTask: 1 });
  });

  it("after an ambiguous failure and no object, creates again and runs that task", async () => {
    const s = scenario({ creates: [() => { throw reset(); }, () => task], visibleAfterFinds: 1 });
    await expect(s.run()).resolves.toMatchObject({ existed: false });
    expect(s.calls).toMatchObject({ create: 2, runTask: 1 });
  });

  it("treats a 409 as an object in flight: waits until it is readable, then checks its owner", async () => {
    const s = scenario({ creates: [() => { throw reset(); }, () => { throw conflict409(); }], visibleAfterFinds: 3 });
    await expect(s.run()).resolves.toMatchObject({ existed: true });
    expect(s.calls).toMatchObject({ create: 2, runTask: 0 });
  });

  it("refuses an object of another stack found after a 409, naming both owners", async () => {
    const s = scenario({ creates: [() => { throw conflict409(); }], visibleAfterFinds: 0, owner: THEIRS });
    const err = await s.run().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OwnershipConflict);
    expect((err as Error).message).toMatch(/belongs to stack "prod" of project "app".*this resource is stack "dev" of project "app"/);
    expect((err as Error).message).toMatch(/Choose another sourceId/);
  });

  it("refuses an object of another stack found after a lost answer (never takes it silently)", async () => {
    const s = scenario({ creates: [() => { throw reset(); }], visibleAfterFinds: 0, owner: THEIRS });
    await expect(s.run()).rejects.toBeInstanceOf(OwnershipConflict);
  });

  it("takes over an unmarked object only with adoptExisting", async () => {
    const unmarked = { creates: [() => { throw conflict409(); }], visibleAfterFinds: 0, owner: "" };
    await expect(scenario(unmarked).run()).rejects.toBeInstanceOf(OwnershipConflict);
    await expect(scenario({ ...unmarked, adoptExisting: true }).run()).resolves.toMatchObject({ existed: true });
  });

  it("rethrows a definite rejection without a second create", async () => {
    const bad = new KeboolaApiError(400, "stream.api.badRequest", "bad", info);
    const s = scenario({ creates: [() => { throw bad; }], visibleAfterFinds: 0 });
    await expect(s.run()).rejects.toBe(bad);
    expect(s.calls).toEqual({ create: 1, find: 0, runTask: 0 });
  });

  it("reports an object left behind by a failed task so it stays tracked", async () => {
    const s = scenario({ creates: [() => task], visibleAfterFinds: 0, taskFails: true });
    await expect(s.run()).rejects.toMatchObject({ leftBehind: true, message: expect.stringContaining("Unknown error") });
  });

  it("passes a failed task on when nothing was left behind", async () => {
    const s = scenario({ creates: [() => task], visibleAfterFinds: 99, taskFails: true });
    await expect(s.run()).rejects.toBeInstanceOf(KeboolaTaskError);
  });
});
