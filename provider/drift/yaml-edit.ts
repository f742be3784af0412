import { isAlias, isMap, isPair, isScalar, isSeq, parseDocument, visit, type Document, type Node, type Pair } from "yaml";
import { isRecord } from "../../keboola/json";
import { lineDiff } from "./unified-diff";
import { identityKey } from "../review/diff";
import { distance } from "../validation/messages";

// Bringing a node of a parsed keboola.yaml to a new value while touching only what differs: the
// `yaml` package's Document keeps every comment, blank line, key order, flow or block style,
// quoting style and anchor of what is not changed, and `doc.toString()` writes it back as it was.
// A scalar keeps its node (its quoting and comments) and gets the new value; a map keeps its
// pairs in their order, new keys at the end; a list keeps the items it still has (matched by
// `rowId`, else `name`, else position). An alias whose value changes is replaced by the new value
// (the anchor it points at is shared, so it is never edited through the alias).

/** How the file is written back: no line folding (a long ciphertext or flow map stays on its line, as written). */
export const WRITE_OPTIONS = { lineWidth: 0 } as const;

/** Where the identity of a list's items is read (review/diff.ts identityKey): rowId or name as the drift's paths name them, else an id. */
const IDENTITY_KEYS = ["rowId", "name", "id"] as const;

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The default a schema gives the value at a path (see manifestDefaultAt), or undefined. */
export type DefaultAt = (path: ReadonlyArray<string | number>) => { value: unknown } | undefined;

type Path = ReadonlyArray<string | number>;

/** Whether a value need not be written: absent, or what the schema fills in anyway. */
const unneeded = (defaults: DefaultAt, path: Path, v: unknown) => {
  if (v === undefined) return true;
  const d = defaults(path);
  return d !== undefined && same(d.value, v);
};

/** A new value as written into the file: the keys holding their default left out, as an author leaves them. */
function concise(defaults: DefaultAt, path: Path, v: unknown): unknown {
  if (Array.isArray(v)) return v.map((x, i) => concise(defaults, [...path, i], x));
  if (isRecord(v)) return Object.fromEntries(Object.entries(v).filter(([k, x]) => !unneeded(defaults, [...path, k], x)).map(([k, x]) => [k, concise(defaults, [...path, k], x)]));
  return v;
}

/** The node's value as plain data (aliases resolved). */
function valueOf(doc: Document, node: unknown): unknown {
  if (node === null || node === undefined) return node ?? undefined;
  if (isAlias(node) || isMap(node) || isSeq(node) || isScalar(node)) return (node as Node).toJS(doc);
  return node;
}

/**
 * A new node in place of `old`: the comments on the old one stay, and a short map or list that
 * replaces a scalar or an alias is written on its line (`{ interval: 30s }`), as it stood there.
 */
function replacement(doc: Document, old: unknown, value: unknown): Node {
  const node = doc.createNode(value) as Node;
  if ((isMap(node) || isSeq(node)) && (isScalar(old) || isAlias(old)) && JSON.stringify(value).length <= 60) node.flow = true;
  if (isAlias(old) || isScalar(old) || isMap(old) || isSeq(old)) {
    if (old.comment) node.comment = old.comment;
    if (old.commentBefore) node.commentBefore = old.commentBefore;
  }
  return node;
}

/** The node for `next` in place of `node` (the same node, edited, where it can be). */
function reconcile(doc: Document, node: unknown, next: unknown, path: Path, defaults: DefaultAt): unknown {
  const current = valueOf(doc, node);
  if (same(current, next)) return node;
  if (isAlias(node)) return replacement(doc, node, concise(defaults, path, next));
  detachAnchor(doc, node, current);
  if (isScalar(node) && (next === null || typeof next !== "object")) {
    // A string written as a number would read back as one: a new node then, in the default style.
    if (typeof next === typeof current || current === null) {
      node.value = next;
      return node;
    }
    return replacement(doc, node, next);
  }
  if (isMap(node) && isRecord(next)) {
    const keyOf = (p: Pair) => (isScalar(p.key) ? String(p.key.value) : String(p.key));
    node.items = node.items.filter((p) => isPair(p) && Object.hasOwn(next, keyOf(p)));
    for (const pair of node.items) pair.value = reconcile(doc, pair.value, next[keyOf(pair)], [...path, keyOf(pair)], defaults);
    const have = new Set(node.items.map(keyOf));
    for (const [k, v] of Object.entries(next)) if (!have.has(k) && !unneeded(defaults, [...path, k], v)) node.items.push(doc.createPair(k, concise(defaults, [...path, k], v)));
    return node;
  }
  if (isSeq(node) && Array.isArray(next) && Array.isArray(current)) {
    const key = identityKey(current, next, IDENTITY_KEYS);
    const idOf = (v: unknown) => (key && isRecord(v) ? String(v[key]) : undefined);
    const old = node.items.map((item, i) => ({ item, id: key ? idOf(current[i]) : String(i) }));
    node.items = next.map((v, i) => {
      const match = old.find((o) => o.id === (key ? idOf(v) : String(i)));
      return match ? reconcile(doc, match.item, v, [...path, i], defaults) : doc.createNode(concise(defaults, [...path, i], v));
    }) as typeof node.items;
    return node;
  }
  return replacement(doc, node, concise(defaults, path, next));
}

