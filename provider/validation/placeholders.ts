import { pathOf } from "./paths";
import { isRecord } from "../../keboola/json";
import { isScalarList, linksIn } from "../../keboola/shared-code";

// Variable placeholders in component configurations. Keboola renders a configuration that has a
// `variables_id` with Mustache before a job runs, so `{{name}}` (also `{{ name }}`, `{{{name}}}`,
// `{{&name}}` and the section tags `{{#name}}`, `{{^name}}`, `{{/name}}`) refers to variable
// `name`. Comments (`{{! ...}}`), partials (`{{> ...}}`) and delimiter changes are not
// references. The scanner walks every string value and every object key of a JSON value and
// reports where each reference is, as a property path (`rows[1].configuration.parameters.x`).
//
// A configuration that uses shared code holds links `{{<shared code row id>}}` too: the job runner
// replaces them with the shared code before variables are rendered (see shared-code.ts), so they
// are not variable references, and neither is anything else in a string a link replaces.

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
    // The tag's pattern leaves the spaces around a name outside its group, and one of the two
    // alternatives' groups always takes part in a match.
    const name = m[1] ?? m[3]!;
    // Comments, partials and delimiter changes are not variable references; neither is `{{.}}`.
    if (!name || name === "." || /^[!>=]/.test(name)) continue;
    out.push({ name, tag: m[0] });
  }
  return out;
}

/** The placeholders of a JSON value: variable references, and links to shared code. */
export interface PlaceholderScan {
  /** Variable references. */
  uses: PlaceholderUse[];
  /** Links to shared code rows (`name` is the row id), which are not variable references. */
  links: PlaceholderUse[];
}

/**
 * Every placeholder in a JSON value (string values and object keys), with its property path.
 * `linkIds` are the configuration's `shared_code_row_ids` (none when it uses no shared code): a
 * string item of a list of scalars that links to one of them is replaced by the shared code when
 * a job runs, so its tags are links, not variable references.
 */
export function scanPlaceholders(value: unknown, base: ReadonlyArray<PropertyKey>, linkIds?: readonly string[]): PlaceholderScan {
  const uses: PlaceholderUse[] = [];
  const links: PlaceholderUse[] = [];
  const walk = (v: unknown, path: PropertyKey[], inScalarList = false) => {
    if (typeof v === "string") {
      const linked = inScalarList && linkIds?.length ? linksIn(v, linkIds) : [];
      if (linked.length) for (const l of linked) links.push({ name: l.rowId, tag: l.tag, path: pathOf(path) });
      else for (const p of placeholdersIn(v)) uses.push({ ...p, path: pathOf(path) });
    } else if (Array.isArray(v)) {
      const scalars = isScalarList(v);
      v.forEach((item, i) => walk(item, [...path, i], scalars));
    } else if (isRecord(v)) {
      for (const [k, item] of Object.entries(v)) {
        for (const p of placeholdersIn(k)) uses.push({ ...p, path: pathOf([...path, k]) });
        walk(item, [...path, k]);
      }
    }
  };
  walk(value, [...base]);
  return { uses, links };
}

/** Every variable reference in a JSON value (string values and object keys), with its property path. */
export function findPlaceholders(value: unknown, base: ReadonlyArray<PropertyKey> = []): PlaceholderUse[] {
  return scanPlaceholders(value, base).uses;
}

export interface PlaceholderReport {
  /** References to names that are not declared: each is an error. */
  undeclared: PlaceholderUse[];
  /** Declared names no placeholder refers to: each is a warning. */
  unused: string[];
  /** Links to shared code (not variable references). */
  links: PlaceholderUse[];
}

/** One JSON value to check: where it lives (e.g. `configuration`, `rows[1].configuration`) and its links' row ids. */
export interface PlaceholderSource {
  value: unknown;
  path: ReadonlyArray<PropertyKey>;
  /** The `shared_code_row_ids` in effect for this value (see shared-code.ts); none without shared code. */
  linkIds?: readonly string[];
}

/**
 * Compares the placeholders of one or more JSON values with the declared variable names. With
 * links to shared code, no declared name is reported unused: the linked code is rendered with the
 * same variables, and what it uses is not known here.
 */
export function checkPlaceholders(sources: readonly PlaceholderSource[], declared: readonly string[]): PlaceholderReport {
  const names = new Set(declared);
  const scans = sources.map((s) => scanPlaceholders(s.value, s.path, s.linkIds));
  const uses = scans.flatMap((s) => s.uses);
  const links = scans.flatMap((s) => s.links);
  // `{{a.b}}` looks up `b` inside variable `a`: the variable it needs is `a`.
  const root = (name: string) => name.split(".")[0];
  const undeclared = uses.filter((u) => !names.has(u.name) && !names.has(root(u.name)));
  const used = new Set(uses.flatMap((u) => [u.name, root(u.name)]));
  const unused = links.length ? [] : declared.filter((n) => !used.has(n));
  return { undeclared, unused, links };
}

/**
 * The check-failure text for an undeclared placeholder. `sharedCode`: the configuration names
 * shared code (`shared_code_id`), so the placeholder may be meant as a link.
 */
export function undeclaredMessage(use: PlaceholderUse, declared: readonly string[], sharedCode: boolean): string {
  const known = declared.length ? `declared: ${declared.join(", ")}` : "no variables are declared";
  const link = sharedCode
    ? `; if it links shared code, list "${use.name}" in shared_code_row_ids and keep the link in an item of a list of strings (such as script[])`
    : "";
  return (
    `placeholder ${use.tag} refers to variable "${use.name}", which the bound variables do not declare (${known}): ` +
    `declare it in the VariableConfig's variables, or fix the placeholder${link}`
  );
}
