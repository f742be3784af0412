// JSON text as Go's encoding/json writes it (json.Marshal): JavaScript's JSON.stringify plus Go's
// HTML-safe escaping of "<", ">", "&", U+2028 and U+2029 inside strings. The Stream service
// writes its answers and several column values (headers, path values over a form body, path
// defaults) this way; written once for the emulator and the provider's example checks.

const GO_ESCAPES: Record<string, string> = {
  "<": "\\u003c",
  ">": "\\u003e",
  "&": "\\u0026",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
};

/** JSON.stringify with Go's HTML-safe escaping (the characters only ever occur inside strings). */
export function goJSON(value: unknown, pretty = false): string {
  const text = pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value);
  return text.replace(/[<>&\u2028\u2029]/g, (ch) => GO_ESCAPES[ch] ?? ch);
}
