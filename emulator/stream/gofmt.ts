// Go formatting rules the real service's messages and values follow: string quoting (%q / %#v),
// "as sentence" error messages. Durations and sizes: provider/validation/quantities.ts (shared).

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
    else if (cp < 0x10000) out += "\\u" + cp.toString(16).padStart(4, "0");
    else out += "\\U" + cp.toString(16).padStart(8, "0");
  }
  return out + '"';
}

/** Upper-case first letter, add a dot unless the message ends with a special character. */
export function asSentence(msg: string): string {
  const out = msg.replace(/ +$/, "");
  if (out.length === 0) return msg;
  const upper = out[0].toUpperCase() + out.slice(1);
  return /[a-zA-Z0-9'"]$/.test(upper) ? upper + "." : upper;
}

/** strhelper.Truncate: cut to `max` bytes and append the suffix. */
export function truncateBytes(s: string, max: number, suffix: string): string {
  const buf = Buffer.from(s, "utf8");
  if (buf.length <= max) return s;
  return buf.subarray(0, max).toString("utf8") + suffix;
}

/** Go's `%s` of a []string as JSON (json.MustEncodeString of a string slice). */
export function goJSONStrings(values: string[]): string {
  return JSON.stringify(values);
}
