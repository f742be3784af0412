// Conformance of the Keboola Stream template globals. Expected values are the ones recorded in
// keboola/keboola-as-code internal/pkg/service/stream/mapping/jsonnet/jsonnet_test.go and
// internal/pkg/service/stream/mapping/table/column/renderer_test.go (and the behaviour of the code there).
import { describe, it, expect } from "vitest";
import { getJsonnetEngine, type EvalResult, type TemplateContext } from "../../jsonnet/engine";
import { DEFAULT_TIME_FORMAT, THROW_ERR_ON_UNDEFINED, TEMPLATE_GLOBALS } from "../../jsonnet/globals";

const engine = getJsonnetEngine();
// 2006-01-01T15:04:05.123456+07:00 in the Go test = 08:04:05.123 UTC
const now1 = new Date("2006-01-01T08:04:05.123Z");
const now2 = new Date("2006-01-01T08:04:05.000Z");

function ctx(partial: Partial<TemplateContext> = {}): TemplateContext {
  return { ip: "1.2.3.4", body: "", headers: {}, now: now1, ...partial };
}
const json = (body: string, extra: TemplateContext["headers"] = {}) =>
  ctx({ body, headers: { "Content-Type": "application/json", ...extra } });

function ok(res: EvalResult): string {
  if (!res.ok) throw new Error(`expected success, got error: ${res.error}`);
  return res.json;
}
function err(res: EvalResult): string {
  if (res.ok) throw new Error(`expected error, got: ${res.json}`);
  return res.error;
}
const run = (template: string, c: TemplateContext = ctx()) => engine.evaluate(template, c);

describe("engine", () => {
  it("is go-jsonnet from the service's fork", () => {
    expect(engine.name).toBe("go-jsonnet v0.22.0 (keboola fork, wasm)");
    expect(getJsonnetEngine()).toBe(engine);
  });

  it("knows exactly the template globals (plus std)", () => {
    for (const name of TEMPLATE_GLOBALS) expect(engine.compile(name)).toEqual({ ok: true });
    expect(engine.compile("std.length([])")).toEqual({ ok: true });
    expect(engine.compile("Foo").ok).toBe(false);
    expect(engine.compile("body").ok).toBe(false);
  });
});

describe("Ip()", () => {
  it("returns the client IP", () => {
    expect(ok(run("Ip()"))).toBe('"1.2.3.4"');
  });
  it("shows an IPv4-mapped IPv6 address as IPv4, like Go net.IP", () => {
    expect(ok(run("Ip()", ctx({ ip: "::ffff:10.0.0.7" })))).toBe('"10.0.0.7"');
    expect(ok(run("Ip()", ctx({ ip: "::1" })))).toBe('"::1"');
  });
  it("takes no parameters", () => {
    expect(err(run("Ip(1)"))).toBe("function expected 0 positional argument(s), but got 1");
  });
});

describe("Now()", () => {
  it("default format: fixed-length UTC with milliseconds", () => {
    expect(DEFAULT_TIME_FORMAT).toBe("%Y-%m-%dT%H:%M:%S.%fZ");
    expect(ok(run("Now()"))).toBe('"2006-01-01T08:04:05.123Z"');
    expect(ok(run("Now()", ctx({ now: now2 })))).toBe('"2006-01-01T08:04:05.000Z"');
  });
  it("custom strftime format", () => {
    expect(ok(run("Now('%Y-%m-%d')"))).toBe('"2006-01-01"');
    expect(ok(run("Now(format='%H:%M %p %a %b %j')"))).toBe('"08:04 AM Sun Jan 001"');
  });
  it("invalid formats fail with the service's texts", () => {
    expect(err(run("Now('%Y %Q')"))).toBe(
      `datetime format "%Y %Q" is invalid: pattern compilation failed: lookup failed: '%Q' was not found in specification set`,
    );
    expect(err(run("Now('100%')"))).toBe('datetime format "100%" is invalid: stray % at the end of pattern');
    expect(err(run("Now(1)"))).toBe("parameter must be a string");
  });
  it("uses the evaluation time when the context has none", () => {
    const before = Date.now();
    const value = JSON.parse(ok(run("Now()", ctx({ now: undefined })))) as string;
    expect(value).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(value)).toBeGreaterThanOrEqual(before - 1);
    expect(Date.parse(value)).toBeLessThanOrEqual(Date.now());
  });
});

