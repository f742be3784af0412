import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  changedSettings,
  rangeOf,
  resetPatch,
  SETTINGS,
  settingsFromRemote,
  settingsPatch,
  settingsShape,
} from "../../provider/validation/settings";
import { SETTINGS as EMULATOR_SETTINGS } from "../../emulator/stream/settings";
import { parseByteSize, parseGoDuration } from "../../keboola/quantities";
import type { StreamSetting } from "../../provider/api/stream";

const schema = z.object(settingsShape).strict();

function issues(input: unknown) {
  const r = schema.safeParse(input);
  return r.success ? [] : r.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
}

describe("settings inputs", () => {
  it("accepts values inside the ranges", () => {
    expect(issues({ stagingUploadTrigger: { interval: "1s", size: "100B", count: 1 }, targetImportTrigger: { interval: "24h", size: "500MB", count: 10_000_000 }, syncWait: false })).toEqual([]);
  });

  it("rejects values outside the ranges with the path and the allowed range", () => {
    expect(issues({ targetImportTrigger: { interval: "10s" } })).toEqual([
      { path: "targetImportTrigger.interval", message: '"10s" is out of range: use a value in 30s .. 24h0m0s (service default 1m0s)' },
    ]);
    expect(issues({ stagingUploadTrigger: { size: "51MB" } })).toEqual([
      { path: "stagingUploadTrigger.size", message: '"51MB" is out of range: use a value in 100B .. 50MB (service default 5MB)' },
    ]);
    expect(issues({ stagingUploadTrigger: { count: 0 } })[0]).toMatchObject({ path: "stagingUploadTrigger.count", message: expect.stringContaining("at least 1") });
  });

  it("rejects malformed values and unknown keys", () => {
    // Error texts: Go's time.ParseDuration (golang/go src/time/format.go), which the service's
    // duration.Duration uses (keboola/keboola-as-code internal/pkg/service/common/duration/duration.go).
    expect(issues({ stagingUploadTrigger: { interval: "soon" } })).toEqual([
      {
        path: "stagingUploadTrigger.interval",
        message: '"soon" is not a duration the service accepts (time: invalid duration "soon"): write it like 45s or 1m30s (units h, m, s, ms; no spaces)',
      },
    ]);
    expect(issues({ stagingUploadTrigger: { intervall: "1s" } })[0].path).toBe("stagingUploadTrigger");
  });
});

describe("settings spelled as the service reads them", () => {
  it.each([
    ["stagingUploadTrigger.interval", { stagingUploadTrigger: { interval: "5 m" } }, 'time: unknown unit " m" in duration "5 m"'],
    ["stagingUploadTrigger.interval", { stagingUploadTrigger: { interval: " 45s" } }, 'time: invalid duration " 45s"'],
    ["stagingUploadTrigger.interval", { stagingUploadTrigger: { interval: "45s " } }, 'time: unknown unit "s " in duration "45s "'],
    ["targetImportTrigger.interval", { targetImportTrigger: { interval: "1d" } }, 'time: unknown unit "d" in duration "1d"'],
    ["targetImportTrigger.interval", { targetImportTrigger: { interval: "60" } }, 'time: missing unit in duration "60"'],
    // datasize refuses "Mb" as bits and has no "MiB" or fractions (c2h5oh/datasize datasize.go at the
    // version keboola/keboola-as-code go.mod pins).
    ["stagingUploadTrigger.size", { stagingUploadTrigger: { size: "5Mb" } }, 'strconv.UnmarshalText: parsing "5Mb": unit with capital unit prefix and lower case unit (b) - bits, not bytes '],
    ["stagingUploadTrigger.size", { stagingUploadTrigger: { size: "5MiB" } }, 'strconv.UnmarshalText: parsing "5MiB": invalid syntax'],
    ["targetImportTrigger.size", { targetImportTrigger: { size: "1.5MB" } }, 'strconv.UnmarshalText: parsing "1.5MB": invalid syntax'],
    ["targetImportTrigger.size", { targetImportTrigger: { size: " 5MB" } }, 'strconv.UnmarshalText: parsing " 5MB": invalid syntax'],
  ])("refuses %s = %j quoting the service's parser and giving the fix", (path, input, goError) => {
    const found = issues(input);
    expect(found).toHaveLength(1);
    expect(found[0].path).toBe(path);
    expect(found[0].message).toContain(`(${goError}): write it like `);
  });

  it("accepts what the service accepts: 1h30m, .5s, 1.5h, 5 MB, 5mb, 5MB with a trailing space", () => {
    expect(issues({ stagingUploadTrigger: { interval: ".5s" } })[0].message).toContain("out of range"); // parsed, below 1s
    expect(issues({ targetImportTrigger: { interval: "1h30m", size: "5 MB" }, stagingUploadTrigger: { interval: "1.5s", size: "5mb" } })).toEqual([]);
    expect(issues({ targetImportTrigger: { size: "5MB " } })).toEqual([]);
  });

  it("refuses a valid but negative duration and an empty value as out of range or empty", () => {
    expect(issues({ targetImportTrigger: { interval: "-1s" } })[0].message).toBe('"-1s" is out of range: use a value in 30s .. 24h0m0s (service default 1m0s)');
    expect(issues({ targetImportTrigger: { size: "" } })[0].message).toMatch(/^is empty: write a size like 5MB .*or leave the key out/);
  });
});

