import { describe, expect, it } from "vitest";
import { UNKNOWN } from "../../provider/validation/check";
import { descriptionSchema, normalizeId, streamIdSchema, streamNameSchema, streamObjectId } from "../../provider/validation/ids";

describe("normalizeId (as the Stream service derives ids)", () => {
  it.each([
    ["My Source", "my-source"],
    ["!!!!~~~~weird|||id##", "weird-id"],
    ["camelCaseName", "camel-case-name"],
    ["HTTPEvents", "httpevents"],
    ["already-normal", "already-normal"],
    ["  spaced   out  ", "spaced-out"],
    ["Čeština ěščř", "cestina-escr"],
    ["a__b..c", "a-b-c"],
  ])("%j -> %j", (input, expected) => {
    expect(normalizeId(input)).toBe(expected);
  });
});

describe("Stream ids, names and descriptions as inputs", () => {
  const messages = (r: { error?: { issues: Array<{ message: string }> } }) => r.error?.issues.map((i) => i.message);

  it("says what is wrong and how to fix it", () => {
    expect(messages(streamIdSchema("source").safeParse("a".repeat(49)))).toEqual(["must be at most 48 characters: shorten it"]);
    expect(streamIdSchema("source").safeParse("a".repeat(48)).success).toBe(true);
    expect(messages(streamNameSchema.safeParse(""))).toEqual(["must not be empty"]);
    expect(messages(descriptionSchema.safeParse("d".repeat(4097)))).toEqual(["must be at most 4096 characters: shorten it"]);
  });

  it("derives the id: declared, else recorded, else from the name, and unknown while the name is", () => {
    expect(streamObjectId("declared", "My Source", "recorded")).toBe("declared");
    expect(streamObjectId(undefined, "My Source", "recorded")).toBe("recorded");
    expect(streamObjectId(undefined, "My Source", "")).toBe("my-source");
    expect(streamObjectId(undefined, UNKNOWN)).toBe(UNKNOWN);
  });
});
