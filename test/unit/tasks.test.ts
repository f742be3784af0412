import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { waitUntilFinished } from "../../provider/api/tasks";

// The polling schedule of Stream tasks and Queue jobs, on fake timers: a finished task is noticed
// within 150 ms during the first 10 s, with as few polls as that allows.

type T = { done: boolean };

/** Waits for a task that finishes `durationMs` after the 202; answers the poll times and when it was noticed. */
async function schedule(durationMs: number, opts: { fastForMs?: number; pollTakesMs?: number } = {}) {
  const started = Date.now();
  const polls: number[] = [];
  const wait = waitUntilFinished<T>(
    { done: false },
    (t) => ({ id: "task-1", finished: t.done, ok: true }),
    async () => {
      const at = Date.now() - started;
      polls.push(at);
      if (opts.pollTakesMs) await new Promise((r) => setTimeout(r, opts.pollTakesMs));
      return { done: at >= durationMs };
    },
    { what: "Sink \"a/b\"", deadlineSeconds: 600, fastForMs: opts.fastForMs },
  );
  let noticed = -1;
  void wait.then(() => (noticed = Date.now() - started));
  while (noticed < 0) await vi.advanceTimersByTimeAsync(10);
  return { polls, noticed };
}

describe("task polling schedule", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("polls every 150 ms from the start: a 300 ms task takes two polls", async () => {
    const { polls, noticed } = await schedule(300);
    expect(polls).toEqual([150, 300]);
    expect(noticed).toBe(300);
  });

  it("notices any task within 150 ms of its end during the first 10 s", async () => {
    for (const d of [1, 149, 151, 299, 1000, 4321, 9800]) {
      const { polls, noticed } = await schedule(d);
      expect(noticed - d).toBeGreaterThanOrEqual(0);
      expect(noticed - d).toBeLessThanOrEqual(150);
      expect(polls.length).toBe(Math.ceil(d / 150));
    }
  });

  it("keeps the polls on the 150 ms grid however long each takes to answer", async () => {
    const { polls } = await schedule(1000, { pollTakesMs: 20 });
    expect(polls).toEqual([150, 300, 450, 600, 750, 900, 1050]);
  });

  it("polls an interval after a slow answer instead of catching up with a burst", async () => {
    const { polls } = await schedule(1000, { pollTakesMs: 400 });
    expect(polls).toEqual([150, 700, 1250]);
  });

  it("backs off only after the fast period, up to 2 s between polls", async () => {
    const { polls } = await schedule(20_000, { fastForMs: 1000 });
    const gaps = polls.slice(1).map((t, i) => t - polls[i]);
    expect(gaps.slice(0, 5)).toEqual([150, 150, 150, 150, 150]);
    expect(Math.max(...gaps)).toBe(2000);
    expect(gaps.every((g, i) => i === 0 || g >= gaps[i - 1])).toBe(true);
  });
});
