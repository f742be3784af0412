import type { z } from "zod";
import { editDistance } from "../../keboola/edit-distance";
import { pathOf } from "./paths";
import { descriptionOf, schemaDef as defOf, type Schema } from "./schema-def";

/** A check's refusal of one property: its path (as the engine prints it; empty: the resource itself) and why. */
export interface CheckFailure {
  property: string;
  reason: string;
}

// Zod's issues as a person reads them: the property path, what is wrong, and the fix. Our schemas
// carry their own messages where a rule needs explaining; zod's default texts ("Invalid input:
// expected string, received undefined", "Unrecognized key") never reach a user: they are
// rewritten here, unknown keys suggest the nearest known key, and no value is echoed whole.

type Issue = z.core.$ZodIssue & { input?: unknown };

/** A value as messages quote it: JSON, cut after 60 characters. */
export function show(value: unknown): string {
  const text = value === undefined ? "undefined" : typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return text.length <= 60 ? text : `${text.slice(0, 50)}… (${text.length} characters)`;
}

/** Edit distance, ignoring case, for "did you mean". */
export function distance(a: string, b: string): number {
  return editDistance(a, b, { ignoreCase: true });
}

/** The known word nearest to `word`, when it is close enough to be a typo of it. */
export function nearest(word: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const k of known) {
    const d = distance(word, k);
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  if (best !== undefined && bestDistance <= Math.max(2, Math.floor(best.length / 3))) return best;
  // A shortened or lengthened name ("defaults" for "defaultValues"): most of the word is the key's start.
  // At least four characters in common: a shorter word stands for no key.
  const w = word.toLowerCase();
  const common = (k: string) => {
    const end = Math.min(w.length, k.length);
    let n = 0;
    while (n < end && w[n] === k[n].toLowerCase()) n++;
    return n;
  };
  return known.find((k) => common(k) >= Math.max(4, w.length - 2));
}

/** The schemas that may stand at `path` (several below a union). */
function schemasAt(schema: Schema, path: ReadonlyArray<PropertyKey>): Schema[] {
  let current = [schema];
  for (const seg of [...path, undefined]) {
    const next: Schema[] = [];
    const expand = (s: Schema): Schema[] => {
      const d = defOf(s);
      // schemaDef gives each part only for its kind of schema (innerType for the wrappers, ...).
      if (d.innerType) return expand(d.innerType);
      if (d.in) return expand(d.in);
      if (d.options) return d.options.flatMap(expand);
      return [s];
    };
    for (const s of current.flatMap(expand)) {
      if (seg === undefined) next.push(s);
      else {
        const d = defOf(s);
        if (d.shape && typeof seg === "string" && seg in d.shape) next.push(d.shape[seg]);
        else if (d.element && typeof seg === "number") next.push(d.element);
        else if (d.valueType) next.push(d.valueType);
      }
    }
    current = next;
  }
  return current;
}

function knownKeysAt(schema: z.ZodType, path: ReadonlyArray<PropertyKey>): string[] {
  const keys = new Set<string>();
  for (const s of schemasAt(schema, path)) {
    const d = defOf(s);
    if (d.shape) for (const k of Object.keys(d.shape)) keys.add(k);
  }
  return [...keys];
}

function descriptionAt(schema: z.ZodType, path: ReadonlyArray<PropertyKey>): string | undefined {
  const parent = schemasAt(schema, path.slice(0, -1));
  const key = path[path.length - 1];
  for (const p of parent) {
    const d = defOf(p);
    const field = d.shape && typeof key === "string" ? d.shape[key] : undefined;
    const description = field && descriptionOf(field);
    if (description) return description;
  }
  return undefined;
}

const ZOD_DEFAULT = /^(Invalid input|Invalid option|Too big|Too small|Unrecognized key|Invalid string|Invalid number|Invalid element|Invalid key|Invalid value|Expected )/;

const article = (word: string) => (/^[aeiou]/i.test(word) ? `an ${word}` : `a ${word}`);

/** What a value is, then the value: `a number 5`, `an array [1]`, or just `null`. */
function got(v: unknown): string {
  if (v === null) return "null";
  const kind = Array.isArray(v) ? "an array" : typeof v === "number" && !Number.isInteger(v) ? "a fractional number" : article(typeof v);
  return `${kind} ${show(v)}`;
}

