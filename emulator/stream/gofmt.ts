// Go formatting rules the real service's messages and values follow: string quoting (%q / %#v),
// "as sentence" error messages. Durations and sizes: provider/validation/quantities.ts (shared).

// Go's string quoting is shared with the provider's messages (provider/validation/go-quote.ts).
export { goQuote } from "../../keboola/go-quote";

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
