// The Scheduler's cron dialect, as the provider's preview checks and the emulator's clock both
// apply it: which `cronTab` values a `keboola.scheduler` configuration may hold, which timezones,
// and when a schedule fires. One parser (croner) behind one set of rules, so what preview accepts
// is exactly what the emulator fires.
//
// The real Scheduler (keboola/scheduler-api, PHP; not in the stored public sources) validates and
// evaluates `schedule.cronTab` with dragonmantank/cron-expression, whose dialect is standard
// five-field cron: minute hour day-of-month month day-of-week, with `*`, `,`, `-`, `/`, month and
// weekday names (JAN-DEC, SUN-SAT), weekday 0-7 (0 and 7 are Sunday), `L`/`W` in day-of-month,
// `L`/`#` in day-of-week, `?` only in the two day fields, the nicknames @yearly @annually
// @monthly @weekly @daily @midnight @hourly, and a day-of-month and day-of-week that are both
// restricted match when EITHER matches (Vixie cron). No seconds field, no year field, no @reboot.
// The schedule's `timezone` is an IANA name or a fixed UTC offset such as "+0100" (keboola/keboola-sdk-go
// pkg/keboola/scheduler_model.go ScheduleCron{cronTab, timezone, state}; see checkTimezone); the
// cron is read in that timezone.
//
// One rule stricter than the library: an expression that can never fire (e.g. `0 3 31 2 *`) is
// refused, because the Scheduler would accept it and then never run the target, silently.

import { Cron } from "croner";
import { isOneOf } from "./json";

export type CronCheck = { ok: true } | { ok: false; reason: string; fix: string };

const NICKNAMES = ["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"] as const;
const FIELD_NAMES = ["minute", "hour", "day of month", "month", "day of week"] as const;
const DIALECT_FIX =
  'write five fields "minute hour day-of-month month day-of-week" (e.g. "0 3 * * *" for 03:00 every day), or one of ' +
  NICKNAMES.join(", ");

const OFFSET = /^([+-])(\d{2}):?(\d{2})$/;

/** A fixed offset such as "+0100" or "-05:30" in minutes east of UTC, or undefined for a name. */
function offsetMinutes(timezone: string): number | undefined {
  const m = OFFSET.exec(timezone);
  if (!m) return undefined;
  const minutes = Number(m[2]) * 60 + Number(m[3]);
  return m[1] === "-" ? -minutes : minutes;
}

/** The options the Scheduler's dialect maps to in croner (five fields, OR of the two day fields). */
function compile(cronTab: string, timezone: string | undefined): Cron {
  const offset = timezone === undefined ? undefined : offsetMinutes(timezone);
  return new Cron(cronTab.trim(), {
    mode: "5-part",
    domAndDow: false,
    paused: true,
    ...(offset !== undefined ? { utcOffset: offset } : timezone === undefined ? {} : { timezone }),
  });
}

/**
 * Whether the Scheduler can read a cron in `timezone`: an IANA timezone name ("UTC",
 * "Europe/Prague") or a fixed offset ("+0100"; the Scheduler API's schema: "either (UTC) a name
 * or offset (+0100)", api-evangelist/keboola openapi/keboola-schedules-api-openapi.yml, a copy of
 * the swaggerhub spec odinuv/scheduler/1.0.0 that keboola-sdk-go cites).
 */
export function checkTimezone(timezone: string): CronCheck {
  const offset = OFFSET.exec(timezone);
  if (offset) {
    return Number(offset[2]) <= 14 && Number(offset[3]) < 60
      ? { ok: true }
      : { ok: false, reason: `"${timezone}" is not a UTC offset`, fix: 'write an offset between "-1400" and "+1400", e.g. "+0100", or a name such as "Europe/Prague"' };
  }
  // Names only past this point (Intl also takes some odd forms on newer Node versions).
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(timezone)) {
    return { ok: false, reason: `"${timezone}" is not an IANA timezone name`, fix: 'use a name such as "UTC" or "Europe/Prague"' };
  }
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: timezone });
    return { ok: true };
  } catch {
    return {
      ok: false,
      reason: `"${timezone}" is not an IANA timezone name`,
      fix: 'use a name from the IANA time zone database, such as "UTC", "Europe/Prague" or "America/New_York"',
    };
  }
}

/** Whether `cronTab` is in the Scheduler's dialect (and can ever fire). */
export function checkCronTab(cronTab: string): CronCheck {
  const text = cronTab.trim();
  if (text === "") return { ok: false, reason: "the cron expression is empty", fix: DIALECT_FIX };
  if (text.startsWith("@")) {
    if (!isOneOf(NICKNAMES, text.toLowerCase())) {
      return { ok: false, reason: `"${cronTab}" is not a cron nickname the Scheduler knows`, fix: DIALECT_FIX };
    }
  } else {
    const fields = text.split(/\s+/);
    if (fields.length !== 5) {
      const extra = fields.length === 6 ? " (the Scheduler has no seconds or year field)" : "";
      return { ok: false, reason: `"${cronTab}" has ${fields.length} fields, the Scheduler takes exactly 5${extra}`, fix: DIALECT_FIX };
    }
    // `?` stands for "no specific value" in the two day fields only.
    const misplaced = fields.findIndex((f, i) => f.includes("?") && i !== 2 && i !== 4);
    if (misplaced >= 0) {
      return { ok: false, reason: `"${cronTab}": "?" is allowed only in the day-of-month and day-of-week fields, not in the ${FIELD_NAMES[misplaced]} field`, fix: DIALECT_FIX };
    }
  }
  let cron: Cron;
  try {
    cron = compile(text, "UTC");
  } catch (e) {
    // croner starts each of its messages with "CronPattern: ", which names nothing the user wrote.
    const detail = (e instanceof Error ? e.message : String(e)).replace("CronPattern: ", "");
    return { ok: false, reason: `"${cronTab}" is not a valid cron expression: ${detail}`, fix: DIALECT_FIX };
  }
  if (cron.nextRun(new Date(Date.UTC(2000, 0, 1))) === null) {
    return { ok: false, reason: `"${cronTab}" never fires (no date matches it)`, fix: "check the day-of-month and month fields" };
  }
  return { ok: true };
}

/** Both checks, the cron first; the first problem found. */
export function checkSchedule(cronTab: string, timezone: string): CronCheck {
  const cron = checkCronTab(cronTab);
  return cron.ok ? checkTimezone(timezone) : cron;
}

/**
 * The next `count` times (after `after`, exclusive) a valid cron fires, read in `timezone`.
 * Throws on an expression or timezone that the checks above refuse.
 */
export function nextRuns(cronTab: string, timezone: string, after: Date, count: number): Date[] {
  return compile(cronTab, timezone).nextRuns(count, after);
}

/** The next time (after `after`, exclusive) a valid cron fires in `timezone`, or null if never. */
export function nextRun(cronTab: string, timezone: string, after: Date): Date | null {
  return compile(cronTab, timezone).nextRun(after);
}
