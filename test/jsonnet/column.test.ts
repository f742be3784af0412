// Template column values (renderer.go CSVValue, Template case) and API error messages.
import { describe, it, expect } from "vitest";
import { getJsonnetEngine, type TemplateContext } from "../../jsonnet/engine";
import {
  asSentence,
  invalidColumnValueMessage,
  renderTemplateColumn,
  templateColumnValue,
  templateInvalidError,
} from "../../jsonnet/column";

const engine = getJsonnetEngine();
const ctx = (body: string): TemplateContext => ({ ip: "1.2.3.4", body, headers: { "Content-Type": "application/json" } });
const column = (content: string, rawString?: boolean) => ({ name: "col", rawString, template: { language: "jsonnet", content } });

describe("templateColumnValue", () => {
  it("non-rawString: JSON text", () => {
    expect(templateColumnValue('"val3"')).toBe('"val3"');
    expect(templateColumnValue('"val3"', false)).toBe('"val3"');
    expect(templateColumnValue("42")).toBe("42");
    expect(templateColumnValue('{"a":1}')).toBe('{"a":1}');
  });
  it("rawString: strings without quotes, unescaped", () => {
    expect(templateColumnValue('"val3"', true)).toBe("val3");
    expect(templateColumnValue('"a\\"b\\nc"', true)).toBe('a"b\nc');
  });
  it("rawString: other values stay JSON", () => {
    expect(templateColumnValue("42", true)).toBe("42");
    expect(templateColumnValue("null", true)).toBe("null");
    expect(templateColumnValue('["a"]', true)).toBe('["a"]');
    expect(templateColumnValue('{"a":"b"}', true)).toBe('{"a":"b"}');
  });
});

describe("renderTemplateColumn", () => {
  const body = ctx('{"key1":[{"key2":"val2"},{"key3":"val3"}],"my":{"value":42}}');
  it("renders like the service", () => {
    expect(renderTemplateColumn(engine, column("Body('key1[1].key3')"), body)).toEqual({ ok: true, value: '"val3"' });
    expect(renderTemplateColumn(engine, column("Body('key1[1].key3')", true), body)).toEqual({ ok: true, value: "val3" });
    // recorded in test/stream/api/source/test-mapping/006-test-mapping: Body('my.value') -> "42"
    expect(renderTemplateColumn(engine, column("Body('my.value')"), body)).toEqual({ ok: true, value: "42" });
    expect(renderTemplateColumn(engine, column("Body('my')", true), body)).toEqual({ ok: true, value: '{"value":42}' });
    expect(renderTemplateColumn(engine, column("'a' + 'b'", true), body)).toEqual({ ok: true, value: "ab" });
  });
  it("returns the evaluation error", () => {
    expect(renderTemplateColumn(engine, column("Body('nope')"), body)).toEqual({ ok: false, error: 'path "nope" not found in the body' });
  });
  it("rejects other languages", () => {
    const res = renderTemplateColumn(engine, { name: "c", template: { language: "invalid", content: "1" } }, body);
    expect(res).toEqual({ ok: false, error: 'unsupported language "invalid", only "jsonnet" is supported' });
  });
});

describe("messages", () => {
  it("AsSentence", () => {
    expect(asSentence("path \"key\" not found in the body")).toBe('Path "key" not found in the body.');
    expect(asSentence("ends with a dot.")).toBe("Ends with a dot.");
    expect(asSentence("ends with quote'")).toBe("Ends with quote'.");
    expect(asSentence("ends with colon:")).toBe("Ends with colon:");
    expect(asSentence("trailing spaces 1  ")).toBe("Trailing spaces 1.");
    expect(asSentence("")).toBe("");
  });
  it("invalid template", () => {
    expect(templateInvalidError("x", "1:1-8 Unknown variable: Invalid")).toBe('column "x" template is invalid: 1:1-8 Unknown variable: Invalid');
  });
  it("test endpoint: invalid column value", () => {
    // recorded in test/stream/api/source/test-mapping/005-test-mapping (422 stream.api.unprocessableContent)
    expect(invalidColumnValueMessage("path", 'path "key" not found in the body')).toBe(
      'Invalid value for column "path": path "key" not found in the body.',
    );
  });
});
