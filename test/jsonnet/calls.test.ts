// Calls of the template globals that fail for every record. The service's static check at sink
// create accepts them (keboola/keboola-as-code internal/pkg/service/stream/api/mapper/sink_request.go
// compiles only); evaluation then fails with go-jsonnet's call errors or the globals' own type
// errors (internal/pkg/service/stream/mapping/jsonnet/jsonnet.go: "parameter must be a string",
// "first parameter must be a string"). The engine is the service's go-jsonnet (see jsonnet/README.md),
// so the expected texts are what it answers when the call is evaluated with any record.
import { describe, expect, it } from "vitest";
import { failingGlobalCalls } from "../../jsonnet/calls";
import { getJsonnetEngine } from "../../jsonnet/engine";
import { templateFailures } from "../../provider/validation/templates";
import { UNKNOWN } from "../../provider/validation/check";

const engine = getJsonnetEngine();
const RECORD = { ip: "1.2.3.4", body: '{"a":{"b":1}}', headers: { "Content-Type": "application/json", "X-A": "x" } };

describe("calls that fail whatever the record", () => {
  it.each([
    ["Ip(1)", "function expected 0 positional argument(s), but got 1"],
    ["Ip(x=1)", "function has no parameter x"],
    ["HeaderStr(1, 2)", "function expected 0 positional argument(s), but got 2"],
    ["BodyStr('a')", "function expected 0 positional argument(s), but got 1"],
    ["Now('%Y', 'x')", "function expected 1 positional argument(s), but got 2"],
    ["Now(fmt='%Y')", "function has no parameter fmt"],
    ["Now(format='%Y', format='%d')", "Argument format already provided"],
    ["Now('%Y', format='%d')", "Argument format already provided"],
    ["Now(1)", "parameter must be a string"],
    ["Now(null)", "parameter must be a string"],
    ["Now(-1)", "parameter must be a string"],
    ["Now('%Q')", "datetime format \"%Q\" is invalid: pattern compilation failed: lookup failed: '%Q' was not found in specification set"],
    ["Header(1)", "parameter must be a string"],
    ["Header('a', 'b', 'c')", "function expected 2 positional argument(s), but got 3"],
    ["Header(name='X-A')", "function has no parameter name"],
    ["Body(1)", "first parameter must be a string"],
    ["Body({})", "first parameter must be a string"],
    ["Body([1, 'a'])", "first parameter must be a string"],
    ["Body(true, 'd')", "first parameter must be a string"],
    ["Body(path=1)", "first parameter must be a string"],
    ["Body('a', 1, 2)", "function expected 2 positional argument(s), but got 3"],
    ["Body(Body('a'), 1, 2)", "function expected 2 positional argument(s), but got 3"],
  ])("%s", (call, error) => {
    expect(engine.compile(call)).toEqual({ ok: true }); // the service's own check lets it through
    expect(engine.evaluate(call, RECORD)).toEqual({ ok: false, error }); // and every record fails
    const found = failingGlobalCalls(engine, call);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ call, line: 1, column: 1, error });
    expect(found[0].fix).toMatch(/^call /);
  });

  it("finds calls next to the template's own functions and in their arguments", () => {
    const content = "local f(x) = x; f(Body(1)) + std.length(Header(1, 2, 3))";
    expect(failingGlobalCalls(engine, content).map((c) => c.error)).toEqual([
      "first parameter must be a string",
      "function expected 2 positional argument(s), but got 3",
    ]);
  });

  it("finds calls anywhere in a template, with their line and column", () => {
    const content = "{\n  ip: Ip(),\n  // Ip(1) in a comment\n  s: 'Body(1)',\n  b: std.length(Body(1)),\n  n: Now('%Y', 'x'),\n}";
    expect(failingGlobalCalls(engine, content).map((c) => [c.call, c.line, c.column])).toEqual([
      ["Body(1)", 5, 17],
      ["Now('%Y', 'x')", 6, 6],
    ]);
  });

  it.each([
    "Ip()",
    "HeaderStr()",
    "Now()",
    "Now('%Y-%m-%d')",
    "Now(format='%H')",
    "Header()",
    "Header('X-A')",
    "Header('X-B', 'none')",
    "Header(header='X-A', default=null)",
    "Body()",
    "Body('a.b')",
    "Body('missing', 1)",
    "Body(default=1)",
    "Body(path='a', default={x: 1})",
    // Arguments whose type is known only when a record arrives.
    "Body(Header('X-A'))",
    "Now(Body('fmt'))",
    "Body('a' + 'b')",
    // The template's own bindings are not the service's globals.
    "local Ip(x) = x; Ip(1)",
    "local f(Body) = Body(1); f(function(x) x)",
    "{ Ip(x): x }.Ip(1)",
    "local a = 1, Body = function(x) x; Body(1)",
    "[Body(1) for Body in [function(x) x]]",
    "std.Body(1)",
  ])("leaves %s alone", (content) => {
    expect(engine.compile(content)).toEqual({ ok: true });
    expect(failingGlobalCalls(engine, content)).toEqual([]);
  });
});

describe("check of template columns", () => {
  it("refuses a wrong call at the column's content path, with the service's text and the fix", async () => {
    const failures = await templateFailures([
      { type: "uuid", name: "id" },
      { type: "template", name: "ip", template: { language: "jsonnet", content: "Ip(1)" } },
      { type: "template", name: "ok", template: { language: "jsonnet", content: "Body('a')" } },
      { type: "template", name: "when", template: { language: "jsonnet", content: "{t: Now(1)}" } },
    ]);
    expect(failures).toEqual([
      {
        property: "columns[1].template.content",
        reason:
          'Ip(1) at line 1, column 1 cannot succeed: the service accepts the sink, then refuses every record that evaluates it ' +
          '(Invalid value for column "ip": function expected 0 positional argument(s), but got 1.). Fix: call Ip() with no arguments.',
      },
      {
        property: "columns[3].template.content",
        reason:
          'Now(1) at line 1, column 5 cannot succeed: the service accepts the sink, then refuses every record that evaluates it ' +
          '(Invalid value for column "when": parameter must be a string.). Fix: call Now() or Now("<strftime format>") with a string, e.g. Now("%Y-%m-%d %H:%M:%S").',
      },
    ]);
  });

  it("compiles only template columns, and only a content known at preview and not empty (the service's own check refuses an empty one)", async () => {
    const broken = { language: "jsonnet", content: "Ip(1" };
    expect(await templateFailures([{ type: "path", name: "p", path: "a", template: broken }])).toEqual([]);
    expect(await templateFailures([{ type: "template", name: "u", template: { language: "jsonnet", content: UNKNOWN } }])).toEqual([]);
    expect(await templateFailures([{ type: "template", name: "e", template: { language: "jsonnet", content: "" } }])).toEqual([]);
    expect(await templateFailures([{ type: "template", name: "b", template: broken }])).toHaveLength(1);
  });

  it("reports a syntax error once, without looking for calls", async () => {
    const failures = await templateFailures([{ type: "template", name: "x", template: { language: "jsonnet", content: "Ip(1" } }]);
    expect(failures).toHaveLength(1);
    expect(failures[0].reason).toMatch(/^Column "x" template is invalid: /);
  });
});
