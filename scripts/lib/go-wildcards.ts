// The text comparison of keboola-as-code's test harnesses: go-utils `wildcards.Compare`
// (github.com/keboola/go-utils pkg/wildcards/wildcards.go, v1.4.0, the version keboola-as-code's
// go.mod pins), inspired by PHPUnit's assertStringMatchesFormat. Written again here so the replay
// of the recorded Stream API cases judges an answer exactly as the Go harness does.
//
// The expected text is regexp-quoted, then every `%<c>` is replaced by its pattern; both texts are
// trimmed, the actual one has NBSP replaced by a space and CR removed; the whole actual text must
// match. Go's `.` matches anything but "\n" (JavaScript's also stops at "\r", U+2028, U+2029), so
// it is written `[^\n]` here.

const ANY_BUT_NEWLINE = "[^\\n]";

const PATTERNS: Record<string, string> = {
  "%e": "\\/",
  "%s": `${ANY_BUT_NEWLINE}+`,
  "%S": `${ANY_BUT_NEWLINE}*`,
  "%a": "[\\s\\S]+",
  "%A": "[\\s\\S]*",
  "%w": "\\s*",
  "%i": "(\\+|\\-)\\d+",
  "%d": "\\d+",
  // go-utils' %x is wider than its comment says (any letter, not only a-f).
  "%x": "[0-9a-zA-Z]+",
  "%f": "[-+]?[0-9]*\\.?[0-9]+([eE][-+]?[0-9]+)?",
  "%c": ANY_BUT_NEWLINE,
  "%%": "%",
};

/** Go's regexp.QuoteMeta: escapes `\.+*?()|[]{}^$`. */
function quoteMeta(text: string): string {
  return text.replace(/[\\.+*?()|[\]{}^$]/g, (ch) => `\\${ch}`);
}

/** wildcards.ToRegexp: the expected text as a regular expression source (without anchors). */
export function wildcardsToRegexp(expected: string): string {
  // Go's `%.`: a percent sign and any one character but a newline; unknown pairs stay as they are.
  return quoteMeta(expected).replace(/%[^\n]/g, (pair) => PATTERNS[pair] ?? pair);
}

function normalizeActual(actual: string): string {
  return actual.trim().replace(/\u00a0/g, " ").replace(/\r/g, "");
}

/** True when `actual` matches `expected` as wildcards.Compare judges it. */
export function wildcardsMatch(expected: string, actual: string): boolean {
  const exp = expected.trim();
  const act = normalizeActual(actual);
  if (exp === "") return act === "";
  return new RegExp(`^${wildcardsToRegexp(exp)}$`).test(act);
}

export interface LineDifference {
  /** 1-based line of the expected text. */
  line: number;
  expected: string;
  actual: string;
}

/**
 * The first line where the texts part, for a report: lines are compared one by one (each expected
 * line as a pattern) until one does not match. A line with a multi-line wildcard (`%a`, `%A`)
 * stops the line-by-line walk; then the texts' first lines that differ literally are shown.
 */
export function firstDifference(expected: string, actual: string): LineDifference | undefined {
  if (wildcardsMatch(expected, actual)) return undefined;
  const exp = expected.trim().split("\n");
  const act = normalizeActual(actual).split("\n");
  for (let i = 0; i < Math.max(exp.length, act.length); i++) {
    const e = exp[i];
    const a = act[i];
    if (e === undefined || a === undefined) return { line: i + 1, expected: e ?? "<end>", actual: a ?? "<end>" };
    if (/%[aA]/.test(e)) break;
    if (!new RegExp(`^${wildcardsToRegexp(e)}$`).test(a)) return { line: i + 1, expected: e, actual: a };
  }
  const i = exp.findIndex((e, k) => e !== act[k]);
  const k = i < 0 ? exp.length : i;
  return { line: k + 1, expected: exp[k] ?? "<end>", actual: act[k] ?? "<end>" };
}
