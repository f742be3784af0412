import { describe, expect, it } from "vitest";
import { fastGet, fastString, FastJSONError, parseFastJSON, stringBytes, unescapeBestEffort, type FastValue } from "../../keboola/fastjson";
import { goQuoteBytes } from "../../keboola/go-quote";
import recorded from "./fixtures/fastjson-recorded.json";

// Every expected value here was recorded by running github.com/valyala/fastjson v1.6.10, the
// version keboola/keboola-as-code go.mod pins (fixtures/fastjson-recorded.json "recordedWith"; the
// program is fixtures/fastjson-recorder/main.go): Parser.Parse's text or error, and path reads made
// as keboola-as-code internal/pkg/service/stream/mapping/table/column/renderer.go jsonPathCSVValue
// makes them, on one parsed value in turn, then the whole value printed.

interface ParseCase {
  in: string;
  out?: string;
  err?: string;
}
interface Read {
  keys: string[];
  raw?: boolean;
  out: string | null;
}
interface ReadCase {
  body: string;
  reads: Read[];
  after: string;
}

/** renderer.go jsonPathCSVValue from the parsed value on (null: the path is not in the body). */
function render(v: FastValue, keys: string[], raw: boolean): string | null {
  const found = keys.length > 0 ? fastGet(v, keys) : v;
  if (!found) return null;
  return (raw ? stringBytes(found) : undefined) ?? fastString(found);
}

const label = (s: string): string => JSON.stringify(s.length > 60 ? `${s.slice(0, 57)}...` : s);

describe("fastjson's parser (recorded)", () => {
  it.each((recorded.parse as ParseCase[]).map((c) => [label(c.in), c] as const))("%s", (_, c) => {
    if (c.err !== undefined) {
      let thrown: unknown;
      try {
        parseFastJSON(c.in);
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(FastJSONError);
      expect((thrown as Error).message).toBe(c.err);
    } else {
      expect(fastString(parseFastJSON(c.in))).toBe(c.out);
    }
  });

  it("records both answers: values and errors, and every error level fastjson has", () => {
    const cases = recorded.parse as ParseCase[];
    const errors = cases.flatMap((c) => (c.err ? [c.err] : []));
    expect(cases.length - errors.length).toBeGreaterThan(20);
    for (const level of ["cannot parse object: ", "cannot parse array: ", "cannot parse string: ", "cannot parse number: ", "cannot parse object key: ", "cannot parse object value: ", "cannot parse array value: ", "unexpected tail: ", "too big depth"]) {
      expect(errors.some((e) => e.includes(level))).toBe(true);
    }
  });
});

describe("path reads on one parsed body (recorded)", () => {
  it.each((recorded.reads as ReadCase[]).map((c) => [label(c.body), c] as const))("%s", (_, c) => {
    const value = parseFastJSON(c.body);
    const got = c.reads.map((r) => ({ ...r, out: render(value, r.keys, r.raw ?? false) }));
    expect(got).toEqual(c.reads);
    expect(fastString(value)).toBe(c.after);
  });
});

describe("Go's %q of bytes that may not be UTF-8 (recorded: strconv.Quote)", () => {
  // fastjson cuts a long tail at its 40th bytes, inside a character at times: Go prints each byte
  // it cannot read as UTF-8 (a cut sequence, an overlong form, a surrogate, past U+10FFFF) as \xNN.
  it.each(recorded.quoteBytes.map((c) => [c.hex, c.out] as const))("%s", (hex, out) => {
    expect(goQuoteBytes(Buffer.from(hex, "hex"))).toBe(out);
  });
});

describe("unescapeBestEffort", () => {
  // No parsed string ends in a lone backslash (it would escape the closing quote), so this one is
  // read from fastjson's parser.go unescapeStringBestEffort, not recorded: its loop ends there.
  it("drops a backslash that ends the text", () => {
    expect(unescapeBestEffort("a\\n\\")).toBe("a\n");
    expect(unescapeBestEffort("\\")).toBe("");
  });
});
