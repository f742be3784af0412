import { describe, expect, it } from "vitest";
import { checkCronTab, checkSchedule, checkTimezone, nextRun, nextRuns } from "../../keboola/cron";

// The Scheduler's cron dialect (keboola/cron.ts), shared by the provider's preview and the emulator's clock.

describe("checkCronTab", () => {
  it.each(["0 3 * * *", "*/15 * * * *", "0 3 * * MON-FRI", "0 3 L * *", "0 3 * * 5L", "0 3 * * MON#2", "0 3 ? * 1", "0 3 * * 7", "@daily", "@HOURLY", " 0 3 * * * "])(
    "accepts %j",
    (cron) => expect(checkCronTab(cron)).toEqual({ ok: true }),
  );

  it.each([
    ["", /empty/],
    ["0 3 * *", /has 4 fields, the Scheduler takes exactly 5/],
    ["0 0 3 * * *", /has 6 fields.*no seconds or year field/],
    ["61 3 * * *", /not a valid cron expression: .*minute/],
    ["0 ? * * *", /"\?" is allowed only in the day-of-month and day-of-week fields, not in the hour field/],
    ["@reboot", /not a cron nickname/],
    ["0 3 31 2 *", /never fires/],
    ["every day", /fields|not a valid/],
  ])("refuses %j with the reason and the fix", (cron, reason) => {
    const r = checkCronTab(cron);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.reason).toMatch(reason);
      expect(r.fix.length).toBeGreaterThan(0);
    }
  });
});

describe("checkTimezone", () => {
  it.each(["UTC", "Europe/Prague", "America/New_York", "+0100", "-05:30"])("accepts %j", (tz) => expect(checkTimezone(tz)).toEqual({ ok: true }));
  it.each(["Mars/Base", "", " UTC", "Europe/Praha", "+1500", "+01:75", "../etc"])("refuses %j", (tz) => expect(checkTimezone(tz).ok).toBe(false));
  it("checkSchedule reports the cron before the timezone", () => {
    const r = checkSchedule("0 3 * *", "Mars/Base");
    expect(r.ok === false && r.reason).toMatch(/fields/);
  });
});

describe("when a schedule fires", () => {
  it("reads the cron in the schedule's timezone (03:00 Prague is 02:00 UTC in winter, 01:00 in summer)", () => {
    expect(nextRuns("0 3 * * *", "Europe/Prague", new Date("2025-01-01T00:00:00Z"), 2).map((d) => d.toISOString())).toEqual([
      "2025-01-01T02:00:00.000Z",
      "2025-01-02T02:00:00.000Z",
    ]);
    expect(nextRuns("0 3 * * *", "Europe/Prague", new Date("2025-07-01T00:00:00Z"), 1)[0]?.toISOString()).toBe("2025-07-01T01:00:00.000Z");
  });

  it("nextRun is the next fire time strictly after the given time", () => {
    expect(nextRun("0 3 * * *", "UTC", new Date("2025-01-01T03:00:00Z"))?.toISOString()).toBe("2025-01-02T03:00:00.000Z");
  });

  it("reads a fixed offset as the Scheduler does (+0100: 03:00 there is 02:00 UTC)", () => {
    expect(nextRuns("0 3 * * *", "+0100", new Date("2025-07-01T00:00:00Z"), 1)[0]?.toISOString()).toBe("2025-07-01T02:00:00.000Z");
    expect(nextRuns("0 3 * * *", "-05:30", new Date("2025-07-01T00:00:00Z"), 1)[0]?.toISOString()).toBe("2025-07-01T08:30:00.000Z");
  });

  it("a day with both day fields restricted fires when either matches (standard cron)", () => {
    // The 13th of January 2025 is a Monday; Friday the 3rd also matches.
    const runs = nextRuns("0 0 13 * 5", "UTC", new Date("2025-01-01T00:00:00Z"), 2).map((d) => d.toISOString().slice(0, 10));
    expect(runs).toEqual(["2025-01-03", "2025-01-10"]);
  });
});

// The edges of the dialect's rules, each a behaviour preview promises (found by `npm run mutate -- keboola`).
describe("the dialect's edges", () => {
  it("accepts \"?\" in the day-of-week field as in the day-of-month field", () => {
    expect(checkCronTab("0 3 1 * ?")).toEqual({ ok: true });
  });

  it("names the library's complaint without its prefix, and the fix lists every nickname", () => {
    expect(checkCronTab("61 3 * * *")).toEqual({
      ok: false,
      reason: '"61 3 * * *" is not a valid cron expression: Invalid value for minute: 61',
      fix: 'write five fields "minute hour day-of-month month day-of-week" (e.g. "0 3 * * *" for 03:00 every day), or one of @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly',
    });
  });

  it.each(["+1400", "-1400", "+0000", "-0530", "+05:45"])("accepts the UTC offset %j (the Scheduler's range is -1400..+1400)", (tz) => {
    expect(checkTimezone(tz)).toEqual({ ok: true });
  });

  it.each([
    ["+1500", /"\+1500" is not a UTC offset/, /between "-1400" and "\+1400"/],
    ["+0160", /"\+0160" is not a UTC offset/, /between "-1400" and "\+1400"/],
    // An offset with anything before or after it is neither an offset nor a name.
    ["x+0100", /"x\+0100" is not an IANA timezone name/, /IANA time zone database/],
    ["+0100x", /"\+0100x" is not an IANA timezone name/, /"UTC" or "Europe\/Prague"/],
    ["1bad", /"1bad" is not an IANA timezone name/, /"UTC" or "Europe\/Prague"/],
  ])("refuses the timezone %j, naming it and the fix", (tz, reason, fix) => {
    const r = checkTimezone(tz);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.reason).toMatch(reason);
      expect(r.fix).toMatch(fix);
    }
  });
});
