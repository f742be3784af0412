import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { alignedFirstPoll, expectedEnd, waitUntilFinished } from "../../provider/api/tasks";
import type { HttpClient, HttpRequest } from "../../provider/api/http";
import { StreamApi, type StreamTask } from "../../provider/api/stream";

// The polling schedule of Stream tasks and Queue jobs, on fake timers: a finished task is noticed
// within 150 ms during the first 10 s, with as few polls as that allows.

type T = { done: boolean };

/** Waits for a task that finishes `durationMs` after the 202; answers the poll times and when it was noticed. */
async function schedule(durationMs: number, opts: { fastForMs?: number; pollTakesMs?: number; expectedMs?: number } = {}) {
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
    { what: "Sink \"a/b\"", deadlineSeconds: 600, fastForMs: opts.fastForMs, expectedMs: opts.expectedMs },
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

  it("shifts the grid so a task of the expected length is noticed 20 ms after its end, with no more polls", async () => {
    // Unaligned, a 300 ms task whose end races the poll at 300 ms is noticed at 450 ms.
    expect((await schedule(301)).noticed).toBe(450);
    const aligned = await schedule(301, { expectedMs: 300 });
    expect(aligned.polls).toEqual([20, 170, 320]);
    expect(aligned.noticed).toBe(320);
    const second = await schedule(1000, { expectedMs: 1000 });
    expect(second.polls).toEqual([120, 270, 420, 570, 720, 870, 1020]);
  });

  it("still notices every task within 150 ms of its end, whatever was expected", async () => {
    for (const expectedMs of [0, 7, 130, 300, 1000, 4000]) {
      for (const d of [1, 149, 151, 299, 1000, 4321, 9800]) {
        const { polls, noticed } = await schedule(d, { expectedMs });
        expect(noticed - d).toBeGreaterThanOrEqual(0);
        expect(noticed - d).toBeLessThanOrEqual(150);
        expect(polls.length).toBeLessThanOrEqual(Math.ceil(d / 150) + 1);
      }
    }
  });
});

describe("when a task is expected to end", () => {
  it("is the median of the durations the service reported for the last tasks", () => {
    expect(expectedEnd([])).toBeUndefined();
    expect(expectedEnd([300])).toBe(300);
    expect(expectedEnd([310, 290, 5000, 300])).toBe(300);
    expect(alignedFirstPoll(300, 150)).toBe(20);
    expect(alignedFirstPoll(130, 150)).toBe(150);
  });
});

describe("StreamApi waiting for its tasks", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("aligns the polls of a task with the durations the service reported for the previous ones", async () => {
    const polledAt: number[] = [];
    let started = 0;
    const http = {
      request: async (req: HttpRequest) => {
        polledAt.push(Date.now() - started);
        return { status: 200, headers: {}, body: { taskId: req.path.split("/").pop(), type: "t", url: "", status: "success", isFinished: true, createdAt: "", duration: 300 } };
      },
    } as unknown as HttpClient;
    const api = new StreamApi(http, "http://stream", 10);
    const task = (id: string): StreamTask => ({ taskId: id, type: "t", url: "", status: "processing", isFinished: false, createdAt: "" });
    const run = async (id: string) => {
      started = Date.now();
      polledAt.length = 0;
      const done = api.runTask(task(id), "Sink \"a/b\"");
      await vi.advanceTimersByTimeAsync(200);
      await done;
      return [...polledAt];
    };
    expect(await run("first")).toEqual([150]); // nothing known yet: the plain grid
    expect(await run("second")).toEqual([20]); // 300 ms reported: a poll 20 ms after 300 ms, i.e. the grid shifted to 20 ms
  });
});
