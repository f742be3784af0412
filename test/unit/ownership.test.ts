import { describe, expect, it } from "vitest";
import { conflict, derivedConfigId, describeOwner, isCounterpart, markedLengthFailure, ownerOf, splitMarker, withMarker } from "../../provider/lifecycle/ownership";

const URN = "urn:pulumi:prod::shop::pulumi-nodejs:dynamic/keboola:Sink::orders";

describe("owner markers", () => {
  it("round-trip through a description, empty or not, and leave unmarked text alone", () => {
    for (const text of ["", "Orders from the shop", "two\n\nparagraphs"]) {
      expect(splitMarker(withMarker(text, URN))).toEqual({ text, owner: URN });
    }
    expect(splitMarker("managed by hand")).toEqual({ text: "managed by hand" });
    expect(withMarker("x", undefined)).toBe("x");
  });

  it("name an owner in words, and say when there is none", () => {
    expect(describeOwner(URN)).toBe('stack "prod" of project "shop", resource keboola:Sink "orders"');
    expect(describeOwner("urn:pulumi:dev::shop::my:component$pulumi-nodejs:dynamic/keboola:Source::events")).toBe('stack "dev" of project "shop", resource keboola:Source "events"');
    expect(describeOwner(undefined)).toMatch(/not created by keboola-pulumi/);
  });

  it("derive a stable configuration id per owner", () => {
    expect(derivedConfigId(URN)).toBe(derivedConfigId(URN));
    expect(derivedConfigId(URN)).not.toBe(derivedConfigId(URN.replace("prod", "dev")));
    expect(derivedConfigId(URN)).toMatch(/^kp-[0-9a-f]{20}$/);
  });

  it("refuse at preview a description that the marker would push over the service's limit", () => {
    // 4096: keboola/keboola-as-code api/stream/design.go, SourceFieldsRW description MaxLength.
    const room = 4096 - (withMarker("x", URN).length - 1);
    expect(markedLengthFailure("description", "x".repeat(room), URN, 4096)).toBeUndefined();
    expect(markedLengthFailure("description", "x".repeat(room + 1), URN, 4096)?.reason).toMatch(new RegExp(`shorten it to at most ${room}$`));
  });
});

describe("markers, owners and counterparts: the edges", () => {
  it("a marker counts only at the very end of the text, as its own paragraph or the whole text", () => {
    expect(splitMarker(`notes\n\nmanaged by keboola-pulumi: ${URN}\n\nmore`)).toEqual({ text: `notes\n\nmanaged by keboola-pulumi: ${URN}\n\nmore` });
    expect(splitMarker(`notes managed by keboola-pulumi: ${URN}`)).toEqual({ text: `notes managed by keboola-pulumi: ${URN}` });
    expect(splitMarker(`managed by keboola-pulumi: ${URN}`)).toEqual({ text: "", owner: URN });
    expect(splitMarker(null)).toEqual({ text: "" });
    expect(splitMarker(undefined)).toEqual({ text: "" });
  });

  it("the owner of a call is its __owner when that is a Pulumi URN", () => {
    expect(ownerOf({ __owner: URN })).toBe(URN);
    expect(ownerOf({ __owner: "orders" })).toBeUndefined();
    expect(ownerOf({ __owner: 7 })).toBeUndefined();
    expect(ownerOf({})).toBeUndefined();
  });

  it("names the stack and type only where the URN has them (a name containing urn:pulumi: stays)", () => {
    expect(describeOwner("urn:pulumi:prod::shop::pulumi-nodejs:dynamic/keboola:Sink::urn:pulumi:x")).toBe('stack "prod" of project "shop", resource keboola:Sink "urn:pulumi:x"');
    expect(describeOwner("urn:pulumi:prod::shop::custom:x:pulumi-nodejs:dynamic/keboola:Sink::orders")).toBe('stack "prod" of project "shop", resource custom:x:pulumi-nodejs:dynamic/keboola:Sink "orders"');
    expect(describeOwner("urn:pulumi:a::b")).toBe("urn:pulumi:a::b");
    expect(describeOwner("my-urn:pulumi:prod::shop::keboola:Sink::orders")).toBe('stack "my-urn:pulumi:prod" of project "shop", resource keboola:Sink "orders"');
  });

  it("an ownership conflict is an OwnershipConflict by name", () => {
    expect(conflict('sink "x"', "in source y", URN, undefined, "Rename it.").name).toBe("OwnershipConflict");
  });

  it("a counterpart is the same project, type and name in another stack", () => {
    const dev = URN.replace("urn:pulumi:prod::", "urn:pulumi:pr-9::");
    expect(isCounterpart(URN, dev)).toBe(true);
    expect(isCounterpart(URN, URN)).toBe(false);
    expect(isCounterpart(URN, dev.replace("::orders", "::returns"))).toBe(false);
    expect(isCounterpart(URN, dev.replace("::shop::", "::other::"))).toBe(false);
    expect(isCounterpart(URN, undefined)).toBe(false);
    expect(isCounterpart(undefined, dev)).toBe(false);
    expect(isCounterpart("not-a-urn::shop::pulumi-nodejs:dynamic/keboola:Sink::orders", dev)).toBe(false);
    expect(isCounterpart(URN, "not-a-urn::shop::pulumi-nodejs:dynamic/keboola:Sink::orders")).toBe(false);
  });
});
