import { isAlias, isMap, isPair, isScalar, isSeq, visit, type Document, type Node, type Pair } from "yaml";
import { isRecord } from "../../keboola/json";
import { lineDiff } from "./unified-diff";

// Bringing a node of a parsed keboola.yaml to a new value while touching only what differs: the
// `yaml` package's Document keeps every comment, blank line, key order, flow or block style,
// quoting style and anchor of what is not changed, and `doc.toString()` writes it back as it was.
// A scalar keeps its node (its quoting and comments) and gets the new value; a map keeps its
// pairs in their order, new keys at the end; a list keeps the items it still has (matched by
// `rowId`, else `name`, else position). An alias whose value changes is replaced by the new value
// (the anchor it points at is shared, so it is never edited through the alias).

/** How the file is written back: no line folding (a long ciphertext or flow map stays on its line, as written). */
export const WRITE_OPTIONS = { lineWidth: 0 } as const;

/** Where the identity of a list's items is read: the first key every item of both lists has, uniquely. */
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

function identityKey(a: unknown[], b: unknown[]): string | undefined {
  return IDENTITY_KEYS.find((key) =>
    [a, b].every((list) => {
      const ids = list.map((item) => (isRecord(item) && typeof item[key] === "string" ? item[key] : undefined));
      return ids.every((id) => id !== undefined) && new Set(ids).size === ids.length;
    }),
  );
}

/** The node's value as plain data (aliases resolved). */
function valueOf(doc: Document, node: unknown): unknown {
  if (node === null || node === undefined) return node ?? undefined;
  if (isAlias(node) || isMap(node) || isSeq(node) || isScalar(node)) return (node as Node).toJS(doc);
  return node;
}

/** The node for `next` in place of `node` (the same node, edited, where it can be). */
function reconcile(doc: Document, node: unknown, next: unknown, path: Path, defaults: DefaultAt): unknown {
  const current = valueOf(doc, node);
  if (same(current, next)) return node;
  if (isAlias(node)) return doc.createNode(concise(defaults, path, next));
  detachAnchor(doc, node, current);
  if (isScalar(node) && (next === null || typeof next !== "object")) {
    // A string written as a number would read back as one: a new node then, in the default style.
    if (typeof next === typeof current || current === null) {
      node.value = next;
      return node;
    }
    return doc.createNode(next);
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
    const key = identityKey(current, next);
    const idOf = (v: unknown) => (key && isRecord(v) ? String(v[key]) : undefined);
    const old = node.items.map((item, i) => ({ item, id: key ? idOf(current[i]) : String(i) }));
    node.items = next.map((v, i) => {
      const match = old.find((o) => o.id === (key ? idOf(v) : String(i)));
      return match ? reconcile(doc, match.item, v, [...path, i], defaults) : doc.createNode(concise(defaults, [...path, i], v));
    }) as typeof node.items;
    return node;
  }
  return doc.createNode(concise(defaults, path, next));
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
  if (next === undefined) {
    if (doc.hasIn(path)) doc.deleteIn(path);
  } else if (!doc.hasIn(path)) {
    if (!unneeded(defaults, path, next)) doc.setIn(path, doc.createNode(concise(defaults, path, next)));
  } else {
    const parent = path.length > 1 ? doc.getIn(path.slice(0, -1), true) : doc.contents;
    const last = path[path.length - 1];
    if (isMap(parent)) {
      const pair = parent.items.find((p) => isScalar(p.key) && String(p.key.value) === String(last));
      if (pair) pair.value = reconcile(doc, pair.value, next, path, defaults);
    } else if (isSeq(parent) && typeof last === "number") {
      parent.items[last] = reconcile(doc, parent.items[last], next, path, defaults) as (typeof parent.items)[number];
    }
  }
  return doc.toString(WRITE_OPTIONS) !== before;
}

/** The plain value at `path`, or undefined. */
export function valueAt(doc: Document, path: Path): unknown {
  return valueOf(doc, doc.getIn(path, true));
}

/**
 * The edited document as text, with every line the edit did not change exactly as it was in
 * `original`. The printer normalises some spelling on its own (the padding inside `[...]` and
 * `{...}`, the indentation of a sequence): the original is printed unedited too, and where that
 * print has the same lines as the original, the two are matched line for line, so only the
 * lines the edit changed come from the printer.
 */
export function printEdited(original: string, reprinted: string, edited: string): string {
  const a = original.replace(/\n$/, "").split("\n");
  const b = reprinted.replace(/\n$/, "").split("\n");
  if (a.length !== b.length) return edited;
  const c = edited.replace(/\n$/, "").split("\n");
  const out: string[] = [];
  for (const op of lineDiff(b, c)) {
    if (op.kind === " ") out.push(a[op.a]);
    else if (op.kind === "+") out.push(op.line);
  }
  return `${out.join("\n")}\n`;
}