describe("settings inputs: counts and their documentation", () => {
  it("says a count's range in each refusal", () => {
    expect(issues({ stagingUploadTrigger: { count: 1.5 } })).toEqual([{ path: "stagingUploadTrigger.count", message: "must be a whole number in 1 .. 10000000" }]);
    expect(issues({ targetImportTrigger: { count: 0 } })).toEqual([{ path: "targetImportTrigger.count", message: "must be at least 1 (range 1 .. 10000000)" }]);
    expect(issues({ targetImportTrigger: { count: 10_000_001 } })).toEqual([{ path: "targetImportTrigger.count", message: "must be at most 10000000 (range 1 .. 10000000)" }]);
  });

  it("documents each trigger's ranges, a million written as M", () => {
    expect(settingsShape.stagingUploadTrigger.description).toBe("Step 1, local disk to staging: whichever of interval (1s..30m), size (100B..50MB), count (1..10M) is met first.");
    expect(settingsShape.targetImportTrigger.description).toBe("Step 2, staging to the table: interval (30s..24h), size (100B..500MB), count (1..10M).");
  });
});

describe("settings diff and patches", () => {
  it("compares durations and sizes by value", () => {
    expect(changedSettings({ targetImportTrigger: { interval: "1m" } }, { targetImportTrigger: { interval: "1m0s" } })).toEqual([]);
    expect(changedSettings({ stagingUploadTrigger: { size: "1024KB" } }, { stagingUploadTrigger: { size: "1MB" } })).toEqual([]);
    expect(changedSettings({ targetImportTrigger: { interval: "1m" } }, { targetImportTrigger: { interval: "2m" } })).toEqual(["targetImportTrigger.interval"]);
  });

  it("patches only managed keys and resets keys no longer managed to their defaults", () => {
    expect(settingsPatch({ syncWait: false }, { syncWait: true, targetImportTrigger: { count: 5 } })).toEqual([
      { key: "storage.level.local.encoding.sync.wait", value: false },
      { key: "storage.level.target.import.trigger.count", value: 50000 },
    ]);
    expect(resetPatch({ targetImportTrigger: { interval: "2m" } })).toEqual([{ key: "storage.level.target.import.trigger.interval", value: "1m0s" }]);
  });

  it("reads back managed keys only, keeping the user's spelling when equal by value", () => {
    const remote: StreamSetting[] = [
      { key: "storage.level.target.import.trigger.interval", type: "duration", description: "", value: "1m0s", defaultValue: "1m0s", overwritten: true, protected: false },
      { key: "storage.level.target.import.trigger.count", type: "int", description: "", value: 777, defaultValue: 50000, overwritten: true, protected: false },
      { key: "storage.level.local.encoding.sync.wait", type: "bool", description: "", value: true, defaultValue: true, overwritten: false, protected: false },
    ];
    expect(settingsFromRemote(remote, { targetImportTrigger: { interval: "1m", count: 5 } })).toEqual({ targetImportTrigger: { interval: "1m", count: 777 } });
    // Keys of both triggers, one missing from the answer (skipped), one differing by value.
    expect(settingsFromRemote(remote, { targetImportTrigger: { interval: "2m" }, stagingUploadTrigger: { size: "1MB" }, syncWait: true })).toEqual({
      targetImportTrigger: { interval: "1m0s" },
      syncWait: true,
    });
  });

  it("reads back no value the input cannot hold (the service answering another type for a key)", () => {
    const remote: StreamSetting[] = [
      { key: "storage.level.target.import.trigger.interval", type: "duration", description: "", value: 60, defaultValue: "1m0s", overwritten: true, protected: false },
      { key: "storage.level.target.import.trigger.count", type: "int", description: "", value: "777", defaultValue: 50000, overwritten: true, protected: false },
      { key: "storage.level.local.encoding.sync.wait", type: "bool", description: "", value: false, defaultValue: true, overwritten: true, protected: false },
    ];
    expect(settingsFromRemote(remote, { targetImportTrigger: { interval: "2m", count: 5 }, syncWait: true })).toStrictEqual({ syncWait: false });
  });

  it("patches every managed key without older inputs, and reads a trigger that is not an object as not set", () => {
    expect(settingsPatch({ stagingUploadTrigger: { interval: "45s", count: 5 } })).toEqual([
      { key: "storage.level.staging.upload.trigger.interval", value: "45s" },
      { key: "storage.level.staging.upload.trigger.count", value: 5 },
    ]);
    expect(changedSettings({ targetImportTrigger: { interval: "1m" } }, { targetImportTrigger: "04da6b54-80e4-46f7-96ec-b56ff0331ba9" })).toEqual(["targetImportTrigger.interval"]);
    expect(changedSettings({}, { targetImportTrigger: 5 })).toEqual([]);
  });
});

