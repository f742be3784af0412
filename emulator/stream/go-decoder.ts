import { goQuote } from "./gofmt";

// Go's encoding/json scanner as the Stream API's request decoder runs it (goa's RequestDecoder:
// json.NewDecoder(body).Decode). The decoder reads the first JSON value of the body and never
// looks past it, so `{"name":"a"} trailing` is accepted; a body of whitespace only is io.EOF
// (goa's "missing payload"); a value cut short is "unexpected EOF"; anything else the scanner
// refuses is "invalid character 'c' <where>", with the byte quoted as quoteChar quotes it.
// The texts were recorded from Go: test/emulator/fixtures/go-decoder-recorder.

/** What Decode returns for a body with no value (only whitespace). */
export const EOF = "EOF";

/** Where the body's first value lies (bytes), or Go's error for it. */
export type FirstValue = { start: number; end: number } | { error: string };

class ScanError extends Error {}

// Go's isSpace: the four JSON whitespace bytes only (not \f, not U+00A0).
const isSpace = (b: number | undefined) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
const isDigit = (b: number | undefined) => b !== undefined && b >= 0x30 && b <= 0x39;
const isHex = (b: number | undefined) => isDigit(b) || (b !== undefined && ((b >= 0x61 && b <= 0x66) || (b >= 0x41 && b <= 0x46)));

/** The characters after a backslash that make an escape: " \ / b f n r t (u is read apart). */
const ESCAPES = new Set<number | undefined>([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);

/** encoding/json quoteChar: a byte as a Go character literal; a byte above 0x7f reads as that code point. */
function quoteChar(b: number): string {
  if (b === 0x27) return "'\\''";
  if (b === 0x22) return "'\"'";
  return `'${goQuote(String.fromCharCode(b)).slice(1, -1)}'`;
}

export function firstValue(bytes: Uint8Array): FirstValue {
  let i = 0;
  const at = () => bytes[i];
  /** The scanner's error at the current byte; past the end the value was cut short. */
  const fail = (where: string): never => {
    throw new ScanError(i >= bytes.length ? "unexpected EOF" : `invalid character ${quoteChar(bytes[i])} ${where}`);
  };
  const skipSpace = () => {
    while (isSpace(at())) i++;
  };
  const expect = (b: number, where: string) => {
    if (at() !== b) fail(where);
    i++;
  };

  const string = () => {
    i++;
    for (;;) {
      const b = at();
      if (b === 0x22) return void i++;
      if (b === 0x5c) {
        i++;
        const e = at();
        if (ESCAPES.has(e)) i++;
        else if (e === 0x75) {
          i++;
          for (let k = 0; k < 4; k++) {
            if (!isHex(at())) fail("in \\u hexadecimal character escape");
            i++;
          }
        } else fail("in string escape code");
      } else if (b === undefined || b < 0x20) fail("in string literal");
      else i++;
    }
  };

  const digits = () => {
    while (isDigit(at())) i++;
  };
  const number = () => {
    if (at() === 0x2d) {
      i++;
      if (!isDigit(at())) fail("in numeric literal");
    }
    // A leading 0 is the whole integer part: `01` ends the number at `1`.
    if (at() === 0x30) i++;
    else digits();
    if (at() === 0x2e) {
      i++;
      if (!isDigit(at())) fail("after decimal point in numeric literal");
      digits();
    }
    if (at() === 0x65 || at() === 0x45) {
      i++;
      if (at() === 0x2b || at() === 0x2d) i++;
      if (!isDigit(at())) fail("in exponent of numeric literal");
      digits();
    }
  };

  const literal = (word: string) => {
    i++;
    for (let k = 1; k < word.length; k++) expect(word.charCodeAt(k), `in literal ${word} (expecting ${quoteChar(word.charCodeAt(k))})`);
  };

  const value = (): void => {
    const b = at();
    if (b === 0x7b) {
      i++;
      skipSpace();
      if (at() === 0x7d) return void i++;
      for (;;) {
        if (at() !== 0x22) fail("looking for beginning of object key string");
        string();
        skipSpace();
        expect(0x3a, "after object key");
        skipSpace();
        value();
        skipSpace();
        if (at() === 0x7d) return void i++;
        expect(0x2c, "after object key:value pair");
        skipSpace();
      }
    }
    if (b === 0x5b) {
      i++;
      skipSpace();
      if (at() === 0x5d) return void i++;
      for (;;) {
        value();
        skipSpace();
        if (at() === 0x5d) return void i++;
        expect(0x2c, "after array element");
        skipSpace();
      }
    }
    if (b === 0x22) return string();
    if (b === 0x2d || isDigit(b)) return number();
    if (b === 0x74) return literal("true");
    if (b === 0x66) return literal("false");
    if (b === 0x6e) return literal("null");
    fail("looking for beginning of value");
  };

  skipSpace();
  if (i >= bytes.length) return { error: EOF };
  const start = i;
  try {
    value();
  } catch (e) {
    if (e instanceof ScanError) return { error: e.message };
    throw e;
  }
  return { start, end: i };
}
