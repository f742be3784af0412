import { KeboolaTaskError, KeboolaTimeoutError } from "./errors";

// Waiting for Stream tasks and Queue jobs: polls come every `fastPollMs` (150 ms) for the first
// `fastForMs` (10 s), where most tasks end, so a finished task is noticed within 150 ms: a task
// noticed late holds one of Pulumi's parallel slots for nothing. The first poll waits those 150 ms
// too: polling sooner would notice no task later than that bound, and each poll is a request
// (a first poll at 50 ms and a second at 150 ms cost one request more per task than one poll at
// 150 ms, for a task that takes 300 ms). Only a longer task backs off, doubling up to 2 s. The
// deadline is our own: Pulumi's customTimeouts never reach a dynamic provider.

export interface WaitOptions {
  /** What is being waited for, for messages, e.g. `Sink "events/raw"`. */
  what: string;
  deadlineSeconds: number;
  firstPollMs?: number;
  fastPollMs?: number;
  fastForMs?: number;
  maxPollMs?: number;
}

/** How often to poll; the defaults above suit a real stack. Tests against an emulator whose tasks
 * end in milliseconds poll sooner, so no test waits 150 ms for a task that ended long before. */
export type PollTiming = Pick<WaitOptions, "firstPollMs" | "fastPollMs" | "fastForMs" | "maxPollMs">;

export interface Pollable {
  id: string;
  finished: boolean;
  ok: boolean;
  message?: string;
}

export async function waitUntilFinished<T>(
  initial: T,
  toPollable: (value: T) => Pollable,
  poll: (value: T) => Promise<T>,
  opts: WaitOptions,
): Promise<T> {
  const started = Date.now();
  const deadline = started + opts.deadlineSeconds * 1000;
  const fastUntil = started + (opts.fastForMs ?? 10_000);
  const fastPollMs = opts.fastPollMs ?? 150;
  const firstPollMs = opts.firstPollMs ?? fastPollMs;
  let interval = firstPollMs;
  // Polls are due at fixed times from the start (150, 300, 450 ms ...), not an interval after each
  // answer: the time a poll takes does not push the next one back, so the 150 ms bound holds from
  // the task's end. A poll answered after the next was due is followed an interval after its answer
  // (no burst of polls after a slow answer).
  let dueAt = started + interval;
  let current = initial;
  for (;;) {
    const p = toPollable(current);
    if (p.finished) {
      if (!p.ok) throw new KeboolaTaskError(p.id, p.message ?? "unknown error", opts.what);
      return current;
    }
    if (dueAt > deadline) throw new KeboolaTimeoutError(opts.what, p.id, opts.deadlineSeconds);
    await new Promise((r) => setTimeout(r, Math.max(0, dueAt - Date.now())));
    const cap = Date.now() < fastUntil ? fastPollMs : (opts.maxPollMs ?? 2000);
    interval = Math.min(interval * 2, Math.max(cap, firstPollMs));
    current = await poll(current);
    const now = Date.now();
    dueAt = dueAt + interval >= now ? dueAt + interval : now + interval;
  }
}
