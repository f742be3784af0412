// A Stream record as the service's renderer sees it (keboola/stream-record.ts, json-node.ts).
// The OTLP texts below were observed by running json-iterator/go v1.1.12 and keboola/go-utils
// v1.4.0 (the versions keboola-as-code's go.mod pins) as keboola-as-code
// internal/pkg/service/stream/mapping/recordctx/otlp.go uses them: json.Unmarshal of the test
// request's body into an *orderedmap.OrderedMap, then json.Marshal of it
// (jsoniter.ConfigCompatibleWithStandardLibrary, recordctx/utils.go).
import { describe, expect, it } from "vitest";
import { asDecodedObject, Float64RangeError, fromPlain, parseJSON, type JObject } from "../../keboola/json-node";
import { clientIp, MappedRecord, otlpBodyText } from "../../keboola/stream-record";

const decoded = (text: string): JObject => {
  const node = parseJSON(text);
  if (node.t !== "obj") throw new Error("not an object");
  return asDecodedObject(node);
};

describe("an OTLP record's body text", () => {
  it.each([
    ['{"a":1,"b":2,"a":3}', '{"b"\n:2\n,"a"\n:3\n}'],
    ['{"x":{"p":1,"q":2},"y":0,"x":{"q":3,"r":4}}', '{"y"\n:0\n,"x"\n:{"q":3,"r":4}\n}'],
    [
      '{"n":-0,"m":1.50,"e":1e21,"s":1.5e-7,"t":0.000001,"big":12345678901234567890,"i":100}',
      '{"n"\n:-0\n,"m"\n:1.5\n,"e"\n:1e+21\n,"s"\n:1.5e-7\n,"t"\n:0.000001\n,"big"\n:12345678901234567000\n,"i"\n:100\n}',
    ],
    ['{"s":"a<b>&\\u2028\\b\\f\\u0001\\"\\\\/é"}', '{"s"\n:"a\\u003cb\\u003e\\u0026\\u2028\\b\\f\\u0001\\"\\\\/é"\n}'],
    ["{}", "{}"],
    ['{"arr":[{"k":1,"k":2},[]],"o":{}}', '{"arr"\n:[{"k":2},[]]\n,"o"\n:{}\n}'],
  ])("%s is written as Go writes it", (text, body) => {
    expect(otlpBodyText(decoded(text))).toBe(body);
  });

  it("refuses a number beyond float64, as Go's decoder does", () => {
    expect(() => decoded('{"n":1e400}')).toThrow(Float64RangeError);
  });

  it("is the same for a record given as a JavaScript object", () => {
    expect(otlpBodyText(decoded('{"a":1.50,"b":{"c":"<"}}'))).toBe(otlpBodyText({ t: "obj", entries: (fromPlain({ a: 1.5, b: { c: "<" } }) as JObject).entries }));
  });
});

describe("a record's body map", () => {
  const at = Date.UTC(2024, 5, 1, 12);
  it("is an OTLP record whatever the Content-Type, and an HTTP body parsed by it", () => {
    const otlp = new MappedRecord({ source: "otlp", receivedAt: at, ip: "10.0.0.1", headers: { "Content-Type": "application/x-protobuf" }, signal: "logs", record: decoded('{"a":1}') });
    expect(otlp.bodyMap()).toEqual({ a: 1 });
    expect(otlp.template.bodyMap).toEqual({ a: 1 });
    expect(otlp.signal).toBe("logs");
    const http = new MappedRecord({ source: "http", receivedAt: at, ip: "10.0.0.1", headers: { "Content-Type": "application/x-protobuf" }, body: '{"a":1}' });
    expect(() => http.bodyMap()).toThrow('unsupported content type "application/x-protobuf"');
    expect(http.signal).toBe("");
    const untyped = new MappedRecord({ source: "http", receivedAt: at, ip: "10.0.0.1", headers: {}, body: '{"a":1}' });
    expect(untyped.contentType).toBe("");
    expect(() => untyped.bodyMap()).toThrow('unsupported content type ""');
    expect(() => untyped.jsonValue()).not.toThrow();
    const broken = new MappedRecord({ source: "http", receivedAt: at, ip: "10.0.0.1", headers: {}, body: '{"a":' });
    expect(() => broken.jsonValue()).toThrow(/^cannot parse request json:\n- cannot parse JSON: \S/);
  });
});

describe("the client IP", () => {
  // keboola-as-code internal/pkg/utils/ip/ip.go From and its ip_test.go.
  it("is X-Real-IP, else the first address of X-Forwarded-For, else the peer", () => {
    expect(clientIp({ "X-Real-Ip": "1.1.1.1", "X-Forwarded-For": "2.2.2.2" }, "::1")).toBe("1.1.1.1");
    expect(clientIp({ "X-Forwarded-For": "1.1.1.3:53000, 2.2.2.2" }, "::1")).toBe("1.1.1.3");
    expect(clientIp({}, "::ffff:10.1.2.3")).toBe("10.1.2.3");
    expect(clientIp({}, undefined)).toBe("<nil>");
  });

  // The same ip_test.go cases, then what Go's net.SplitHostPort and net.ParseIP make of the rest.
  it.each([
    [{ "X-Real-Ip": "::1" }, "1.1.1.1", "::1"],
    [{ "X-Forwarded-For": "::1" }, "1.1.1.1", "::1"],
    [{ "X-Forwarded-For": "1.1.1.2" }, "1.1.1.1", "1.1.1.2"],
    // an X-Real-IP that is no address is passed over, whatever it looks like
    [{ "X-Real-Ip": "1.1.1.256", "X-Forwarded-For": "2.2.2.2" }, "::1", "2.2.2.2"],
    [{ "X-Real-Ip": "01.1.1.1" }, "::1", "::1"],
    [{ "X-Real-Ip": "x1.1.1.1" }, "::1", "::1"],
    [{ "X-Real-Ip": "1.1.1.1x" }, "::1", "::1"],
    [{ "X-Real-Ip": "fe80::1%eth0" }, "::1", "::1"],
    [{ "X-Real-Ip": "" }, "::1", "::1"],
    // X-Forwarded-For: the first part that parses, with or without a port (any port text)
    [{ "X-Forwarded-For": "proxy, 2.2.2.2" }, "::1", "::1"],
    [{ "X-Forwarded-For": "proxy,2.2.2.2" }, "::1", "2.2.2.2"],
    [{ "X-Forwarded-For": "host:80,3.3.3.3:x" }, "::1", "3.3.3.3"],
    [{ "X-Forwarded-For": "[2001:db8::1]:443" }, "::1", "2001:db8::1"],
    [{ "X-Forwarded-For": "[2001:db8::1],4.4.4.4" }, "::1", "4.4.4.4"],
    [{ "X-Forwarded-For": "a[::1]:80,5.5.5.5" }, "::1", "5.5.5.5"],
    [{ "X-Forwarded-For": "::1:80" }, "9.9.9.9", "::1:80"],
    [{ "X-Forwarded-For": ":80,6.6.6.6" }, "::1", "6.6.6.6"],
    // printed as Go's net.IP.String() prints it
    [{ "X-Real-Ip": "2001:DB8:0:0:1:0:0:1" }, "::1", "2001:db8::1:0:0:1"],
    [{ "X-Real-Ip": "::ffff:a01:203" }, "::1", "10.1.2.3"],
    [{}, "0:0:0:0:0:0:0:1", "::1"],
  ] as const)("headers %j from peer %s: %s", (headers, peer, ip) => {
    expect(clientIp({ ...headers }, peer)).toBe(ip);
  });
});
