// SQL statements split and joined as kbc does (keboola/keboola-as-code internal/pkg/sql: Split,
// Join), so code kept in a file becomes the statements kbc would push, and statements become the
// text kbc would write.
//
// kbc splits with one regular expression (taken from the UI's splitSqlQueriesWorker.js) run by
// Go's regexp, leftmost-first. A statement is a run of these pieces, ended by `;` or the end of
// the text, tried in this order at each place:
//   'single-quoted' and "double-quoted" strings (a backslash escapes any character but a newline),
//   $$ ... $$ (the nearest closing $$ first), /* comments */ (to the first */),
//   # , -- and // comments (to the end of the line: Go's `.` takes every character but \n),
//   any other character but ' " ; #.
// Each statement is then trimmed of Unicode white space (Go's strings.TrimSpace) and empty ones
// are dropped; Join puts an empty line between statements.
//
// Go finds the match a backtracking engine would (its regexp package documents this); a
// backtracking engine, JavaScript's, takes exponential time where a statement cannot end (an
// unclosed quote after many comments). So the same preference is computed here without
// backtracking: from the end of the text towards its start, each place's preferred end, once.
// Where the split drops text (a quote never closed: kbc starts the next statement after it and
// loses what came before), `dropped` says where, so a caller can refuse rather than lose code.

/** A statement as kbc's Split returns it, and where it starts in the text split. */
export interface SqlStatement {
  text: string;
  start: number;
}

export interface SqlSplit {
  statements: SqlStatement[];
  /** Ranges of the text in no statement that hold more than white space and `;`: code kbc drops. */
  dropped: Array<{ start: number; end: number }>;
}

const NONE = -1;

/** kbc's Split: the statements of `sql`. */
export function splitSql(sql: string): string[] {
  return splitSqlAt(sql).statements.map((s) => s.text);
}

/** kbc's Join: the statements with an empty line between each two. */
export function joinSql(statements: readonly string[]): string {
  return statements.join("\n\n");
}

/** kbc's Split with each statement's place, and the text it drops. */
export function splitSqlAt(sql: string): SqlSplit {
  // Split removes one trailing newline first.
  const text = sql.endsWith("\n") ? sql.slice(0, -1) : sql;
  const ends = preferredEnds(text);
  const statements: SqlStatement[] = [];
  const dropped: SqlSplit["dropped"] = [];
  let pos = 0;
  while (pos <= text.length) {
    // The leftmost place a statement matches from (it may begin with white space).
    let start = pos;
    let end = NONE;
    for (; start <= text.length; start++) {
      end = matchFrom(text, ends, start);
      if (end !== NONE) break;
    }
    if (lost(text, pos, Math.min(start, text.length))) dropped.push({ start: pos, end: Math.min(start, text.length) });
    if (end === NONE) break;
    const trimmed = trimGoSpace(text, start, end);
    if (trimmed.start < trimmed.end) statements.push({ text: text.slice(trimmed.start, trimmed.end), start: trimmed.start });
    pos = end;
  }
  return { statements, dropped };
}

/** Text kbc skips between statements: only white space and extra `;` may go unseen. */
function lost(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (text[i] !== ";" && !isGoSpace(text.charCodeAt(i))) return true;
  return false;
}

/** The statement matched at `p`: the white space before it, then the pieces; its end or NONE. */
function matchFrom(text: string, ends: PreferredEnds, p: number): number {
  let s = p;
  while (s < text.length && isRegexpSpace(text.charCodeAt(s))) s++;
  if (s < text.length && ends.first[s] !== NONE) return ends.first[s];
  // With no piece at `s`, the last white space is a piece of its own, and the statement ends
  // right after it: at a `;` or at the end of the text.
  if (s > p && (s === text.length || text[s] === ";")) return s === text.length ? s : s + 1;
  return NONE;
}

interface PreferredEnds {
  /** From a statement's first piece at i: where the preferred match ends, or NONE. */
  first: Int32Array;
}

/**
 * For each place i, where the preferred match ends when a statement's pieces reach i (`more`: a
 * piece more, else the statement ends at a `;` or the end of the text) and when its first piece
 * starts at i (`first`: no end before a piece). Both only look right of i, so one pass from the
 * end computes them, with the tables that make each place's choice constant time: where a quoted
 * string opened before j closes, where the next `*` `/` is, the first closing `$$` from j whose
 * end leads to a match, and the last end within the line from j that does.
 */
