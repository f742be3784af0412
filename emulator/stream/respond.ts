// JSON responses written the way the real (Go) service writes them: Go's encoder escapes
// "<", ">", "&", U+2028 and U+2029 inside strings, success bodies are compact with a trailing
// newline, error bodies are indented by two spaces.

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

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(goJSON(body) + "\n", {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });
}

export function prettyJSONResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(goJSON(body, true) + "\n", {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });
}
