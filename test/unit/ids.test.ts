import { describe, expect, it } from "vitest";
import { normalizeId } from "../../provider/validation/ids";

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
