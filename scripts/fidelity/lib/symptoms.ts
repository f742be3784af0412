import type { TestRecord } from "./go-test-json";

// A failed test's first symptom, as one line. Two flavours: `firstFailureLine` shows it as it is
// (per-test tables), `firstSymptom` normalizes hosts, ids and numbers so that tests failing the
// same way group together (causes.txt).

/** Hosts, ULIDs, exception ids and long numbers replaced, whitespace collapsed. */
export function normalize(x: string): string {
  return x
    .replace(/https?:\/\/[\w.-]+:\d+/g, "HOST")
    .replace(/exception-[0-9a-f]+/g, "exc")
    .replace(/[0-9A-Z]{26}/g, "ULID")
    .replace(/\b\d{3,}\b/g, "N")
    .replace(/␣/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * The first failure line of testify or testing output: the message after "Received unexpected
 * error:" or after the first "Error:", else the first `<file>_test.go:<line>: <message>` (t.Fatal,
 * t.Error), else a panic. Tab-aligned testify continuation lines are joined.
 */
export function firstFailureLine(text: string): string {
  const lines = text.split("\n").map((l) => l.replace(/\r$/, ""));
  for (let i = 0; i < lines.length; i++) {
    const t = lines[i].trim();
    if (!t.startsWith("Error:")) continue;
    const body = t.slice(6).trim();
    if (body.startsWith("Not equal")) {
      // testify prints both values, then a diff: its first removed and added lines say what differs.
      const rest = lines.slice(i + 1, i + 200).map((x) => x.trim());
      const diff = rest.findIndex((x) => x === "Diff:");
      const minus = diff < 0 ? undefined : rest.slice(diff).find((x) => /^-(?!--)/.test(x));
      const plus = diff < 0 ? undefined : rest.slice(diff).find((x) => /^\+(?!\+\+)/.test(x));
      if (minus && plus) return `Not equal: expected ${minus.slice(1).trim()} | actual ${plus.slice(1).trim()}`.slice(0, 300);
      return body.slice(0, 300);
    }
    if (body === "Received unexpected error:" || body.endsWith(":") || body === "") {
      const following = lines.slice(i + 1, i + 8).map((x) => x.trim());
      const next = following.find((x) => x && !x.startsWith("Test:") && !x.startsWith("Messages:"));
      // A multierror ("2 errors occurred:") lists its errors as "* ..." lines: the first one says more.
      const star = next && /errors? occurred:$/.test(next) ? following.find((x) => x.startsWith("*")) : undefined;
      return `${body} ${next ?? ""}${star ? ` ${star}` : ""}`.trim().slice(0, 300);
    }
    return body.slice(0, 300);
  }
  for (const l of lines) {
    const m = /^\s+\S+_test\.go:\d+: (.+)/.exec(l);
    if (m && !/^\s*$/.test(m[1])) return m[1].trim().slice(0, 300);
  }
  const panic = lines.find((l) => l.startsWith("panic:"));
  return panic ? panic.slice(0, 300) : "";
}

/**
 * keboola-as-code's CLI harness: a setup error of the harness (runner.go), else the first
 * assertion (exit code, STDOUT, STDERR, a file of the working dir, the project state) with its
 * first differing line. Normalized.
 */
export function firstSymptom(text: string): string {
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    const setup = /runner\.go:\d+: (.*)/.exec(l);
    if (setup) {
      const star = /occurred:\s*$/.test(setup[1]) ? lines.slice(i + 1, i + 4).map((x) => x.trim()).find((x) => x.startsWith("*")) : undefined;
      return `harness setup: ${normalize(setup[1])}${star ? " " + normalize(star) : ""}`;
    }
    if (l.includes("Received unexpected error:")) {
      const next = lines.slice(i + 1, i + 5).map((x) => x.trim()).filter((x) => x && !x.startsWith("Test:"));
      const star = next.find((x) => x.startsWith("*"));
      return `harness error: ${normalize((star ?? next[0] ?? "").replace(/^\*\s*/, ""))}`;
    }
  }
  for (let i = 0; i < lines.length; i++) {
    const t = lines[i].trim();
    if (!t.startsWith("Error:")) continue;
    const body = t.slice(6).trim();
    const msgLine = lines.slice(i, i + 400).find((x) => x.trim().startsWith("Messages:")) ?? "";
    const what = /exit code/.test(msgLine) ? "exit code" : /STDOUT/.test(msgLine) ? "stdout" : /STDERR/.test(msgLine) ? "stderr" : /project state/.test(msgLine) ? "project state" : "";
    let detail: string;
    const file = /different content of the file "([^"]+)"/.exec(body);
    if (body.startsWith("not equal")) detail = `actual: ${(/actual "(.*)/.exec(body) ?? ["", ""])[1]}`;
    else if (body.startsWith("Not equal")) detail = lines.slice(i + 1, i + 3).map((x) => x.trim()).join(" ");
    else {
      const d = lines.slice(i + 1, i + 60).map((x) => x.trim()).find((x) => /^[-+][^-]/.test(x) && !x.startsWith("- Diff") && !/^[-+]{3}/.test(x));
      detail = d ?? body;
    }
    return `${file ? `file ${normalize(file[1])}` : what || "assert"}: ${normalize(detail).slice(0, 180)}`;
  }
  const fallback = firstFailureLine(text);
  return fallback ? normalize(fallback).slice(0, 200) : "unknown";
}

/** Failed (and unfinished) tests grouped by symptom, most frequent first. */
export function groupCauses(tests: Iterable<[string, TestRecord]>, symptom: (text: string) => string): string {
  const by = new Map<string, string[]>();
  for (const [key, t] of tests) {
    if (t.status !== "fail" && t.status !== "unfinished") continue;
    const sym = symptom(t.output.join(""));
    const list = by.get(sym) ?? [];
    list.push(key);
    by.set(sym, list);
  }
  return (
    [...by.entries()]
      .sort((a, b) => b[1].length - a[1].length)
      .map(([sym, keys]) => `${String(keys.length).padStart(4)}  ${sym}\n        ${keys.slice(0, 6).join(", ")}${keys.length > 6 ? ", ..." : ""}`)
      .join("\n") + "\n"
  );
}
