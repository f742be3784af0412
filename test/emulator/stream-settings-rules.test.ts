import { describe, expect, it } from "vitest";
import {
  NullSettingValue,
  checkSettingsPatch,
  dumpSettings,
  effectiveSetting,
  effectiveSettingsValid,
  mergeSettings,
} from "../../emulator/stream/settings";
import type { SettingPatchKV } from "../../emulator/stream/state";
// Recorded against the real Stream service: keboola/keboola-as-code
// test/stream/api/source/settings-001-all/003-get-settings/expected-response.json (no overrides) and
// 010-get-settings/expected-response.json (after 006-patch-settings-2-ok's PATCH), copied unchanged.
import recordedDefaults from "./fixtures/kac-settings-001-all/003-get-settings.json";
import recordedPatched from "./fixtures/kac-settings-001-all/010-get-settings.json";

// The emulator's settings rules (emulator/stream/settings.ts) called directly: what GET lists,
// how a PATCH is bound and refused, and which values a sink may open a file with. The API-level
// tests (stream-api.test.ts) go through the routes and tasks; these pin each rule on its own.

const K = {
  uploadCount: "storage.level.staging.upload.trigger.count",
  uploadSize: "storage.level.staging.upload.trigger.size",
  uploadInterval: "storage.level.staging.upload.trigger.interval",
  importInterval: "storage.level.target.import.trigger.interval",
  importSize: "storage.level.target.import.trigger.size",
  syncWait: "storage.level.local.encoding.sync.wait",
  blockSize: "storage.level.local.encoding.compression.gzip.blockSize",
  compression: "storage.level.local.encoding.compression.type",
  volumeTypes: "storage.level.local.volume.assignment.preferredTypes",
} as const;

/** The body the API answers for a refused PATCH (the error writer's rendering), or undefined. */
const refusal = (kvs: SettingPatchKV[]) => checkSettingsPatch(kvs)?.body();
const badRequest = (message: string) => ({ statusCode: 400, error: "stream.api.badRequest", message });

describe("GET .../settings, as recorded from the real service", () => {
  it("lists every key with its type, description, default, protection and validation", () => {
    expect(dumpSettings([])).toEqual(recordedDefaults.settings);
  });

  it("shows overrides in the service's spelling, marked overwritten", () => {
    // 006-patch-settings-2-ok's request body.
    const patch = [
      { key: K.uploadInterval, value: "45s" },
      { key: K.uploadSize, value: "12MB" },
    ];
    expect(checkSettingsPatch(patch)).toBeUndefined();
    expect(dumpSettings(mergeSettings([], patch))).toEqual(recordedPatched.settings);
  });

  it("formats a duration or size given as a number (nanoseconds, bytes) as the service prints it", () => {
    const byKey = (kvs: SettingPatchKV[], key: string) => dumpSettings(kvs).find((s) => s.key === key);
    expect(byKey([{ key: K.uploadInterval, value: 1500 }], K.uploadInterval)).toMatchObject({ value: "1.5µs", overwritten: true });
    expect(byKey([{ key: K.uploadSize, value: 2048.9 }], K.uploadSize)).toMatchObject({ value: "2KB", overwritten: true });
    expect(byKey([{ key: K.uploadCount, value: 7.9 }], K.uploadCount)).toMatchObject({ value: 7, overwritten: true });
    // An empty duration or size is "not set": the default shows.
    expect(byKey([{ key: K.uploadSize, value: "" }], K.uploadSize)).toMatchObject({ value: "5MB", overwritten: false });
  });
});