/**
 * Before a node with an anchor is edited: each alias of it gets the node's old value written out,
 * and the anchor goes, so the edit changes this place only (the aliases meant the old value).
 */
function detachAnchor(doc: Document, node: unknown, old: unknown): void {
  if (!(isMap(node) || isSeq(node) || isScalar(node)) || !node.anchor) return;
  const anchor = node.anchor;
  visit(doc, {
    Alias(_key, alias) {
      if (alias.source === anchor) return doc.createNode(old);
      return undefined;
    },
  });
  node.anchor = undefined;
}

/**
 * Sets the value at `path` (map keys and list indexes), editing the existing node minimally; a
 * missing path is created; `undefined` removes the key. Answers whether the file changed.
 */
export function setValue(doc: Document, path: Path, next: unknown, defaults: DefaultAt = () => undefined): boolean {
  const before = doc.toString(WRITE_OPTIONS);
  const parent = path.length > 1 ? doc.getIn(path.slice(0, -1), true) : doc.contents;
  const last = path[path.length - 1];
  if (isMap(parent)) {
    const at = parent.items.findIndex((p) => isScalar(p.key) && String(p.key.value) === String(last));
    if (next === undefined) {
      if (at >= 0) parent.items.splice(at, 1);
    } else if (at >= 0) {
      parent.items[at].value = reconcile(doc, parent.items[at].value, next, path, defaults);
    } else if (!unneeded(defaults, path, next)) {
      parent.items.push(doc.createPair(last, concise(defaults, path, next)));
    }
  } else if (isSeq(parent) && typeof last === "number" && last < parent.items.length) {
    if (next === undefined) parent.items.splice(last, 1);
    else parent.items[last] = reconcile(doc, parent.items[last], next, path, defaults) as (typeof parent.items)[number];
  } else if (next !== undefined && !unneeded(defaults, path, next)) {
    doc.setIn(path, doc.createNode(concise(defaults, path, next)));
  }
  return doc.toString(WRITE_OPTIONS) !== before;
}

/** The plain value at `path`, or undefined. */
export function valueAt(doc: Document, path: Path): unknown {
  return valueOf(doc, doc.getIn(path, true));
}

/**
 * The edited document as text, with every line the edit did not change exactly as it was in
 * `original`. The printer spells some things its own way (a comment after a key, a folded
 * scalar, the padding inside `[...]` and `{...}`, aligned comments): the original is printed
 * unedited too and matched with the original line by line, so that each line the printer respells
 * is known by the original lines it stands for. Where the edit leaves such lines alone, the
 * original ones are written; only the lines the edit changed come from the printer. Such a line is
 * printed with flow collections padded and not, and the spelling closer to the line it replaces
 * is kept (prettier's `{ a: 1 }` and `[a, b]` both stay).
 */
