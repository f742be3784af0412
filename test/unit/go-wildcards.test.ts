// The replay's port of go-utils `wildcards` (scripts/lib/go-wildcards.ts): each wildcard matches
// what github.com/keboola/go-utils pkg/wildcards/wildcards_test.go (v1.4.0,
// TestWildcardToRegexpMatch) says it matches, and Compare's trimming and line rules hold.
import { describe, expect, it } from "vitest";
import { firstDifference, wildcardsMatch, wildcardsToRegexp } from "../../scripts/lib/go-wildcards";

const matches = (pattern: string, input: string) => new RegExp(`^${wildcardsToRegexp(pattern)}$`).test(input);

describe("go-utils wildcards", () => {
  it.each([
    ["%s", ["x", " ", "foo"], ["", "\n"]],
    ["%S", ["", " ", "foo"], ["\n"]],
    ["%a", ["\n", "x", "foo"], [""]],
    ["%A", ["", "\n", "foo"], []],
    ["%w", ["", " ", " \t\n"], ["x"]],
    ["%i", ["+123", "-123"], ["", "123"]],
    ["%d", ["123"], ["", "+123", "-123"]],
    ["%x", ["0af", "zZ9"], [""]],
    ["%f", ["12", "12.34", "+12.34", "-12.34"], [""]],
    ["%c", ["a"], ["", "aa"]],
    ["%%", ["%"], ["", "x"]],
    ["%e", ["/"], ["foo"]],
  ] as const)("%s", (pattern, yes, no) => {
    for (const input of yes) expect(matches(pattern, input), JSON.stringify(input)).toBe(true);
    for (const input of no) expect(matches(pattern, input), JSON.stringify(input)).toBe(false);
  });

  it("quotes everything else, as regexp.QuoteMeta does", () => {
    expect(matches("a.b(c)[d]{1}^$|*+?\\", "a.b(c)[d]{1}^$|*+?\\")).toBe(true);
    expect(matches("a.b", "axb")).toBe(false);
  });

  it("compares trimmed texts, with NBSP and CR of the actual text normalised", () => {
    expect(wildcardsMatch("  {\n  \"a\": %d\n}\n", "{\r\n  \"a\": 12\r\n}")).toBe(true);
    expect(wildcardsMatch("a b", "a\u00a0b")).toBe(true);
    expect(wildcardsMatch("", "  ")).toBe(true);
    expect(wildcardsMatch("", "x")).toBe(false);
  });

  it("reports the first line that differs", () => {
    expect(firstDifference('{\n  "a": %d,\n  "b": "x"\n}', '{\n  "a": 1,\n  "b": "y"\n}')).toEqual({ line: 3, expected: '  "b": "x"', actual: '  "b": "y"' });
    expect(firstDifference("a\n%A\nz", "a\nb\nc\nz")).toBeUndefined();
    expect(firstDifference("a\nb", "a")).toEqual({ line: 2, expected: "b", actual: "<end>" });
  });
});
