import { describe, expect, it } from "vitest";
import { createOnce } from "../../provider/resources/stream-create";
import { KeboolaApiError, KeboolaNetworkError, KeboolaTaskError } from "../../provider/api/errors";
import type { StreamTask } from "../../provider/api/stream";

// createOnce decides, after each kind of failure, whether the object is ours, gone, or left behind.

const info = { service: "stream" as const, method: "POST", path: "/v1/x" };
const task = { taskId: "t", isFinished: false } as StreamTask;
const reset = () => new KeboolaNetworkError(info, "ECONNRESET", true);

function scenario(steps: { creates: Array<() => StreamTask>; visibleAfterFinds: number; taskFails?: boolean }) {
  const calls = { create: 0, find: 0, runTask: 0 };
  const op = {
    label: "Source \"x\"",
    find: async () => (++calls.find > steps.visibleAfterFinds ? { id: "x" } : undefined),
    create: async () => steps.creates[calls.create++]!(),
    runTask: async () => {
      calls.runTask++;
      if (steps.taskFails) throw new KeboolaTaskError("t", "Unknown error", "Source \"x\"");
    },
    leftBehind: (_o: { id: string }, err: Error): never => {
      throw Object.assign(new Error(`left behind: ${err.message}`), { leftBehind: true });
    },
  };
  return { calls, run: () => createOnce(op) };
}

describe("createOnce", () => {
  it("creates and waits for the task", async () => {
    const s = scenario({ creates: [() => task], visibleAfterFinds: 0 });
    await expect(s.run()).resolves.toEqual({ id: "x" });
    expect(s.calls).toEqual({ create: 1, find: 1, runTask: 1 });
  });

  it("after an ambiguous failure, does not create again when the object is there", async () => {
    const s = scenario({ creates: [() => { throw reset(); }], visibleAfterFinds: 0 });
    await expect(s.run()).resolves.toEqual({ id: "x" });
    expect(s.calls.create).toBe(1);
  });

  it("after an ambiguous failure and no object, creates again and runs that task", async () => {
    const s = scenario({ creates: [() => { throw reset(); }, () => task], visibleAfterFinds: 1 });
    await expect(s.run()).resolves.toEqual({ id: "x" });
    expect(s.calls).toMatchObject({ create: 2, runTask: 1 });
  });

  it("treats a 409 on the second create as our first request in flight, and waits for it", async () => {
    const conflict = new KeboolaApiError(409, "stream.api.sourceAlreadyExists", "exists", info);
    const s = scenario({ creates: [() => { throw reset(); }, () => { throw conflict; }], visibleAfterFinds: 3 });
    await expect(s.run()).resolves.toEqual({ id: "x" });
    expect(s.calls).toMatchObject({ create: 2, runTask: 0 });
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