export function printEdited(original: string, doc: Document): string {
  const split = (text: string) => text.replace(/\n$/, "").split("\n");
  const a = split(original);
  const b = split(parseDocument(original).toString(WRITE_OPTIONS));
  const padded = split(doc.toString({ ...WRITE_OPTIONS, flowCollectionPadding: true }));
  const bare = split(doc.toString({ ...WRITE_OPTIONS, flowCollectionPadding: false }));
  const mixed = split(prettierSpelling(doc));
  if (padded.length !== bare.length || padded.length !== mixed.length) return `${padded.join("\n")}\n`;

  // The reprint's lines: each one the original line it equals, or a region of respelled lines.
  const source: Array<{ a: number } | { region: number }> = [];
  const regions: Array<{ a: number[]; b: number[] }> = [];
  const orphans = new Map<number, number[]>(); // original lines the reprint dropped, by the reprint line they come before
  let open: { a: number[]; b: number[] } | undefined;
  const close = (nextB: number) => {
    if (!open) return;
    if (open.b.length === 0) orphans.set(nextB, [...(orphans.get(nextB) ?? []), ...open.a]);
    else if (open.a.length === open.b.length) {
      // Respelled line by line: each line its own region.
      open.b.forEach((bi, k) => {
        regions.push({ a: [open!.a[k]], b: [bi] });
        source[bi] = { region: regions.length - 1 };
      });
    } else {
      regions.push(open);
      for (const bi of open.b) source[bi] = { region: regions.length - 1 };
    }
    open = undefined;
  };
  for (const op of lineDiff(a, b)) {
    if (op.kind === " ") {
      close(op.b);
      source[op.b] = { a: op.a };
    } else {
      open ??= { a: [], b: [] };
      if (op.kind === "-") open.a.push(op.a);
      else open.b.push(op.b);
    }
  }
  close(b.length);

  const edits = lineDiff(b, padded);
  // lineDiff(b, padded): a kept or removed line is op.a of the reprint, an added one op.b of the edited print.
  const untouched = new Set(edits.filter((op) => op.kind === " ").map((op) => op.a));
  const intact = regions.map((r) => r.b.every((bi) => untouched.has(bi)));
  const written = new Set<number>();
  const paddedMostly = (original.match(/[[{] /g) ?? []).length >= (original.match(/[[{][^\s\]}]/g) ?? []).length;
  const originalOf = (bi: number): string[] => {
    const src = source[bi];
    if ("a" in src) return [a[src.a]];
    if (!intact[src.region]) return [b[bi]];
    if (written.has(src.region)) return [];
    written.add(src.region);
    return regions[src.region].a.map((ai) => a[ai]);
  };
  const out: string[] = [];
  // A run of changed lines: the lines it removes pair in order with those it adds.
  let removed: string[] = [];
  let added: number[] = [];
  const flush = () => {
    added.forEach((bi, k) => {
      const was = removed[k];
      const [p, u, m] = [padded[bi], bare[bi], mixed[bi]];
      const styled = was !== undefined && /[[{]/.test(was);
      const line = p === u ? p : styled ? [p, m, u].reduce((best, x) => (distance(x, was) < distance(best, was) ? x : best)) : paddedMostly ? p : u;
      out.push(was !== undefined ? commentSpacedAs(line, was) : line);
    });
    removed = [];
    added = [];
  };
  for (const op of edits) {
    if (op.kind !== "+") {
      for (const ai of orphans.get(op.a) ?? []) out.push(a[ai]);
      orphans.delete(op.a);
    }
    if (op.kind === " ") {
      flush();
      out.push(...originalOf(op.a));
    } else if (op.kind === "-") {
      // What the changed lines replace, as the author wrote them (for their spelling).
      const src = source[op.a];
      if ("a" in src) removed.push(a[src.a]);
      else if (!written.has(src.region)) {
        written.add(src.region);
        removed.push(...regions[src.region].a.map((ai) => a[ai]));
      }
    } else {
      added.push(op.b);
    }
  }
  flush();
  for (const ai of orphans.get(b.length) ?? []) out.push(a[ai]);
  return `${out.join("\n")}\n`;
}

/**
 * The document printed as prettier spells flow collections: `{ a: 1 }` padded, `[a, b]` not. The
 * printer has one padding for both, so a copy's flow maps and lists are each given their own.
 */
function prettierSpelling(doc: Document): string {
  const copy = doc.clone();
  const pad = (node: { toString: (...args: never[]) => string }, padding: string) => {
    const print = node.toString.bind(node) as (ctx?: object, ...rest: unknown[]) => string;
    node.toString = ((ctx?: object, ...rest: unknown[]) => print(ctx ? { ...ctx, flowCollectionPadding: padding } : ctx, ...rest)) as typeof node.toString;
  };
  visit(copy, {
    Map(_key, node) {
      pad(node, " ");
    },
    Seq(_key, node) {
      pad(node, "");
    },
  });
  return copy.toString({ ...WRITE_OPTIONS, flowCollectionPadding: true });
}

/** A trailing comment kept where the replaced line had it: the printer puts one space before it, the author may have aligned it. */
function commentSpacedAs(line: string, was: string): string {
  const comment = /(\s+)(#[^'"]*)$/;
  const mine = comment.exec(line);
  const theirs = comment.exec(was);
  if (!mine || !theirs || mine[2] !== theirs[2]) return line;
  return `${line.slice(0, mine.index)}${theirs[1]}${mine[2]}`;
}
