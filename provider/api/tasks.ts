import { KeboolaTaskError, KeboolaTimeoutError } from "./errors";

// Waiting for Stream tasks and Queue jobs: the first poll comes soon after the 202 (most tasks
// finish in well under a second), then the interval doubles up to 2 s. The deadline is our own:
// Pulumi's customTimeouts never reach a dynamic provider.

export interface WaitOptions {
  /** What is being waited for, for messages, e.g. `Sink "events/raw"`. */
  what: string;
  deadlineSeconds: number;
  firstPollMs?: number;
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
  const deadline = Date.now() + opts.deadlineSeconds * 1000;
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
    interval = Math.min(interval * 2, opts.maxPollMs ?? 2000);
    current = await poll(current);
  }
}
