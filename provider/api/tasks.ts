import { KeboolaTaskError, KeboolaTimeoutError } from "./errors";

// Waiting for Stream tasks and Queue jobs: the first poll comes soon after the 202 and the interval
// stays short (at most `fastPollMs`, 150 ms) for the first `fastForMs` (10 s), where most tasks end:
// a task noticed late holds one of Pulumi's parallel slots for nothing. Only a longer task backs
// off, doubling up to 2 s. The deadline is our own: Pulumi's customTimeouts never reach a dynamic
// provider.

export interface WaitOptions {
  /** What is being waited for, for messages, e.g. `Sink "events/raw"`. */
  what: string;
  deadlineSeconds: number;
  firstPollMs?: number;
  fastPollMs?: number;
  fastForMs?: number;
  maxPollMs?: number;
}

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
  let interval = opts.firstPollMs ?? 50;
  let current = initial;
  for (;;) {
    const p = toPollable(current);
    if (p.finished) {
      if (!p.ok) throw new KeboolaTaskError(p.id, p.message ?? "unknown error", opts.what);
      return current;
    }
    if (Date.now() + interval > deadline) throw new KeboolaTimeoutError(opts.what, p.id, opts.deadlineSeconds);
    await new Promise((r) => setTimeout(r, interval));
    const cap = Date.now() < fastUntil ? (opts.fastPollMs ?? 150) : (opts.maxPollMs ?? 2000);
    interval = Math.min(interval * 2, Math.max(cap, opts.firstPollMs ?? 50));
    current = await poll(current);
  }
}