describe("HeaderStr()", () => {
  it("is empty without headers", () => {
    expect(ok(run("HeaderStr()"))).toBe('""');
  });
  it("one canonical 'Name: value' line per header, sorted", () => {
    const c = ctx({ headers: { "x-header-2": "value2", "X-HEADER-1": "value1", accept: "*/*" } });
    expect(JSON.parse(ok(run("HeaderStr()", c)))).toBe("Accept: */*\nX-Header-1: value1\nX-Header-2: value2\n");
  });
  it("sorts the lines, not the names ('A-B: ..' before 'A: ..')", () => {
    expect(JSON.parse(ok(run("HeaderStr()", ctx({ headers: { a: "1", "a-b": "2" } }))))).toBe("A-B: 2\nA: 1\n");
  });
  it("uses the first value of a repeated header", () => {
    expect(JSON.parse(ok(run("HeaderStr()", ctx({ headers: { "x-a": ["1", "2"] } }))))).toBe("X-A: 1\n");
  });
});

describe("BodyStr()", () => {
  it("empty body", () => {
    expect(ok(run("BodyStr()", ctx({ body: "" })))).toBe('""');
  });
  it("raw body, whatever the content type", () => {
    expect(ok(run("BodyStr()", ctx({ body: "foo" })))).toBe('"foo"');
    expect(JSON.parse(ok(run("BodyStr()", json('{"a": 1}'))))).toBe('{"a": 1}');
  });
});

describe("Header()", () => {
  const headers = { "x-header-2": "value2", "X-Header-1": "value1" };
  it("all headers as an object (empty without headers)", () => {
    expect(ok(run("Header()"))).toBe("{}");
    expect(ok(run("Header()", ctx({ headers })))).toBe('{"X-Header-1":"value1","X-Header-2":"value2"}');
    expect(ok(run("Header('')", ctx({ headers })))).toBe('{"X-Header-1":"value1","X-Header-2":"value2"}');
  });
  it("Header(name): case-insensitive lookup", () => {
    const c = ctx({ headers: { "X-Header": "value" } });
    expect(ok(run("Header('x-header')", c))).toBe('"value"');
    expect(ok(run("Header('X-HEADER')", c))).toBe('"value"');
    expect(ok(run("Header(header='x-Header')", c))).toBe('"value"');
  });
  it("Header(name) fails on a missing header, naming it canonically", () => {
    expect(err(run("Header('x-header-3')"))).toBe('header "X-Header-3" not found');
    expect(err(run("Header('Invalid-KEY')"))).toBe('header "Invalid-Key" not found');
  });
  it("Header(name, default)", () => {
    const c = ctx({ headers: { "X-Header": "value" } });
    expect(ok(run("Header('x-header', 'default value')", c))).toBe('"value"');
    expect(ok(run("Header('x-header-3', 'default value')", c))).toBe('"default value"');
    expect(ok(run("Header('x-header-3', null)", c))).toBe("null");
  });
  it("the internal sentinel as default means no default", () => {
    expect(err(run(`Header('x', '${THROW_ERR_ON_UNDEFINED}')`))).toBe('header "X" not found');
  });
  it("non-string name", () => {
    expect(err(run("Header(1)"))).toBe("parameter must be a string");
  });
});