describe("PATCH .../settings: binding and refusals", () => {
  // Each key's Go type, as the service's configuration structs declare it (keboola/keboola-as-code
  // internal/pkg/service/stream/storage/level/: local/encoding/encoder/config.go, local/encoding/
  // config/config.go, local/encoding/compression/config.go, local/encoding/writesync/config.go,
  // local/volume/assignment/config.go, staging/config/config.go, target/config/config.go), which
  // a value of another JSON type is refused with.
  it.each([
    ["storage.level.local.encoding.encoder.type", "encoder.Type"],
    ["storage.level.local.encoding.encoder.concurrency", "int"],
    ["storage.level.local.encoding.inputBuffer", "datasize.ByteSize"],
    ["storage.level.local.encoding.maxChunkSize", "datasize.ByteSize"],
    ["storage.level.local.encoding.failedChunksThreshold", "int"],
    ["storage.level.local.encoding.compression.type", "compression.Type"],
    ["storage.level.local.encoding.compression.gzip.level", "int"],
    ["storage.level.local.encoding.compression.gzip.implementation", "compression.GZIPImplementation"],
    ["storage.level.local.encoding.compression.gzip.blockSize", "datasize.ByteSize"],
    ["storage.level.local.encoding.compression.gzip.concurrency", "int"],
    ["storage.level.local.encoding.sync.mode", "writesync.Mode"],
    ["storage.level.local.encoding.sync.wait", "bool"],
    ["storage.level.local.encoding.sync.checkInterval", "duration.Duration"],
    ["storage.level.local.encoding.sync.countTrigger", "uint"],
    ["storage.level.local.encoding.sync.uncompressedBytesTrigger", "datasize.ByteSize"],
    ["storage.level.local.encoding.sync.compressedBytesTrigger", "datasize.ByteSize"],
    ["storage.level.local.encoding.sync.intervalTrigger", "duration.Duration"],
    ["storage.level.local.volume.assignment.count", "int"],
    ["storage.level.local.volume.assignment.preferredTypes", "[]string"],
    ["storage.level.staging.upload.trigger.count", "uint64"],
    ["storage.level.staging.upload.trigger.size", "datasize.ByteSize"],
    ["storage.level.staging.upload.trigger.interval", "duration.Duration"],
    ["storage.level.target.import.trigger.count", "uint64"],
    ["storage.level.target.import.trigger.size", "datasize.ByteSize"],
    ["storage.level.target.import.trigger.interval", "duration.Duration"],
    ["storage.level.target.import.trigger.slicesCount", "uint64"],
    ["storage.level.target.import.trigger.expiration", "duration.Duration"],
  ])("refuses an object for %s, expecting %s", (key, goType) => {
    expect(refusal([{ key, value: { a: 1 } }])).toEqual(badRequest(`Invalid "${key}" value: found type "map[string]interface {}", expected "${goType}".`));
  });

  it("refuses invalid values, one line each in the service's key order, as recorded (008-patch-settings-3-invalid-value-400)", () => {
    expect(
      refusal([
        { key: K.uploadInterval, value: "foo" },
        { key: K.uploadSize, value: "bar" },
      ]),
    ).toEqual(
      badRequest('- Invalid "storage.level.staging.upload.trigger.size" value "bar": invalid syntax.\n- Invalid "storage.level.staging.upload.trigger.interval": time: invalid duration "foo".'),
    );
  });

  it("refuses a protected key with 403, as recorded (009-patch-settings-4-protected-403)", () => {
    expect(refusal([{ key: K.blockSize, value: "128KB" }])).toEqual({
      statusCode: 403,
      error: "stream.api.forbidden",
      message: 'Cannot modify protected keys: "storage.level.local.encoding.compression.gzip.blockSize".',
    });
    expect(refusal([{ key: K.blockSize, value: "128KB" }, { key: K.compression, value: "none" }])?.message).toBe(
      'Cannot modify protected keys: "storage.level.local.encoding.compression.type", "storage.level.local.encoding.compression.gzip.blockSize".',
    );
    // Unsetting a protected size ("") changes nothing, so it is not refused.
    expect(refusal([{ key: K.blockSize, value: "" }])).toBeUndefined();
  });

  it("checks types before protection: a wrong type is a 400 even on a protected key", () => {
    expect(refusal([{ key: K.compression, value: 5 }])).toEqual(badRequest('Invalid "storage.level.local.encoding.compression.type" value: found type "float64", expected "compression.Type".'));
  });

  it("names the JSON type found and the Go type expected", () => {
    const message = (key: string, value: unknown) => refusal([{ key, value }])?.message;
    expect(message(K.uploadCount, "5")).toBe('Invalid "storage.level.staging.upload.trigger.count" value: found type "string", expected "uint64".');
    expect(message(K.syncWait, 1)).toBe('Invalid "storage.level.local.encoding.sync.wait" value: found type "float64", expected "bool".');
    expect(message(K.uploadSize, true)).toBe('Invalid "storage.level.staging.upload.trigger.size" value: found type "bool", expected "datasize.ByteSize".');
    expect(message(K.uploadInterval, [1])).toBe('Invalid "storage.level.staging.upload.trigger.interval" value: found type "[]interface {}", expected "duration.Duration".');
    expect(message(K.uploadCount, { n: 1 })).toBe('Invalid "storage.level.staging.upload.trigger.count" value: found type "map[string]interface {}", expected "uint64".');
    expect(message(K.volumeTypes, "default")).toBe('Invalid "storage.level.local.volume.assignment.preferredTypes" value: found type "string", expected "[]string".');
    expect(message(K.volumeTypes, ["a", true])).toBe('Invalid "storage.level.local.volume.assignment.preferredTypes" value: index 1: found type "bool", expected "string".');
  });

  it("binds each kind to its JSON type: a list of strings, a boolean, a string, whole and fractional numbers", () => {
    // Accepted types reach the protection check (403), not the type check (400).
    expect(refusal([{ key: K.volumeTypes, value: ["ssd", "hdd"] }])?.statusCode).toBe(403);
    expect(refusal([{ key: K.compression, value: "none" }])?.statusCode).toBe(403);
    expect(refusal([{ key: K.syncWait, value: false }])).toBeUndefined();
    expect(refusal([{ key: K.uploadCount, value: 7.5 }])).toBeUndefined();
    expect(refusal([{ key: K.uploadInterval, value: 1000 }])).toBeUndefined();
  });

  it("quotes at most 20 bytes of an invalid size", () => {
    expect(refusal([{ key: K.uploadSize, value: "x".repeat(30) }])?.message).toBe(`Invalid "storage.level.staging.upload.trigger.size" value "${"x".repeat(20)}…": invalid syntax.`);
  });

  it("lists unknown keys sorted, cut after 50 bytes", () => {
    expect(refusal([{ key: "b.key", value: 1 }, { key: "a.key", value: 1 }])).toEqual(badRequest('Key not found: "a.key", "b.key".'));
    const long = ["key.number.one.is.long", "key.number.two.is.long", "key.number.three.is.long"];
    // Sorted: one, three, two. The first two and the separator are exactly 50 bytes.
    expect(refusal(long.map((key) => ({ key, value: 1 })))?.message).toBe('Key not found: "key.number.one.is.long", "key.number.three.is.long…".');
  });

  it("reports invalid values and unknown keys together, unknown keys last", () => {
    expect(refusal([{ key: "zzz", value: 1 }, { key: K.syncWait, value: "yes" }])?.message).toBe(
      '- Invalid "storage.level.local.encoding.sync.wait" value: found type "string", expected "bool".\n- Key not found: "zzz".',
    );
  });

  it("refuses a key given twice before anything else", () => {
    expect(refusal([{ key: K.uploadCount, value: 1 }, { key: "zzz", value: 1 }, { key: K.uploadCount, value: 2 }])).toEqual(
      badRequest('Key "storage.level.staging.upload.trigger.count" is defined multiple times.'),
    );
  });

  it("throws on a null value (the real service panics and answers 500)", () => {
    expect(() => checkSettingsPatch([{ key: K.uploadCount, value: null }])).toThrow(NullSettingValue);
  });

  it("accepts an empty patch", () => {
    expect(checkSettingsPatch([])).toBeUndefined();
  });
});

