// Unit tests of the helpers behind the globals: strftime (lestrrat-go/strftime semantics),
// header canonicalization (Go http.CanonicalHeaderKey), body parsing and paths (recordctx, utils/url, orderedmap).
import { describe, it, expect } from "vitest";
import { strftime } from "../../jsonnet/strftime";
import { canonicalHeaderKey, headersMap, headersString } from "../../jsonnet/globals";
import { getNested, parseBody, parseQuery, pathFromStr, isContentTypeJSON, isContentTypeForm } from "../../jsonnet/body";

describe("strftime", () => {
  const t = new Date("2006-01-02T15:04:05.007Z"); // Monday
  it("every specification of the default set", () => {
    const cases: Record<string, string> = {
      "%A": "Monday", "%a": "Mon", "%B": "January", "%b": "Jan", "%C": "20",
      "%c": "Mon Jan  2 15:04:05 2006", "%D": "01/02/06", "%d": "02", "%e": " 2", "%F": "2006-01-02",
      "%f": "007", "%G": "2006", "%g": "06", "%H": "15", "%h": "Jan", "%I": "03", "%j": "002",
      "%k": "15", "%l": " 3", "%M": "04", "%m": "01", "%n": "\n", "%p": "PM", "%R": "15:04",
      "%r": "03:04:05 PM", "%S": "05", "%T": "15:04:05", "%t": "\t", "%U": "01", "%u": "1",
      "%V": "01", "%v": " 2-Jan-2006", "%W": "01", "%w": "1", "%X": "15:04:05", "%x": "01/02/06",
      "%Y": "2006", "%y": "06", "%Z": "UTC", "%z": "+0000", "%%": "%",
    };
    for (const [format, expected] of Object.entries(cases)) expect(strftime(format, t), format).toBe(expected);
  });
  it("midnight, noon, week numbers at year boundaries", () => {
    const midnight = new Date("2006-01-01T00:00:00.000Z"); // Sunday
    expect(strftime("%I %l %p %r %U %W %V %G %u %w", midnight)).toBe("12 12 AM 12:00:00 AM 01 00 52 2005 7 0");
    const noon = new Date("2008-12-31T12:30:00.999Z"); // Wednesday, ISO week 1 of 2009
    expect(strftime("%I %p %r %j %V %G %g %f", noon)).toBe("12 PM 12:30:00 PM 366 01 2009 09 999");
  });
  it("verbatim text and errors", () => {
    expect(strftime("year %Y!", new Date("2020-05-05T00:00:00Z"))).toBe("year 2020!");
    expect(() => strftime("%", t)).toThrow("stray % at the end of pattern");
    expect(() => strftime("%Q", t)).toThrow("pattern compilation failed: lookup failed: '%Q' was not found in specification set");
  });
});

describe("headers", () => {
  it("canonicalHeaderKey", () => {
    expect(canonicalHeaderKey("x-header")).toBe("X-Header");
    expect(canonicalHeaderKey("CONTENT-ENCODING")).toBe("Content-Encoding");
    expect(canonicalHeaderKey("x_custom-ID")).toBe("X_custom-Id");
    expect(canonicalHeaderKey("bad header")).toBe("bad header");
    expect(canonicalHeaderKey("")).toBe("");
  });
  it("headersMap/headersString: canonical, first value, sorted", () => {
    const h = { "x-b": "2", "X-A": ["1", "x"], "x-a": "ignored", empty: undefined };
    expect(Object.entries(headersMap(h))).toEqual([["X-A", "1"], ["X-B", "2"]]);
    expect(headersString(h)).toBe("X-A: 1\nX-B: 2\n");
  });
});

describe("body", () => {
  it("content types", () => {
    expect(isContentTypeJSON("application/json")).toBe(true);
    expect(isContentTypeJSON("application/ld+json")).toBe(true);
    expect(isContentTypeJSON("application/json; charset=utf-8")).toBe(false);
    expect(isContentTypeJSON("text/json")).toBe(false);
    expect(isContentTypeForm("application/x-www-form-urlencoded; charset=utf-8")).toBe(true);
  });
  it("JSON body must be an object", () => {
    expect(parseBody("application/json", '{"a":[1]}')).toEqual({ a: [1] });
    expect(() => parseBody("application/json", "[1]")).toThrow(/^cannot parse request body:\n- invalid JSON: /);
    expect(() => parseBody("application/json", "")).toThrow(/^cannot parse request body:\n- invalid JSON: /);
  });
  it("form data like utils/url ParseQuery", () => {
    expect(parseQuery("one=two&three=four&five=&six&seven[0]=eight&seven[1]=nine&ten[]=eleven&ten[]=twelve")).toEqual({
      one: "two", three: "four", five: "", six: "", seven: ["eight", "nine"], ten: ["eleven", "twelve"],
    });
    expect(parseQuery("one[two]=three&one[four]=five")).toEqual({ one: { two: "three", four: "five" } });
    expect(parseQuery("k[x][0]=zero&k[x][2]=one&k[y][0]=two")).toEqual({ k: { x: ["zero", null, "one"], y: ["two"] } });
    expect(parseQuery("a+b=c%20d&__proto__=x")).toEqual(JSON.parse('{"a b":"c d","__proto__":"x"}'));
    expect(() => parseQuery("a=%zz")).toThrow('invalid URL escape "%zz"');
    expect(() => parseQuery("a=1;b=2")).toThrow("invalid semicolon separator in query");
    expect(parseQuery("a=1;b=2&c=3")).toEqual({ c: "3" }); // Go's err is overwritten by the next pair
    expect(() => parseQuery("a=1&a[]=2")).toThrow("invalid square brackets in query");
    expect(() => parseQuery("a[b=1")).toThrow('Unable to parse key "a[b"');
    expect(() => parseBody("application/x-www-form-urlencoded", "a=%zz")).toThrow(
      'cannot parse request body:\n- invalid form data: invalid URL escape "%zz"',
    );
  });
  it("paths like orderedmap.PathFromStr/GetNested", () => {
    expect(pathFromStr("a.b[1].c")).toEqual([{ key: "a" }, { key: "b" }, { index: 1 }, { key: "c" }]);
    expect(pathFromStr("a..b[x]")).toEqual([{ key: "a" }, { key: "b" }, { key: "x]" }]);
    const body = { a: { b: [1, { c: "x" }] } };
    expect(getNested(body, "a.b[1].c")).toEqual({ ok: true, value: "x" });
    expect(getNested(body, "a.b[2]")).toEqual({ ok: false, error: 'path "a.b[2]" not found' });
    expect(getNested(body, "a.b.c")).toEqual({ ok: false, error: 'path "a.b": expected object found "[]interface {}"' });
    expect(getNested(body, "...")).toEqual({ ok: false, error: "path cannot be empty" });
  });
});
