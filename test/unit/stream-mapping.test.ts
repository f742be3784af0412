import { describe, expect, it } from "vitest";
import { ColumnError, columnValue, type MappingColumn } from "../../keboola/stream-mapping";
import { MappedRecord } from "../../keboola/stream-record";

// Path and template columns at the edges of their paths, as keboola-as-code
// internal/pkg/service/stream/mapping/table/column/renderer.go renders them: jsonPathCSVValue over
// a JSON body (fastjson, a path with no steps is the whole body), mapPathCSVValue over a form body
// (no path is the whole body, any other path goes to orderedmap's GetNested).

const record = (contentType: string, body: string) =>
  new MappedRecord({ source: "http", receivedAt: Date.UTC(2024, 5, 1), ip: "10.0.0.1", headers: { "Content-Type": contentType }, body });
const json = record("application/json", '{"a":{"b":"x"},"n":[1,2]}');
const form = record("application/x-www-form-urlencoded", "a=1&b=two");
const path = (p: string | undefined, extra: Partial<MappingColumn> = {}): MappingColumn => ({ type: "path", name: "c", ...(p === undefined ? {} : { path: p }), ...extra });
const failure = (col: MappingColumn, rec: MappedRecord): string => {
  try {
    columnValue(col, rec);
  } catch (e) {
    expect(e).toBeInstanceOf(ColumnError);
    return (e as Error).message;
  }
  throw new Error("the column was mapped");
};

describe("a path column over a JSON body", () => {
  it.each([undefined, "", "."])("with the path %j is the whole body", (p) => {
    expect(columnValue(path(p), json)).toBe('{"a":{"b":"x"},"n":[1,2]}');
  });

  it("finds keys and indexes, raw strings unquoted", () => {
    expect(columnValue(path("a.b"), json)).toBe('"x"');
    expect(columnValue(path("a.b", { rawString: true }), json)).toBe("x");
    expect(columnValue(path("n[1]"), json)).toBe("2");
  });

  // fastjson keeps a string's escapes as written until something reads the string as a string (a
  // raw-string column does); expected values as recorded in fixtures/fastjson-recorded.json
  // (fastjson v1.6.10), here through the columns of one record.
  it("prints strings with their escapes as the client wrote them (PHP's \\/, Python's \\u00e9), decoded for raw strings", () => {
    const escaped = record("application/json", '{"url":"http:\\/\\/x","name":"caf\\u00e9","tab":"a\\tb"}');
    expect(columnValue(path("url"), escaped)).toBe('"http:\\/\\/x"');
    expect(columnValue(path("name"), escaped)).toBe('"caf\\u00e9"');
    expect(columnValue(path("name", { rawString: true }), escaped)).toBe("café");
    // That read decoded the string in the record's one parsed body, as in the service: later
    // columns print it decoded (Go-quoted where needed), the others still as written.
    expect(columnValue(path("name"), escaped)).toBe('"café"');
    expect(columnValue(path("tab", { rawString: true }), escaped)).toBe("a\tb");
    expect(columnValue(path(""), escaped)).toBe('{"url":"http:\\/\\/x","name":"café","tab":"a\\tb"}');
    // Each record parses its own body.
    expect(columnValue(path("name"), record("application/json", '{"name":"caf\\u00e9"}'))).toBe('"caf\\u00e9"');
  });

  it("reads numbers as written and array indexes as Go's strconv.Atoi does", () => {
    const loose = record("application/json", '{"n":01,"m":1.,"l":[10,20]}');
    expect(columnValue(path("n"), loose)).toBe("01");
    expect(columnValue(path("m"), loose)).toBe("1.");
    expect(columnValue(path("l.+1"), loose)).toBe("20");
    expect(failure(path("l.-1"), loose)).toBe('path "l.-1" not found in the body');
  });

  it("a body fastjson cannot parse fails the column with its text", () => {
    expect(failure(path("a"), record("application/json", '{"a":1}}'))).toBe('cannot parse request json:\n- unexpected tail: "}"');
    expect(failure(path("a"), record("application/json", '{"a" 1}'))).toBe(
      'cannot parse request json:\n- cannot parse JSON: cannot parse object: missing \':\' after object key; unparsed tail: "1}"',
    );
  });

  it("a missing path is its default (JSON-quoted unless raw), else the service's error", () => {
    expect(columnValue(path("a.c", { defaultValue: "d" }), json)).toBe('"d"');
    expect(columnValue(path("a.c", { defaultValue: "d", rawString: true }), json)).toBe("d");
    expect(failure(path("a.c"), json)).toBe('path "a.c" not found in the body');
  });
});

describe("a path column over a form body", () => {
  it.each([undefined, ""])("with the path %j is the whole body", (p) => {
    expect(columnValue(path(p), form)).toBe('{"a":"1","b":"two"}');
  });

  it('finds nothing at "." (GetNested of an empty path), so its default or the error', () => {
    expect(failure(path("."), form)).toBe('path "." not found in the body');
    expect(columnValue(path(".", { defaultValue: "d", rawString: true }), form)).toBe("d");
    expect(columnValue(path("b", { rawString: true }), form)).toBe("two");
    expect(columnValue(path("b"), form)).toBe('"two"');
  });
});

describe("a template column", () => {
  it("renders its jsonnet over the record", () => {
    expect(columnValue({ type: "template", name: "c", template: { language: "jsonnet", content: 'Body("a.b")' } }, json)).toBe('"x"');
  });

  it("without a template (which the API requires) renders an empty jsonnet, the engine's error", () => {
    const empty = failure({ type: "template", name: "c", template: { language: "jsonnet", content: "" } }, json);
    expect(failure({ type: "template", name: "c" }, json)).toBe(empty);
  });
});
