// Static check at sink create/update. Recorded by the service in
// test/stream/api/sink/create-012-invalid-jsonnet-template and update-006-invalid-jsonnet-template:
// 400 {"error":"stream.api.badRequest","message":"Column \"jsonnet\" template is invalid: 1:1-8 Unknown variable: Invalid."}
import { describe, it, expect } from "vitest";
import { getJsonnetEngine, parseJsonnetLocation } from "../../jsonnet/engine";
import { templateInvalidMessage } from "../../jsonnet/column";

const engine = getJsonnetEngine();

describe("compile", () => {
  it("accepts templates using the globals", () => {
    for (const t of ["Body('a')", "Body()", "Header('x', 'd')", "HeaderStr()", "BodyStr()", "Ip()", "Now('%Y')", "{a: Body('a'), b: std.length(Body())}"]) {
      expect(engine.compile(t), t).toEqual({ ok: true });
    }
  });

  it("does not evaluate (runtime errors pass the check)", () => {
    expect(engine.compile("error 'x'")).toEqual({ ok: true });
    expect(engine.compile("Body('missing')")).toEqual({ ok: true });
  });

  it("unknown variable, with go-jsonnet's location format", () => {
    const res = engine.compile("Invalid()");
    expect(res).toEqual({
      ok: false,
      error: "1:1-8 Unknown variable: Invalid",
      location: { line: 1, column: 1, endLine: 1, endColumn: 8 },
    });
    expect(templateInvalidMessage("jsonnet", res.ok ? "" : res.error)).toBe(
      'Column "jsonnet" template is invalid: 1:1-8 Unknown variable: Invalid.',
    );
  });

  it("locations on later lines and columns", () => {
    const res = engine.compile("{\n  a: Body('a'),\n  b: body.x,\n}");
    expect(res).toEqual({
      ok: false,
      error: "3:6-10 Unknown variable: body",
      location: { line: 3, column: 6, endLine: 3, endColumn: 10 },
    });
  });

  it("syntax errors", () => {
    const res = engine.compile("{a: 1");
    expect(res.ok).toBe(false);
    if (res.ok) return;
    expect(res.error).toBe("1:6 Expected a comma before next field");
    expect(res.location).toEqual({ line: 1, column: 6, endLine: 1, endColumn: 6 });
    expect(templateInvalidMessage("c", res.error)).toBe('Column "c" template is invalid: 1:6 Expected a comma before next field.');
  });

  it("multi-line locations", () => {
    expect(parseJsonnetLocation("(1:5)-(3:2) Something")).toEqual({ line: 1, column: 5, endLine: 3, endColumn: 2 });
    expect(parseJsonnetLocation("no location")).toBeUndefined();
  });
});