describe("stored overrides", () => {
  it("merge keys sorted whatever order they come in (the service keeps its patch sorted by key)", () => {
    const keys = [K.volumeTypes, K.importSize, K.importInterval, K.uploadSize, K.uploadInterval, K.uploadCount, K.syncWait, K.blockSize];
    const sorted = [...keys].sort();
    expect(mergeSettings(keys.map((key) => ({ key, value: 1 })), []).map((kv) => kv.key)).toEqual(sorted);
    expect(mergeSettings([], [...keys].reverse().map((key) => ({ key, value: 1 }))).map((kv) => kv.key)).toEqual(sorted);
    expect(mergeSettings([{ key: "b", value: 1 }], [{ key: "a", value: 2 }, { key: "c", value: 3 }, { key: "a", value: 4 }])).toEqual([
      { key: "a", value: 4 },
      { key: "b", value: 1 },
      { key: "c", value: 3 },
    ]);
  });

  it("merge with later values winning, keys sorted", () => {
    const stored = [
      { key: K.uploadSize, value: "1MB" },
      { key: K.importInterval, value: "5m" },
    ];
    expect(mergeSettings(stored, [{ key: K.uploadSize, value: "2MB" }, { key: K.uploadCount, value: 5 }])).toEqual([
      { key: K.uploadCount, value: 5 },
      { key: K.uploadSize, value: "2MB" },
      { key: K.importInterval, value: "5m" },
    ]);
  });

  it("give a key's effective value: the sink's over the source's over the default, formatted as GET shows it", () => {
    const source = [{ key: K.uploadInterval, value: "90s" }, { key: K.uploadSize, value: "1024KB" }];
    const sink = [{ key: K.uploadInterval, value: "2m" }];
    expect(effectiveSetting(K.uploadInterval, source, sink)).toBe("2m0s");
    expect(effectiveSetting(K.uploadSize, source, sink)).toBe("1MB");
    expect(effectiveSetting(K.uploadCount, source, sink)).toBe(10000);
    expect(effectiveSetting("no.such.key", source, sink)).toBeUndefined();
    // Unknown stored keys and unset values are skipped.
    expect(effectiveSetting(K.uploadSize, [{ key: "no.such.key", value: 1 }], [{ key: K.uploadSize, value: "" }])).toBe("5MB");
  });
});

