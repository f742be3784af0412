import { describe, expect, it } from "vitest";
import { formatDuration, formatSize, parseDuration, parseSize } from "../../provider/validation/quantities";

describe("durations", () => {
  it.each([
    ["1m", 60_000],
    ["1m0s", 60_000],
    ["45s", 45_000],
    ["1m30s", 90_000],
    ["1.5h", 5_400_000],
    ["500ms", 500],
    ["24h", 86_400_000],
  ])("parses %s", (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(["", "1", "m", "1 m", "1d", "-1s", "1s2"])("rejects %j", (text) => expect(parseDuration(text)).toBeUndefined());

  it.each([
    [60_000, "1m0s"],
    [30_000, "30s"],
    [3_600_000, "1h0m0s"],
    [90_000, "1m30s"],
  ])("formats %d as Go does", (ms, text) => expect(formatDuration(ms)).toBe(text));
});

describe("sizes", () => {
  it.each([
    ["100B", 100],
    ["5MB", 5 * 1024 ** 2],
    ["5mb", 5 * 1024 ** 2],
    ["12KB", 12 * 1024],
    ["1GB", 1024 ** 3],
    ["5M", 5 * 1024 ** 2],
  ])("parses %s", (text, bytes) => expect(parseSize(text)).toBe(bytes));

  it.each(["", "MB", "5XB", "1.5MB", "-5MB"])("rejects %j", (text) => expect(parseSize(text)).toBeUndefined());

  it.each([
    [100, "100B"],
    [5 * 1024 ** 2, "5MB"],
    [50 * 1024 ** 2, "50MB"],
    [1536, "1536B"],
  ])("formats %d as %s", (bytes, text) => expect(formatSize(bytes)).toBe(text));
});
