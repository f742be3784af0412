// JSON responses written the way the real (Go) service writes them: Go's encoder escapes
// "<", ">", "&", U+2028 and U+2029 inside strings, success bodies are compact with a trailing
// newline, error bodies are indented by two spaces.

import { goJSON } from "../../keboola/go-json";

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
