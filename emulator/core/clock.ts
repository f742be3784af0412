// The emulator's clock: real time plus an offset a test moves forward with
// `POST /_emulator/clock` (`{"advance": "24h"}` or `{"now": "<ISO time>"}`); `GET /_emulator/clock`
// answers the emulated time. Every time the emulator reads (`ctx.now()`: timestamps, when a
// deferred task or job is due, when a schedule fires) is this clock, so with the offset at 0 (the
// default) nothing differs from real time; moving it forward completes what became due in
// between, as if that time had passed. It never goes back: a schedule that fired stays fired.

import { isRecord } from "../../keboola/json";

export interface ClockJson {
  now: string;
  offsetMs: number;
}

export class ClockError extends Error {}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "24h", "1h30m", "90s", "2d", "500ms" -> milliseconds (Go-style durations, plus days). */
export function parseDuration(text: string): number {
  const trimmed = text.trim();
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(trimmed); m; m = re.exec(trimmed)) {
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    matched = re.lastIndex;
  }
  if (trimmed === "" || matched !== trimmed.length) {
    throw new ClockError(`"advance": "${text}" is not a duration: write e.g. "24h", "1h30m", "90s" or "2d"`);
  }
  return Math.round(total);
}

/**
 * The new offset a clock request asks for, given the current offset and real time. Throws
 * ClockError for a malformed body or a move backwards.
 */
export function requestedOffset(body: unknown, offsetMs: number, realNow: number): number {
  if (!isRecord(body)) throw new ClockError('send {"advance": "24h"} or {"now": "2030-01-01T03:00:00Z"}');
  const { advance, now } = body;
  if ((advance === undefined) === (now === undefined)) {
    throw new ClockError('send exactly one of "advance" (a duration such as "24h") and "now" (an ISO 8601 time)');
  }
  let target: number;
  if (advance !== undefined) {
    if (typeof advance !== "string") throw new ClockError('"advance" must be a duration string such as "24h"');
    target = realNow + offsetMs + parseDuration(advance);
  } else {
    target = typeof now === "string" && /^\d{4}-\d{2}-\d{2}T/.test(now) ? Date.parse(now) : NaN;
    if (Number.isNaN(target)) throw new ClockError(`"now": ${JSON.stringify(now)} is not an ISO 8601 time such as "2030-01-01T03:00:00Z"`);
  }
  const current = realNow + offsetMs;
  if (target < current) {
    throw new ClockError(`the clock cannot go back (it is ${new Date(current).toISOString()}, asked for ${new Date(target).toISOString()})`);
  }
  return target - realNow;
}

export function clockJson(nowMs: number, offsetMs: number): ClockJson {
  return { now: new Date(nowMs).toISOString(), offsetMs };
}
