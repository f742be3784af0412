// Go's strconv.Quote, as the real service's messages quote values (`%q`, `%#v`): written once for
// the provider's check messages and the emulator's answers.

const SIMPLE_ESCAPES: Record<string, string> = {
  "\u0007": "\\a",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\u000b": "\\v",
  '"': '\\"',
  "\\": "\\\\",
};

/** One character as strconv.Quote writes it. */
function quoted(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  if (SIMPLE_ESCAPES[ch]) return SIMPLE_ESCAPES[ch];
  if (cp < 0x20 || cp === 0x7f) return "\\x" + cp.toString(16).padStart(2, "0");
  if (cp < 0x80 || /[\p{L}\p{M}\p{N}\p{P}\p{S}]/u.test(ch)) return ch;
  if (cp <= 0xffff) return "\\u" + cp.toString(16).padStart(4, "0");
  return "\\U" + cp.toString(16).padStart(8, "0");
}

/** Go's strconv.Quote (what `%q` and `%#v` print for a string). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) out += quoted(ch);
  return out + '"';
}

/**
 * The length of the UTF-8 sequence at `at` as Go's utf8.DecodeRune accepts it (no overlong form,
 * no surrogate, nothing past U+10FFFF), or 0 where it reads an invalid byte.
 */
function utf8Length(b: Uint8Array, at: number): number {
  const lead = b[at];
  if (lead < 0x80) return 1;
  const [n, lo, hi] =
    lead >= 0xc2 && lead <= 0xdf ? [2, 0x80, 0xbf]
    : lead === 0xe0 ? [3, 0xa0, 0xbf]
    : lead === 0xed ? [3, 0x80, 0x9f]
    : lead >= 0xe1 && lead <= 0xef ? [3, 0x80, 0xbf]
    : lead === 0xf0 ? [4, 0x90, 0xbf]
    : lead === 0xf4 ? [4, 0x80, 0x8f]
    : lead >= 0xf1 && lead <= 0xf3 ? [4, 0x80, 0xbf]
    : [0, 0, 0];
  // (n 0: hi 0 refuses any next byte, and n is the answer anyway)
  if (at + n > b.length || b[at + 1] < lo || b[at + 1] > hi) return 0;
  for (let k = 2; k < n; k++) if (b[at + k] < 0x80 || b[at + k] > 0xbf) return 0;
  return n;
}

/** Go's strconv.Quote of bytes that may not be UTF-8 (a string cut inside a character): an invalid byte is \xNN. */
export function goQuoteBytes(b: Uint8Array): string {
  let out = '"';
  for (let at = 0; at < b.length; ) {
    const n = utf8Length(b, at);
    if (n === 0) {
      // An invalid byte is never ASCII (0x80 or more): always two hex digits.
      out += "\\x" + b[at].toString(16);
      at++;
    } else {
      out += quoted(Buffer.from(b.subarray(at, at + n)).toString("utf8"));
      at += n;
    }
  }
  return out + '"';
}