describe("the editable settings' one record", () => {
  it("reads ranges from the service's validate tags", () => {
    expect(rangeOf("required,minDuration=1s,maxDuration=30m")).toEqual({ min: "1s", max: "30m" });
    expect(rangeOf("required,minBytes=100B,maxBytes=50MB")).toEqual({ min: "100B", max: "50MB" });
    expect(rangeOf("required,min=1,max=10000000")).toEqual({ min: "1", max: "10000000" });
    expect(rangeOf(undefined)).toEqual({});
    // Only a rule that is itself min/max (the tag's rules are comma-separated words): not one that
    // merely ends in it.
    expect(rangeOf("required,gtmin=5,lenmax=3")).toEqual({});
  });

  it("gives the provider's inputs and the emulator's table the same keys, defaults and ranges", () => {
    const editableInEmulator = EMULATOR_SETTINGS.filter((s) => !s.protected);
    expect(editableInEmulator.map((s) => s.key).sort()).toEqual(SETTINGS.map((s) => s.key).sort());
    for (const input of SETTINGS) {
      const row = editableInEmulator.find((s) => s.key === input.key)!;
      expect(row.default, input.key).toEqual(input.defaultValue);
      if (input.min === undefined) continue;
      const value = (v: string | number | undefined) => (input.kind === "duration" ? parseGoDuration(String(v)) : input.kind === "size" ? parseByteSize(String(v)) : BigInt(v as number));
      expect(row.range, input.key).toEqual({ min: value(input.min), max: value(input.max) });
    }
    // The service's own ranges: the validate tags in keboola-as-code internal/pkg/service/stream/storage/level/staging/config/config.go and target/config/config.go.
    expect(SETTINGS.find((s) => s.input === "targetImportTrigger.interval")).toMatchObject({ min: "30s", max: "24h", defaultValue: "1m0s" });
    expect(SETTINGS.find((s) => s.input === "stagingUploadTrigger.count")).toMatchObject({ min: 1, max: 10_000_000, defaultValue: 10000 });
  });
});
