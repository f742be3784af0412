import { describe, expect, it } from "vitest";
import { resourceName, same, stableJson } from "../../provider/lifecycle/common";
import { programFacts } from "../../provider/lifecycle/facts";
import { PartialFailure } from "../../provider/lifecycle/types";

// The pieces every resource uses (provider/lifecycle/common.ts, facts.ts, types.ts), directly.

describe("stableJson and same: values compared as JSON regardless of key order", () => {
  it("sorts keys at every depth, leaves out undefined fields, and keeps list order", () => {
    expect(stableJson({ b: 1, a: { d: [2, { z: 1, y: null }], c: "x" }, u: undefined })).toBe('{"a":{"c":"x","d":[2,{"y":null,"z":1}]},"b":1}');
    expect(stableJson([3, 1, 2])).toBe("[3,1,2]");
    expect(stableJson("a\"b")).toBe('"a\\"b"');
    expect(stableJson({ 'k"': true })).toBe('{"k\\"":true}');
  });

  it("writes undefined and null alike, so an omitted value equals a null one", () => {
    expect(stableJson(undefined)).toBe("null");
    expect(stableJson(null)).toBe("null");
    expect(same(undefined, null)).toBe(true);
    expect(same({ a: undefined }, {})).toBe(true);
  });

  it("tells apart what differs in value, type, list order or an extra field", () => {
    expect(same({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 })).toBe(true);
    expect(same({ a: 1 }, { a: "1" })).toBe(false);
    expect(same([1, 2], [2, 1])).toBe(false);
    expect(same({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(same([], {})).toBe(false);
    expect(same({ a: [] }, { a: {} })).toBe(false);
  });
});

describe("resourceName", () => {
  it("is the recorded name, else the end of the owner URN (state from before names were recorded), else (unnamed)", () => {
    expect(resourceName({ __resourceName: "raw", __owner: "urn:pulumi:dev::p::pulumi-nodejs:dynamic/keboola:Bucket::other" })).toBe("raw");
    expect(resourceName({ __owner: "urn:pulumi:dev::p::pulumi-nodejs:dynamic/keboola:Bucket::events" })).toBe("events");
    expect(resourceName({ __owner: "no-separator" })).toBe("no-separator");
    expect(resourceName({ __resourceName: 7, __owner: 8 })).toBe("(unnamed)");
    expect(resourceName({})).toBe("(unnamed)");
  });
});

describe("programFacts: what of __program this version can read", () => {
  it("keeps each fact that parses and leaves out each one that does not, on its own", () => {
    expect(
      programFacts({
        __program: {
          sourceType: "http",
          declared: "yes",
          plainSecrets: ["#a"],
          declaredBefore: [1],
          bucketId: "in.c-raw",
          branch: { resource: "dev" },
          configuration: { resource: "cfg", isDisabled: false, variables: { resource: "v", declared: [], defaultRow: "elsewhere" } },
          stackBranch: "pr-1",
          somethingNewer: true,
        },
      }),
    ).toEqual({ sourceType: "http", plainSecrets: ["#a"], bucketId: "in.c-raw", branch: { resource: "dev" }, stackBranch: "pr-1" });
  });

  it("reads a configuration's facts with its bound variables", () => {
    const configuration = { type: "Flow", resource: "flow", isDisabled: true, bound: false, variables: { resource: "v", declared: [{ name: "a" }], defaultRow: "declared" } };
    expect(programFacts({ __program: { configuration } })).toEqual({ configuration });
    const component = { type: "ComponentConfig", resource: "cfg", isDisabled: false };
    expect(programFacts({ __program: { configuration: component } })).toEqual({ configuration: component });
  });

  it("is empty when the inputs carry none, or something other than a record", () => {
    expect(programFacts({})).toEqual({});
    expect(programFacts({ __program: "facts" })).toEqual({});
    expect(programFacts({ __program: [{ sourceType: "http" }] })).toEqual({});
  });
});

describe("PartialFailure", () => {
  it("carries the object's id and properties, and its message as the one reason unless reasons are given", () => {
    const one = new PartialFailure("settings not applied", "in.c-raw", { a: 1 });
    expect([one.message, one.id, one.properties, one.reasons]).toEqual(["settings not applied", "in.c-raw", { a: 1 }, ["settings not applied"]]);
    expect(new PartialFailure("two problems", "x", {}, ["first", "second"]).reasons).toEqual(["first", "second"]);
  });
});