describe("Body()", () => {
  it("fails without a supported content type", () => {
    expect(err(run("Body()", ctx({ body: "{}" })))).toBe(
      'cannot parse request body:\n- unsupported content type "", supported types: application/json and application/x-www-form-urlencoded',
    );
    // exact match only: parameters make it unsupported
    expect(err(run("Body()", ctx({ body: "{}", headers: { "content-type": "application/json; charset=utf-8" } })))).toBe(
      'cannot parse request body:\n- unsupported content type "application/json; charset=utf-8", supported types: application/json and application/x-www-form-urlencoded',
    );
  });
  it("JSON (application/json and application/*+json)", () => {
    expect(ok(run("Body()", json('{"foo":"bar"}')))).toBe('{"foo":"bar"}');
    expect(ok(run("Body()", json("{}")))).toBe("{}");
    const vnd = ctx({ body: '{"foo":"bar"}', headers: { "Content-Type": "application/vnd.api+json" } });
    expect(ok(run("Body()", vnd))).toBe('{"foo":"bar"}');
  });
  it("invalid JSON fails with the service's prefix", () => {
    expect(err(run("Body()", json("{...")))).toMatch(/^cannot parse request body:\n- invalid JSON: /);
  });
  it("form data", () => {
    const form = (body: string) => ctx({ body, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    expect(ok(run("Body()", form("foo=bar")))).toBe('{"foo":"bar"}');
    expect(ok(run("Body()", form("")))).toBe("{}");
    expect(ok(run("Body()", form("key1=bar1&key2[]=bar2&key2[]=bar3")))).toBe('{"key1":"bar1","key2":["bar2","bar3"]}');
  });
  it("output is go-jsonnet's: keys sorted, floats with 17 significant digits", () => {
    expect(ok(run("Body()", json('{"b":1,"a":0.1,"c":1e21}')))).toBe('{"a":0.10000000000000001,"b":1,"c":1000000000000000000000}');
  });
});

describe("Body(path)", () => {
  const body = json('{"foo1":{"foo2":"bar"},"key1":[{"key2":"val2"},{"key3":"val3"}],"n":null}');
  it("nested path with dots and indexes", () => {
    expect(ok(run("Body('foo1.foo2')", body))).toBe('"bar"');
    expect(ok(run("Body('foo1')", body))).toBe('{"foo2":"bar"}');
    expect(ok(run("Body('key1[1].key3')", body))).toBe('"val3"');
    expect(ok(run("Body('key1')", body))).toBe('[{"key2":"val2"},{"key3":"val3"}]');
    expect(ok(run("Body('n')", body))).toBe("null");
  });
  it("fails on a missing path; the record is not saved", () => {
    expect(err(run("Body('foo1.foo2')", json("{}")))).toBe('path "foo1.foo2" not found in the body');
    expect(err(run("Body('key1.invalid')", body))).toBe('path "key1.invalid" not found in the body');
    expect(err(run("Body('key1[5]')", body))).toBe('path "key1[5]" not found in the body');
  });
  it("Body(path, default)", () => {
    expect(ok(run("Body('foo1.foo2', 'default value')", body))).toBe('"bar"');
    expect(ok(run("Body('foo1.foo3', 'default value')", body))).toBe('"default value"');
    expect(ok(run("Body('key1.invalid', 123)", body))).toBe("123");
    expect(ok(run("Body(path='x', default={a: [1]})", body))).toBe('{"a":[1]}');
  });
  it("body parse errors are not replaced by the default", () => {
    expect(err(run("Body('a', 'd')", ctx({ body: "{}" })))).toMatch(/^cannot parse request body:\n- unsupported content type ""/);
  });
  it("non-string path", () => {
    expect(err(run("Body(1)", body))).toBe("first parameter must be a string");
  });
  it("form data paths", () => {
    const form = ctx({ body: "a[b]=1&c[0]=x&c[1]=y", headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    expect(ok(run("Body('a.b')", form))).toBe('"1"');
    expect(ok(run("Body('c[1]')", form))).toBe('"y"');
  });
});

describe("templates combining the globals", () => {
  it("evaluates jsonnet with the globals and std", () => {
    const c = json('{"user":{"name":"Ann","tags":["a","b"]}}', { "X-Id": "7" });
    const tmpl = `{ name: Body('user.name'), tags: std.join(',', Body('user.tags')), id: std.parseInt(Header('x-id')), ip: Ip() }`;
    expect(ok(run(tmpl, c))).toBe('{"id":7,"ip":"1.2.3.4","name":"Ann","tags":"a,b"}');
  });
  it("jsonnet runtime errors are reported by message only", () => {
    expect(err(run("error 'boom'"))).toBe("boom");
    expect(err(run("{}.x"))).toBe("Field does not exist: x");
    expect(err(run("local f(x) = x + f(x + 1); {recursion: f(1)}"))).toBe("max stack frames exceeded.");
    expect(err(run("import 'x.libsonnet'"))).toBe("imports are not enabled");
  });
  it("keeps working after many failed evaluations", () => {
    for (let i = 0; i < 300; i++) err(run("local f(x) = error 'e'; f(1)"));
    expect(ok(run("1 + 1"))).toBe("2");
  });
  it("parses the body once per record context", () => {
    const c = json('{"a":1}');
    expect(ok(run("Body('a')", c))).toBe("1");
    c.body = '{"a":2}'; // a context object is one record: its parsed body is cached
    expect(ok(run("Body('a')", c))).toBe("1");
    expect(ok(run("BodyStr()", c))).toBe(JSON.stringify('{"a":2}'));
  });
});
