import { pathOf } from "./paths";

// Variable placeholders in component configurations. Keboola renders a configuration that has a
// `variables_id` with Mustache before a job runs, so `{{name}}` (also `{{ name }}`, `{{{name}}}`,
// `{{&name}}` and the section tags `{{#name}}`, `{{^name}}`, `{{/name}}`) refers to variable
// `name`. Comments (`{{! ...}}`), partials (`{{> ...}}`) and delimiter changes are not
// references. The scanner walks every string value and every object key of a JSON value and
// reports where each reference is, as a property path (`rows[1].configuration.parameters.x`).

export interface PlaceholderUse {
  /** The variable name as written (trimmed), e.g. `limit`. */
  name: string;
  /** The tag as written, e.g. `{{ limit }}`. */
  tag: string;
  /** Property path of the string (or key) holding it. */
  path: string;
}

// Triple mustache first, so `{{{x}}}` is not read as `{{` + `{x}` + `}}`.
const TAG = /\{\{\{\s*([^{}]*?)\s*\}\}\}|\{\{\s*([#^/&]?)\s*([^{}]*?)\s*\}\}/g;

/** Names referenced by the Mustache tags of one string, in order of appearance. */
export function placeholdersIn(text: string): Array<{ name: string; tag: string }> {
  const out: Array<{ name: string; tag: string }> = [];
  for (const m of text.matchAll(TAG)) {
    const name = (m[1] ?? m[3] ?? "").trim();
    // Comments, partials and delimiter changes are not variable references; neither is `{{.}}`.
    if (!name || name === "." || /^[!>=]/.test(name)) continue;
    out.push({ name, tag: m[0] });
  }
  return out;
}

/** Every placeholder in a JSON value (string values and object keys), with its property path. */
export function findPlaceholders(value: unknown, base: ReadonlyArray<PropertyKey> = []): PlaceholderUse[] {
  const out: PlaceholderUse[] = [];
  const walk = (v: unknown, path: PropertyKey[]) => {
    if (typeof v === "string") {
      for (const p of placeholdersIn(v)) out.push({ ...p, path: pathOf(path) });
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => walk(item, [...path, i]));
    } else if (v && typeof v === "object") {
      for (const [k, item] of Object.entries(v)) {
        for (const p of placeholdersIn(k)) out.push({ ...p, path: pathOf([...path, k]) });
        walk(item, [...path, k]);
      }
    }
  };
  walk(value, [...base]);
  return out;
}

export interface PlaceholderReport {
  /** References to names that are not declared: each is an error. */
  undeclared: PlaceholderUse[];
  /** Declared names no placeholder refers to: each is a warning. */
  unused: string[];
}

/**
 * Compares the placeholders of one or more JSON values with the declared variable names.
 * `sources` pairs each value with the property path it lives at (e.g. `configuration`,
 * `rows[1].configuration`).
 */
export function checkPlaceholders(sources: Array<{ value: unknown; path: ReadonlyArray<PropertyKey> }>, declared: readonly string[]): PlaceholderReport {
  const names = new Set(declared);
  const uses = sources.flatMap((s) => findPlaceholders(s.value, s.path));
  // `{{a.b}}` looks up `b` inside variable `a`: the variable it needs is `a`.
  const root = (name: string) => name.split(".")[0];
  const undeclared = uses.filter((u) => !names.has(u.name) && !names.has(root(u.name)));
  const used = new Set(uses.flatMap((u) => [u.name, root(u.name)]));
  const unused = declared.filter((n) => !used.has(n));
  return { undeclared, unused };
}

/** The check-failure text for an undeclared placeholder. */
export function undeclaredMessage(use: PlaceholderUse, declared: readonly string[]): string {
  const known = declared.length ? `declared: ${declared.join(", ")}` : "no variables are declared";
  return (
    `placeholder ${use.tag} refers to variable "${use.name}", which the bound variables do not declare (${known}): ` +
    `declare it in the VariableConfig's variables, or fix the placeholder`
  );
}
