// Levenshtein distance (unit costs), for "did you mean" hints: the provider's own messages compare
// case-insensitively; the emulator reproduces PHP's `levenshtein`, which compares as written.

export function editDistance(a: string, b: string, o: { ignoreCase?: boolean } = {}): number {
  const same = o.ignoreCase ? (x: string, y: string) => x.toLowerCase() === y.toLowerCase() : (x: string, y: string) => x === y;
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (same(a[i - 1], b[j - 1]) ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length];
}
