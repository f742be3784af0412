import { describe, expect, it } from "vitest";
import {
  formatByteSize,
  formatGoDuration,
  parseByteSize,
  parseDuration,
  parseGoDuration,
  parseSize,
  SizeError,
} from "../../keboola/quantities";
import recorded from "./fixtures/go-quantities.json";

// Every expected value below was recorded from the real Go code the Stream service runs (see
// fixtures/go-quantities.json "recordedWith"):
//  - durations: keboola/keboola-as-code internal/pkg/service/common/duration/duration.go
//    (Duration.UnmarshalText = time.ParseDuration), golang/go src/time/format.go (ParseDuration,
//    quote) and src/time/time.go (Duration.String), go1.26.8;
//  - sizes: c2h5oh/datasize datasize.go (ByteSize.UnmarshalText, String) at
//    v0.0.0-20231215233829-aa82cc1e6500, the version keboola/keboola-as-code go.mod pins.

interface Case {
  in: string;
  value?: string;
  str?: string;
  err?: string;
}

const durations = recorded.durations as Case[];
const sizes = recorded.sizes as Case[];

describe("durations parse exactly as time.ParseDuration", () => {
  it.each(durations.filter((c) => c.err === undefined).map((c) => [c.in, c] as const))("accepts %j", (_, c) => {
    const ns = parseGoDuration(c.in);
    expect(ns.toString()).toBe(c.value);
    expect(formatGoDuration(ns)).toBe(c.str);
  });

  it.each(durations.filter((c) => c.err !== undefined).map((c) => [c.in, c] as const))("refuses %j with Go's error", (_, c) => {
    expect(() => parseGoDuration(c.in)).toThrow(c.err);
    expect(parseDuration(c.in)).toEqual({ ok: false, error: c.err });
  });

  it("the table covers the forms issue 8 names", () => {
    const refused = new Set(durations.filter((c) => c.err !== undefined).map((c) => c.in));
    for (const form of ["1 s", " 1s", "1s ", "1", "1d", "", "5 m"]) expect(refused.has(form), form).toBe(true);
    const accepted = new Set(durations.filter((c) => c.err === undefined).map((c) => c.in));
    for (const form of ["1h30m", ".5s", "1.5h", "-1s"]) expect(accepted.has(form), form).toBe(true);
  });
});

describe("sizes parse exactly as datasize.ByteSize.UnmarshalText", () => {
  it.each(sizes.filter((c) => c.err === undefined).map((c) => [c.in, c] as const))("accepts %j", (_, c) => {
    const bytes = parseByteSize(c.in);
    expect(bytes.toString()).toBe(c.value);
    expect(formatByteSize(bytes)).toBe(c.str);
  });

  it.each(sizes.filter((c) => c.err !== undefined).map((c) => [c.in, c] as const))("refuses %j with Go's error", (_, c) => {
    let thrown: unknown;
    try {
      parseByteSize(c.in);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(SizeError);
    expect((thrown as SizeError).message).toBe(c.err);
    // The service's PATCH error quotes the NumError's reason only: the text after the quoted input.
    expect(c.err!.endsWith(`: ${(thrown as SizeError).reason}`)).toBe(true);
    expect(parseSize(c.in)).toEqual({ ok: false, error: c.err });
  });

  it("the table covers the forms issue 8 names", () => {
    const refused = new Set(sizes.filter((c) => c.err !== undefined).map((c) => c.in));
    for (const form of ["5Mb", "5MiB", "1.5MB", " 5MB", "-5MB"]) expect(refused.has(form), form).toBe(true);
    const accepted = new Set(sizes.filter((c) => c.err === undefined).map((c) => c.in));
    for (const form of ["5MB", "5mb", "5 MB", "5MB ", "5", "100B"]) expect(accepted.has(form), form).toBe(true);
  });
});
