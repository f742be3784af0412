import { describe, expect, it } from "vitest";
import { schedulerConfigurationSchema } from "../../keboola/scheduler";

// A keboola.scheduler configuration's content (keboola/scheduler.ts), as the provider writes it and the emulator reads it.

const target = { componentId: "keboola.flow", configurationId: "123", mode: "run" };

describe("schedulerConfigurationSchema", () => {
  it("reads a schedule with its defaults (UTC, enabled, no rows)", () => {
    const parsed = schedulerConfigurationSchema.parse({ schedule: { cronTab: "0 3 * * *" }, target: { ...target, configurationId: 123 } });
    expect(parsed).toEqual({
      schedule: { cronTab: "0 3 * * *", timezone: "UTC", state: "enabled" },
      target: { componentId: "keboola.flow", configurationId: "123", configurationRowIds: [], mode: "run" },
    });
  });

  it("refuses a cron outside the dialect, an unknown timezone and a mode other than run, naming the path", () => {
    const issues = (raw: unknown) => {
      const r = schedulerConfigurationSchema.safeParse(raw);
      return r.success ? [] : r.error.issues.map((i) => [i.path.join("."), i.message]);
    };
    expect(issues({ schedule: { cronTab: "0 0 3 * * *", timezone: "Mars/Base", state: "enabled" }, target: { ...target, mode: "debug" } })).toEqual([
      ["schedule.cronTab", expect.stringMatching(/has 6 fields/)],
      ["schedule.timezone", expect.stringMatching(/"Mars\/Base" is not an IANA timezone name/)],
      ["target.mode", expect.any(String)],
    ]);
  });

  it("reads variable values given with the schedule, numbers as the strings the job runner receives", () => {
    const parsed = schedulerConfigurationSchema.parse({
      schedule: { cronTab: "0 3 * * *" },
      target: { ...target, variableValuesData: { values: [{ name: "limit", value: 5 }, { name: "day", value: "mon" }] } },
    });
    expect(parsed.target.variableValuesData).toEqual({ values: [{ name: "limit", value: "5" }, { name: "day", value: "mon" }] });
    const refused = schedulerConfigurationSchema.safeParse({ schedule: { cronTab: "0 3 * * *" }, target: { ...target, variableValuesData: { values: [{ value: 5 }, { name: "x", value: true }] } } });
    expect(refused.success ? [] : refused.error.issues.map((i) => i.path.join("."))).toEqual(["target.variableValuesData.values.0.name", "target.variableValuesData.values.1.value"]);
  });
});
