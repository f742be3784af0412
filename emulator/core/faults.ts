import { z } from "zod";
import type { Random } from "./random";

// Fault injection options. Every share is a probability in [0, 1]; the draw comes from the
// emulator's seeded generator, so a given seed reproduces the same faults in the same order.
export interface FaultOptions {
  seed?: number;
  /** Share of requests answered 429 with Retry-After. */
  rate429?: number;
  /** Seconds put in the Retry-After header of injected 429s. */
  retryAfterSeconds?: number;
  /** Share of requests answered 500, 502 or 503. */
  rate5xx?: number;
  /** Share of requests whose connection is reset before any answer. */
  rateReset?: number;
  /**
   * Share of requests processed in full (a write is applied and saved) whose connection is then
   * dropped before the answer is sent: the client cannot tell whether its write happened.
   */
  rateLostResponse?: number;
  /** Latency added to every request, in milliseconds. */
  latencyMs?: number;
  /** Task ids or task types (e.g. "api.create.sink") whose tasks/jobs end in error. */
  failTasks?: string[];
  /** Only requests whose path starts with one of these prefixes get faults (default: all API paths). */
  pathPrefixes?: string[];
  /** Stop injecting after this many faults (counted from when these options were set): "fail the next write once". */
  limit?: number;
  /** Only these methods get faults (default: all). */
  methods?: string[];
}

const share = z.number().min(0).max(1).optional();

/** FaultOptions as a test sets them at run time (`PUT /_emulator/faults`); other keys are kept. */
export const faultOptionsSchema = z.looseObject({
  seed: z.number().optional(),
  rate429: share,
  retryAfterSeconds: z.number().optional(),
  rate5xx: share,
  rateReset: share,
  rateLostResponse: share,
  latencyMs: z.number().optional(),
  failTasks: z.array(z.string()).optional(),
  pathPrefixes: z.array(z.string()).optional(),
  limit: z.number().optional(),
  methods: z.array(z.string()).optional(),
}) satisfies z.ZodType<FaultOptions>;

/** The kinds of injected faults, as recorded in the request log. */
export const FAULT_KINDS = ["429", "5xx", "reset", "lost"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export type FaultDecision =
  | { kind: "none" }
  | { kind: "429"; retryAfter: number }
  | { kind: "5xx"; status: 500 | 502 | 503 }
  | { kind: "reset" }
  | { kind: "lost" };

export function decideFault(opts: FaultOptions, rng: Random, method: string, path: string): FaultDecision {
  if (opts.methods && !opts.methods.includes(method)) return { kind: "none" };
  if (opts.pathPrefixes && !opts.pathPrefixes.some((p) => path.startsWith(p))) return { kind: "none" };
  const r = rng();
  let edge = opts.rate429 ?? 0;
  if (r < edge) return { kind: "429", retryAfter: opts.retryAfterSeconds ?? 1 };
  edge += opts.rate5xx ?? 0;
  if (r < edge) {
    const statuses = [500, 502, 503] as const;
    return { kind: "5xx", status: statuses[Math.floor(rng() * statuses.length)] };
  }
  edge += opts.rateReset ?? 0;
  if (r < edge) return { kind: "reset" };
  // Last in the draw, so seeds used before this fault existed still inject the same faults.
  edge += opts.rateLostResponse ?? 0;
  if (r < edge) return { kind: "lost" };
  return { kind: "none" };
}

/** Whether a task of this id/type was chosen to fail. */
export function taskShouldFail(opts: FaultOptions, taskId: string, taskType: string): boolean {
  return (opts.failTasks ?? []).some((f) => f === taskType || f === taskId || taskId.startsWith(f));
}

export type FaultTally = Record<FaultKind, number>;

/** Injected faults per kind, in total and per HTTP method. */
export interface FaultCounts extends FaultTally {
  byMethod: Record<string, FaultTally>;
}

const emptyTally = (): FaultTally => ({ "429": 0, "5xx": 0, reset: 0, lost: 0 });

/**
 * Counts the faults recorded in a request log (`emu.requests()` or GET /_emulator/requests), so
 * a test can assert that each kind it relies on was actually injected.
 */
export function countFaults(log: ReadonlyArray<{ method: string; fault?: FaultKind }>): FaultCounts {
  const counts: FaultCounts = { ...emptyTally(), byMethod: {} };
  for (const entry of log) {
    if (!entry.fault) continue;
    counts[entry.fault] += 1;
    const perMethod = (counts.byMethod[entry.method] ??= emptyTally());
    perMethod[entry.fault] += 1;
  }
  return counts;
}
