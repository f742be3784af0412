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

/** Go's strconv.Quote (what `%q` and `%#v` print for a string). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (SIMPLE_ESCAPES[ch]) out += SIMPLE_ESCAPES[ch];
    else if (cp < 0x20 || cp === 0x7f) out += "\\x" + cp.toString(16).padStart(2, "0");
    else if (cp < 0x80 || /[\p{L}\p{M}\p{N}\p{P}\p{S}]/u.test(ch)) out += ch;
    else if (cp <= 0xffff) out += "\\u" + cp.toString(16).padStart(4, "0");
    else out += "\\U" + cp.toString(16).padStart(8, "0");
  }
  return out + '"';
}
