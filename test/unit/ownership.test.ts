import { describe, expect, it } from "vitest";
import { derivedConfigId, describeOwner, markedLengthFailure, splitMarker, withMarker } from "../../provider/resources/ownership";

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