function preferredEnds(text: string): PreferredEnds {
  const n = text.length;
  const more = new Int32Array(n + 3).fill(NONE);
  const first = new Int32Array(n + 1).fill(NONE);
  const singleClose = new Int32Array(n + 3).fill(NONE);
  const doubleClose = new Int32Array(n + 3).fill(NONE);
  const commentClose = new Int32Array(n + 3).fill(NONE);
  const dollarOk = new Int32Array(n + 3).fill(NONE);
  const lineOk = new Int32Array(n + 3).fill(NONE);
  const at = (i: number, s: string) => text.startsWith(s, i);

  for (let i = n; i >= 0; i--) {
    if (i < n) {
      const c = text[i];
      // Where a string's body from i closes (the closing quote's place).
      const close = (quote: string, table: Int32Array) =>
        c === quote ? i : c === "\\" ? (i + 1 < n && text[i + 1] !== "\n" ? table[i + 2] : NONE) : table[i + 1];
      singleClose[i] = close("'", singleClose);
      doubleClose[i] = close('"', doubleClose);
      commentClose[i] = at(i, "*/") ? i : commentClose[i + 1];
    }
    const piece = i < n ? pieceEnd(text, i, { more, singleClose, doubleClose, commentClose, dollarOk, lineOk }) : NONE;
    first[i] = piece;
    more[i] = piece !== NONE ? piece : i === n ? n : text[i] === ";" ? i + 1 : NONE;
    // Needs more[i]: the tables of the places left of i read them.
    dollarOk[i] = at(i, "$$") && more[i + 2] !== NONE ? i + 2 : dollarOk[i + 1];
    lineOk[i] = i === n || text[i] === "\n" ? (more[i] !== NONE ? i : NONE) : lineOk[i + 1] !== NONE ? lineOk[i + 1] : more[i] !== NONE ? i : NONE;
  }
  return { first };
}

interface Tables {
  more: Int32Array;
  singleClose: Int32Array;
  doubleClose: Int32Array;
  commentClose: Int32Array;
  dollarOk: Int32Array;
  lineOk: Int32Array;
}

/** The preferred match's end when a piece starts at i: the first kind of piece, in kbc's order, that leads to one. */
function pieceEnd(text: string, i: number, t: Tables): number {
  const c = text[i];
  const next = text[i + 1];
  const via = (end: number) => (end === NONE ? NONE : t.more[end]);
  let found = NONE;
  if (c === "'" && t.singleClose[i + 1] !== NONE) found = via(t.singleClose[i + 1] + 1);
  else if (c === '"' && t.doubleClose[i + 1] !== NONE) found = via(t.doubleClose[i + 1] + 1);
  if (found === NONE && c === "$" && next === "$") found = via(t.dollarOk[i + 2]);
  if (found === NONE && c === "/" && next === "*" && t.commentClose[i + 2] !== NONE) found = via(t.commentClose[i + 2] + 2);
  // The longest comment that leads to a match: `.*` gives characters back one by one.
  if (found === NONE && c === "#") found = via(t.lineOk[i + 1]);
  if (found === NONE && ((c === "-" && next === "-") || (c === "/" && next === "/"))) found = via(t.lineOk[i + 2]);
  if (found === NONE && c !== "'" && c !== '"' && c !== ";" && c !== "#") found = t.more[i + 1];
  return found;
}

/** Go regexp's `\s`: ASCII white space without the vertical tab. */
function isRegexpSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d;
}

/** Go's unicode.IsSpace (what strings.TrimSpace trims), for one UTF-16 unit (no such character is above U+FFFF). */
function isGoSpace(code: number): boolean {
  if (code <= 0xff) return (code >= 0x09 && code <= 0x0d) || code === 0x20 || code === 0x85 || code === 0xa0;
  return code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000;
}

function trimGoSpace(text: string, start: number, end: number): { start: number; end: number } {
  while (start < end && isGoSpace(text.charCodeAt(start))) start++;
  while (end > start && isGoSpace(text.charCodeAt(end - 1))) end--;
  return { start, end };
}
