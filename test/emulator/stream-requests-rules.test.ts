import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { StreamError } from "../../emulator/stream/errors";
import { EOF, firstValue } from "../../emulator/stream/go-decoder";
import { asSentence } from "../../emulator/stream/gofmt";
import { BODIES, decodeBody } from "../../emulator/stream/validation";
// Recorded by running Go's encoding/json as goa's request decoder runs it (json.NewDecoder(body)
// .Decode) on the Stream API's generated request body types: test/emulator/fixtures/
// go-decoder-recorder (`go run . > ../go-decoder-recorded.json`).
import recorded from "./fixtures/go-decoder-recorded.json";

// How the emulator decodes Stream API request bodies (emulator/stream/go-decoder.ts and
// validation.ts decodeBody), case by case against Go: what is accepted and how it reads, and each
// error text. The routes add only the error writer's sentence form.

type Body = keyof typeof BODIES;
interface Case {
  body: string;
  text: string;
  error?: string;
  decoded?: unknown;
}

const app = new Hono();
app.post("/:body", async (c) => {
  try {
    return c.json({ decoded: await decodeBody(c, c.req.param("body") as Body) });
  } catch (e) {
    if (e instanceof StreamError) return c.json({ error: e.body() });
    throw e;
  }
});

async function decode(body: string, text: string): Promise<{ decoded?: unknown; error?: unknown }> {
  const res = await app.request(`/${body}`, { method: "POST", body: new TextEncoder().encode(text) });
  return (await res.json()) as { decoded?: unknown; error?: unknown };
}

/** A decoded body as Go marshals it back: nil pointers (null) and empty lists are omitted (omitempty). */
function asMarshalled(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(asMarshalled);
  if (v && typeof v === "object") {
    return Object.fromEntries(
      Object.entries(v)
        .filter(([, x]) => x !== null && !(Array.isArray(x) && x.length === 0))
        .map(([k, x]) => [k, asMarshalled(x)]),
    );
  }
  return v;
}

const cases = recorded as Case[];

describe("request bodies decoded as Go's json.Decoder decodes them (recorded)", () => {
  it("has the recorded cases of every body", () => {
    expect(new Set(cases.map((c) => c.body))).toEqual(new Set(Object.keys(BODIES)));
  });

  it.each(cases.filter((c) => c.error === undefined).map((c) => [c.body, c.text, c] as const))("%s accepts %j", async (body, text, c) => {
    const { decoded, error } = await decode(body, text);
    expect(error).toBeUndefined();
    expect(asMarshalled(decoded)).toEqual(c.decoded ?? {});
  });

  it.each(cases.filter((c) => c.error !== undefined).map((c) => [c.body, c.text, c.error!] as const))("%s refuses %j: %s", async (body, text, error) => {
    const expected =
      error === EOF
        ? { statusCode: 400, error: "stream.api.missingPayload", message: "Missing required payload." }
        : { statusCode: 400, error: "stream.api.decodePayload", message: asSentence(error) };
    expect((await decode(body, text)).error).toEqual(expected);
  });
});

describe("firstValue", () => {
  it("gives the bytes of the first value, after any whitespace, and nothing past it", () => {
    const value = '{"a":[1,-2.5e+3,"x\\"y",true,false,null]}';
    expect(firstValue(new TextEncoder().encode(` \n${value} {"b":`))).toEqual({ start: 2, end: 2 + value.length });
    expect(firstValue(new TextEncoder().encode("0 1"))).toEqual({ start: 0, end: 1 });
  });

  it("quotes a byte above 0x7f as the code point of that byte, as quoteChar does", () => {
    expect(firstValue(Uint8Array.of(0x80))).toEqual({ error: "invalid character '\\u0080' looking for beginning of value" });
    expect(firstValue(Uint8Array.of(0xff))).toEqual({ error: "invalid character 'ÿ' looking for beginning of value" });
    expect(firstValue(Uint8Array.of(0x5c))).toEqual({ error: "invalid character '\\\\' looking for beginning of value" });
  });
});
