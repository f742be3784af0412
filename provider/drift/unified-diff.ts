// A unified diff of two texts (as `diff -u` prints it, 3 lines of context), for `pull` to show what
// it writes. Line-based longest common subsequence: manifests are at most a few thousand lines, so
// the quadratic table stays small, and the diff is the shortest one (no heuristics to explain).

export type LineOp = { kind: " " | "-" | "+"; line: string; a: number; b: number };

/** Each line of `a` kept (` `) or removed (`-`), and of `b` added (`+`), with the indexes in both. */
export function lineDiff(a: string[], b: string[]): LineOp[] {
  const n = a.length;
  const m = b.length;
  // lcs[i][j]: the common subsequence length of a[i..] and b[j..], in one flat array.
  const lcs = new Uint32Array((n + 1) * (m + 1));
  const at = (i: number, j: number) => i * (m + 1) + j;
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) lcs[at(i, j)] = a[i] === b[j] ? lcs[at(i + 1, j + 1)] + 1 : Math.max(lcs[at(i + 1, j)], lcs[at(i, j + 1)]);
  }
  const ops: LineOp[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) ops.push({ kind: " ", line: a[i], a: i++, b: j++ });
    // Removed lines before added ones, as `diff -u` prints a change.
    else if (i < n && (j === m || lcs[at(i + 1, j)] >= lcs[at(i, j + 1)])) ops.push({ kind: "-", line: a[i], a: i++, b: j });
    else ops.push({ kind: "+", line: b[j], a: i, b: j++ });
  }
  return ops;
}

const lines = (text: string) => (text === "" ? [] : text.replace(/\n$/, "").split("\n"));

/** `--- a/<name>` / `+++ b/<name>` and the hunks; "" when the texts are the same. */
export function unifiedDiff(before: string, after: string, name: string, context = 3): string {
  if (before === after) return "";
  const ops = lineDiff(lines(before), lines(after));
  const changed = ops.map((o, k) => (o.kind !== " " ? k : -1)).filter((k) => k >= 0);
  const out = [`--- a/${name}`, `+++ b/${name}`];
  let k = 0;
  while (k < changed.length) {
    const start = Math.max(0, changed[k] - context);
    let end = changed[k];
    // A hunk runs on while the next change is within twice the context.
    while (k + 1 < changed.length && changed[k + 1] - end <= 2 * context) end = changed[++k];
    k++;
    const stop = Math.min(ops.length - 1, end + context);
    const hunk = ops.slice(start, stop + 1);
    const aLines = hunk.filter((o) => o.kind !== "+").length;
    const bLines = hunk.filter((o) => o.kind !== "-").length;
    const aStart = hunk[0].a + (aLines ? 1 : 0);
    const bStart = hunk[0].b + (bLines ? 1 : 0);
    out.push(`@@ -${aStart},${aLines} +${bStart},${bLines} @@`, ...hunk.map((o) => `${o.kind}${o.line}`));
  }
  return `${out.join("\n")}\n`;
}