const EXAMPLES: Record<string, string> = {
  string: 'text in quotes, e.g. "events"',
  number: "a number, e.g. 10",
  int: "a whole number, e.g. 10",
  boolean: "true or false",
  array: "a list, e.g. [ ... ]",
  object: "an object, e.g. { ... }",
  record: "an object of names to values",
};

function rewrite(schema: z.ZodType, i: Issue): string {
  switch (i.code) {
    case "invalid_type": {
      if (i.input === undefined) {
        const about = descriptionAt(schema, i.path);
        return `is required: set it${about ? ` (${about.replace(/\.$/, "")})` : ""}`;
      }
      const expected = i.expected;
      return `must be ${EXAMPLES[expected] ? article(expected === "int" ? "whole number" : expected) : expected}, got ${got(i.input)}: write ${EXAMPLES[expected] ?? `a ${expected}`}`;
    }
    case "invalid_value": {
      const values = i.values.map((v) => String(v));
      const near = typeof i.input === "string" ? nearest(i.input, values) : undefined;
      const list = values.map((v) => JSON.stringify(v)).join(", ");
      return `${show(i.input)} is not one of ${list}: ${near ? `did you mean "${near}"?` : "use one of them"}`;
    }
    case "too_big":
    case "too_small": {
      const big = i.code === "too_big";
      const limit = String(i.code === "too_big" ? i.maximum : i.minimum);
      if (i.origin === "string") {
        // Stryker disable next-line StringLiteral: equivalent here: check parses with reportInput, so the input is always there
        const len = typeof i.input === "string" ? i.input.length : "too many";
        return big ? `is ${len} characters, at most ${limit} allowed: shorten it` : `must have at least ${limit} character${limit === "1" ? "" : "s"}: ${limit === "1" ? "it must not be empty" : "lengthen it"}`;
      }
      if (i.origin === "array") {
        // Stryker disable next-line StringLiteral: equivalent here, as above
        const n = Array.isArray(i.input) ? i.input.length : "too many";
        return big ? `has ${n} items, at most ${limit} allowed: remove some` : `must have at least ${limit} item${limit === "1" ? "" : "s"}: add ${limit === "1" ? "one" : "more"}`;
      }
      return `${show(i.input)} is ${big ? "above the maximum" : "below the minimum"} ${limit}: use ${big ? "at most" : "at least"} ${limit}`;
    }
    case "invalid_format":
      return `${show(i.input)} is not in the expected format${i.pattern ? ` (${i.pattern})` : i.format ? ` (${i.format})` : ""}: correct it`;
    case "invalid_union":
      return `${show(i.input)} matches none of the accepted forms: see the property's documentation in schema.json`;
    default:
      return `${i.message}: correct it`;
  }
}

/** Check failures for zod issues of `schema`, with rewritten default messages and "did you mean". */
export function describeIssues(schema: z.ZodType, issues: readonly Issue[], skip: (issue: Issue) => boolean = () => false): CheckFailure[] {
  const failures: CheckFailure[] = [];
  const unknownKeys = issues.filter((i): i is Issue & z.core.$ZodIssueUnrecognizedKeys => i.code === "unrecognized_keys");
  // A missing key whose misspelling is reported as unknown is the same mistake: say it once.
  const misspelled = new Set<string>();
  for (const u of unknownKeys) {
    const known = knownKeysAt(schema, u.path);
    for (const key of u.keys) {
      const near = nearest(key, known);
      if (near) misspelled.add(pathOf([...u.path, near]));
    }
  }
  for (const issue of issues) {
    if (skip(issue)) continue;
    if (issue.code === "unrecognized_keys") {
      const known = knownKeysAt(schema, issue.path);
      for (const key of issue.keys) {
        const near = nearest(key, known);
        failures.push({
          property: pathOf([...issue.path, key]),
          reason: `is not a known property${near ? `: did you mean "${near}"?` : "."} Known here: ${known.join(", ")}. ${near ? "Rename it" : "Remove it or correct its name"}.`,
        });
      }
      continue;
    }
    const property = pathOf(issue.path);
    if (issue.code === "invalid_type" && issue.input === undefined && misspelled.has(property)) continue;
    failures.push({ property, reason: ZOD_DEFAULT.test(issue.message) ? rewrite(schema, issue) : issue.message });
  }
  return failures;
}