describe("ranges, checked when a sink opens a file", () => {
  const valid = (source: SettingPatchKV[], sink: SettingPatchKV[] = []) => effectiveSettingsValid(source, sink);

  it("accepts each range's bounds and refuses a step past them", () => {
    // storage.level.staging.upload.trigger.count: min=1,max=10000000.
    expect(valid([{ key: K.uploadCount, value: 1 }])).toBe(true);
    expect(valid([{ key: K.uploadCount, value: 10000000 }])).toBe(true);
    expect(valid([{ key: K.uploadCount, value: 0 }])).toBe(false);
    expect(valid([{ key: K.uploadCount, value: 10000001 }])).toBe(false);
    // storage.level.target.import.trigger.interval: minDuration=30s,maxDuration=24h.
    expect(valid([{ key: K.importInterval, value: "30s" }])).toBe(true);
    expect(valid([{ key: K.importInterval, value: "24h" }])).toBe(true);
    expect(valid([{ key: K.importInterval, value: "29.999s" }])).toBe(false);
    expect(valid([{ key: K.importInterval, value: "24h0m0.001s" }])).toBe(false);
    // storage.level.target.import.trigger.size: minBytes=100B,maxBytes=500MB.
    expect(valid([{ key: K.importSize, value: "100B" }])).toBe(true);
    expect(valid([{ key: K.importSize, value: "99B" }])).toBe(false);
    expect(valid([{ key: K.importSize, value: "500MB" }])).toBe(true);
    expect(valid([{ key: K.importSize, value: 524288001 }])).toBe(false);
  });

  it("judges the effective value: a valid sink override hides an invalid source one, not the reverse", () => {
    expect(valid([{ key: K.importInterval, value: "1s" }], [{ key: K.importInterval, value: "2m" }])).toBe(true);
    expect(valid([{ key: K.importInterval, value: "2m" }], [{ key: K.importInterval, value: "1s" }])).toBe(false);
    expect(valid([{ key: K.importInterval, value: "1s" }], [{ key: K.uploadCount, value: 5 }])).toBe(false);
  });

  it("leaves keys without a range alone, and defaults are in range", () => {
    expect(valid([])).toBe(true);
    expect(valid([{ key: K.syncWait, value: false }, { key: K.uploadSize, value: "" }])).toBe(true);
  });
});
