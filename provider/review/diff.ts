import { isRecord, type JsonValue } from "../../keboola/json";
import { containsHidden, PULUMI_SECRET, type Path, type Step } from "./values";

// The changed paths between two values (a resource's old and new inputs): what `pulumi preview
// --json` does not give for dynamic resources (no detailed diff), so the review computes it.
// Objects are compared key by key; arrays of objects that all carry a unique identity (`rowId`,
// else `name`) item by identity, so a row or phase added in the middle is one addition, not a
// change of every item after it; other arrays of objects item by index; arrays of scalars whole.

export type Change =
  | { kind: "changed"; path: Path; before: JsonValue; after: JsonValue }
  | { kind: "added"; path: Path; after: JsonValue }
  | { kind: "removed"; path: Path; before: JsonValue }
  /** A value that must not be shown changed (a `#` value, a ciphertext, a Pulumi secret against a shown value). */
  | { kind: "secret"; path: Path; what: "changed" | "added" | "removed" };

export interface Diff {
  changes: Change[];
  /**
   * Paths where both sides are Pulumi secrets (`[secret]`): the preview does not say whether they
   * changed. When nothing shown changed but the resource is updated, one of them did.
   */
  opaque: Path[];
}

const IDENTITY_KEYS = ["rowId", "name"] as const;

const isObject = (v: JsonValue | undefined): v is { [key: string]: JsonValue } => typeof v === "object" && v !== null && !Array.isArray(v);

function same(a: JsonValue, b: JsonValue): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The first of `keys` that every item of both arrays has, as a string, uniquely; or undefined. */
export function identityKey(a: readonly unknown[], b: readonly unknown[], keys: readonly string[] = IDENTITY_KEYS): string | undefined {
  return keys.find((key) =>
    [a, b].every((list) => {
      const ids = list.map((item) => (isRecord(item) && typeof item[key] === "string" ? item[key] : undefined));
      return ids.every((id) => id !== undefined) && new Set(ids).size === ids.length;
    }),
  );
}

export function diffValues(before: JsonValue | undefined, after: JsonValue | undefined, path: Path = []): Diff {
  const out: Diff = { changes: [], opaque: [] };
  walk(before, after, path, out);
  return out;
}

function walk(before: JsonValue | undefined, after: JsonValue | undefined, path: Path, out: Diff): void {
  if (before === undefined && after === undefined) return;
  if (before === PULUMI_SECRET && after === PULUMI_SECRET) {
    out.opaque.push(path);
    return;
  }
  if (before !== undefined && after !== undefined && same(before, after)) {
    collectOpaque(before, path, out);
    return;
  }
  if (isObject(before) && isObject(after)) {
    for (const key of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) walk(before[key], after[key], [...path, key], out);
    return;
  }
  if (Array.isArray(before) && Array.isArray(after) && [...before, ...after].some(isObject)) {
    const key = identityKey(before, after);
    if (key) {
      const idOf = (item: JsonValue) => (isObject(item) ? String(item[key]) : "");
      const olds = new Map(before.map((item) => [idOf(item), item]));
      const news = new Map(after.map((item) => [idOf(item), item]));
      // In the new order, then the removed ones in their old order.
      const ids = [...news.keys(), ...[...olds.keys()].filter((id) => !news.has(id))];
      for (const id of ids) walk(olds.get(id), news.get(id), [...path, { id } satisfies Step], out);
    } else {
      for (let i = 0; i < Math.max(before.length, after.length); i++) walk(before[i], after[i], [...path, i], out);
    }
    return;
  }
  // A scalar that must not be shown: say what happened to it, never its value. (An object or
  // array added or removed whole is shown masked, its secrets as `[secret]`.)
  const hidden = (v: JsonValue | undefined) => v !== undefined && !isObject(v) && !Array.isArray(v) && containsHidden(v, path);
  if (hidden(before) || hidden(after)) {
    out.changes.push({ kind: "secret", path, what: before === undefined ? "added" : after === undefined ? "removed" : "changed" });
    return;
  }
  if (before === undefined) out.changes.push({ kind: "added", path, after: after! });
  else if (after === undefined) out.changes.push({ kind: "removed", path, before });
  else out.changes.push({ kind: "changed", path, before, after });
}

/** The Pulumi secrets inside a value that is the same on both sides (the same marker, maybe other values). */
function collectOpaque(value: JsonValue, path: Path, out: Diff): void {
  if (value === PULUMI_SECRET) out.opaque.push(path);
  else if (Array.isArray(value)) value.forEach((v, i) => collectOpaque(v, [...path, i], out));
  else if (isObject(value)) for (const key of Object.keys(value).sort()) collectOpaque(value[key], [...path, key], out);
}
