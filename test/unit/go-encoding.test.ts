import { describe, expect, it } from "vitest";
import { goJSON } from "../../keboola/go-json";
import { goQuote } from "../../keboola/go-quote";
import { isJsonObject, isJsonValue } from "../../keboola/json";
import { uuidV7 } from "../../keboola/uuid";

// The small encodings both sides share with the Go services: strconv.Quote (the messages' %q),
// encoding/json's HTML-safe strings, UUIDv7 and what counts as JSON.

describe("goQuote (Go's strconv.Quote)", () => {
  it("escapes each of Go's single-letter escapes", () => {
    expect(goQuote("\u0007\b\f\n\r\t\u000b\"\\")).toBe(String.raw`"\a\b\f\n\r\t\v\"\\"`);
  });

  it("writes other control characters as \\x, unprintable ones as \\u or \\U, and printable ones as they are", () => {
    expect(goQuote("a\u0001b\u007f")).toBe(String.raw`"a\x01b\x7f"`);
    // U+00AD (soft hyphen) and U+00A0 (no-break space) are not printable for Go's unicode.IsPrint,
    // nor is U+E0001 (language tag) beyond the basic plane; letters, marks and symbols are.
    expect(goQuote("x\u00ady\u00a0")).toBe(String.raw`"x\u00ady\u00a0"`);
    expect(goQuote("\u{e0001}")).toBe(String.raw`"\U000e0001"`);
    // The last code point of the basic plane (a noncharacter) still takes \u.
    expect(goQuote("\uffff")).toBe(String.raw`"\uffff"`);
    expect(goQuote("žluťoučký 🐎 €")).toBe('"žluťoučký 🐎 €"');
  });
});

describe("goJSON (Go's json.Marshal)", () => {
  it("escapes <, >, &, U+2028 and U+2029 inside strings as Go does", () => {
    expect(goJSON({ html: "<a href='x'>&</a>", seps: "a\u2028b\u2029c" })).toBe(String.raw`{"html":"\u003ca href='x'\u003e\u0026\u003c/a\u003e","seps":"a\u2028b\u2029c"}`);
  });
});

describe("uuidV7", () => {
  it("carries the time in its first 48 bits, then version 7 and the RFC variant", () => {
    const ms = 0x0123456789ab;
    const id = uuidV7(ms);
    expect(id).toMatch(/^01234567-89ab-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(uuidV7(ms + 1).slice(0, 13)).toBe("01234567-89ac");
  });

  it("keeps all 74 other bits random: UUIDs of one millisecond differ right after the version", () => {
    // RFC 9562's rand_a starts at the nibble after the "7"; a time loop running one byte too far
    // would zero it.
    const nibbles = new Set(Array.from({ length: 64 }, () => uuidV7(0x0123456789ab)[15]));
    expect(nibbles.size).toBeGreaterThan(1);
  });
});

describe("isJsonValue / isJsonObject", () => {
  it("accepts JSON all the way down and nothing else", () => {
    expect(isJsonValue({ a: [1, "x", null, { b: true }] })).toBe(true);
    for (const v of [undefined, () => 1, { a: undefined }, { a: [1, undefined] }, [{ f: () => 1 }]]) expect(isJsonValue(v)).toBe(false);
    expect(isJsonObject({ a: { b: [1] } })).toBe(true);
    expect(isJsonObject([1])).toBe(false);
    expect(isJsonObject({ a: { b: undefined } })).toBe(false);
  });
});
