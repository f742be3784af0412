import { describe, expect, it } from "vitest";
import { z } from "zod";
import { describeIssues, distance, nearest, show } from "../../provider/validation/messages";

// How a zod issue reaches a user (provider/validation/messages.ts): each of zod's default texts is
// rewritten as "what is wrong, then the fix", unknown keys suggest the nearest known key, and no
// value is echoed whole. The resources' tests see these texts through their own schemas; here each
// rewrite is checked on its own, on one schema that has every kind of rule.

const schema = z
  .object({
    name: z.string().describe("The name."),
    dotted: z.string().optional().describe("Like a.b, the path."),
    when: z.date().optional(),
    prefixed: z.string().startsWith("in.").optional(),
    sql: z.string().refine((s) => s === s.toLowerCase(), "must be lower case: Expected lower-case letters").optional(),
    count: z.number().int().min(1).max(10).optional(),
    tags: z.array(z.string()).min(1).max(2).optional(),
    pair: z.array(z.string()).min(2).optional(),
    short: z.string().max(3).optional(),
    long: z.string().min(3).optional(),
    nonEmpty: z.string().min(1).optional(),
    kind: z.enum(["http", "otlp"]).optional(),
    code: z.string().regex(/^a+$/).optional(),
    either: z.union([z.string(), z.number()]).optional(),
    five: z.number().multipleOf(5).optional(),
    flag: z.boolean().optional(),
    list: z.array(z.string()).optional(),
    obj: z.object({ alpha: z.string().describe("The alpha.") }).strict().optional(),
    rec: z.record(z.string(), z.object({ alpha: z.string().describe("The alpha of an entry.") })).optional(),
    piped: z.string().transform((s) => s.length).optional(),
    custom: z.string().refine((s) => s !== "x", "must not be x: write another letter").optional(),
    wrapped: z
      .object({ inner: z.string() })
      .strict()
      .transform((o) => o)
      .optional(),
    col: z
      .discriminatedUnion("kind", [
        z.object({ kind: z.literal("a"), title: z.string().describe("The title of an a.") }).strict(),
        z.object({ kind: z.literal("b"), size: z.number().describe("The size of a b.") }).strict(),
      ])
      .optional(),
  })
  .strict();

/** The failures check would report for `input` (check parses with reportInput, as here). */
function failures(input: unknown, skip?: Parameters<typeof describeIssues>[2]) {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) throw new Error("expected the input to fail");
  return describeIssues(schema, result.error.issues, skip);
}
const reason = (input: Record<string, unknown>) => {
  const all = failures({ name: "n", ...input });
  expect(all).toHaveLength(1);
  return all[0].reason;
};

describe("show", () => {
  it("quotes strings as JSON, writes other values as JSON or, without JSON, as text", () => {
    expect(show("a\"b")).toBe('"a\\"b"');
    expect(show(5)).toBe("5");
    expect(show({ a: [1] })).toBe('{"a":[1]}');
    expect(show(undefined)).toBe("undefined");
    expect(show(Symbol("s"))).toBe("Symbol(s)");
  });

  it("keeps 60 characters whole and cuts a longer value after 50, giving its length", () => {
    const sixty = "x".repeat(58);
    expect(show(sixty)).toBe(`"${sixty}"`);
    expect(show("x".repeat(59))).toBe(`"${"x".repeat(49)}… (61 characters)`);
  });
});

describe("distance and nearest (did you mean)", () => {
  it("counts edits, ignoring case", () => {
    expect(distance("kitten", "sitting")).toBe(3);
    expect(distance("Name", "nAME")).toBe(0);
    expect(distance("", "abc")).toBe(3);
    expect(distance("abc", "")).toBe(3);
    expect(distance("ab", "ba")).toBe(2);
  });

  it("suggests the nearest key within two edits, or a third of the key's length", () => {
    expect(nearest("nmae", ["count", "name"])).toBe("name");
    expect(nearest("bucketIdd", ["bucketId", "bucket"])).toBe("bucketId");
    // "destinationTable" (16 characters) allows 5 edits, not 6.
    expect(nearest("destXnationTab", ["destinationTable"])).toBe("destinationTable");
    expect(nearest("dXstXnXtionTabXX", ["destinationTable"])).toBe("destinationTable");
    expect(nearest("dXstXnXtXonTabXX", ["destinationTable"])).toBeUndefined();
    expect(nearest("zzz", ["name", "count"])).toBeUndefined();
    // Of two keys at the same distance, the first listed.
    expect(nearest("cat", ["bat", "hat"])).toBe("bat");
  });

  it("suggests a key the word shortens or lengthens: all but two of its characters start the key", () => {
    expect(nearest("defaults", ["name", "defaultValues"])).toBe("defaultValues");
    expect(nearest("DEFAULTvalues", ["defaultValue"])).toBe("defaultValue");
    expect(nearest("defaXXXX", ["defaultValues"])).toBeUndefined();
    // Under four characters a word is too short to stand for a longer key.
    expect(nearest("def", ["defaultValues"])).toBeUndefined();
    expect(nearest("defa", ["defaultValues"])).toBe("defaultValues");
    // Exactly all but two: "defaul" starts the key, "XY" does not.
    expect(nearest("defaulXY", ["defaultValues"])).toBe("defaultValues");
    expect(nearest("defauXYZ", ["defaultValues"])).toBeUndefined();
    // A word longer than the key, starting with all of it: not all but two of the word.
    expect(nearest("nameXXXXX", ["name"])).toBeUndefined();
    expect(nearest("nameXX", ["name"])).toBe("name");
  });
});

describe("describeIssues", () => {
  it("says a missing property is required, with its description", () => {
    expect(failures({})).toEqual([{ property: "name", reason: "is required: set it (The name)" }]);
    expect(failures({ name: "n", rec: { k: {} } })).toEqual([{ property: "rec.k.alpha", reason: "is required: set it (The alpha of an entry)" }]);
    expect(failures({ name: "n", obj: {} })).toEqual([{ property: "obj.alpha", reason: "is required: set it (The alpha)" }]);
    // Only the description's final dot goes.
    expect(failures({ name: "n", dotted: 5 })[0].reason).toMatch(/^must be a string/);
    expect(describeIssues(schema, [{ code: "invalid_type", expected: "string", path: ["dotted"], message: "Invalid input", input: undefined }])).toEqual([
      { property: "dotted", reason: "is required: set it (Like a.b, the path)" },
    ]);
  });

  it("says what type a value must have, what it got and how to write it", () => {
    expect(reason({ name: 5 })).toBe('must be a string, got a number 5: write text in quotes, e.g. "events"');
    expect(reason({ count: 1.5 })).toBe("must be a whole number, got a fractional number 1.5: write a whole number, e.g. 10");
    expect(reason({ flag: null })).toBe("must be a boolean, got null: write true or false");
    expect(reason({ list: {} })).toBe("must be an array, got an object {}: write a list, e.g. [ ... ]");
    expect(reason({ obj: [1] })).toBe("must be an object, got an array [1]: write an object, e.g. { ... }");
    expect(reason({ piped: 3 })).toBe('must be a string, got a number 3: write text in quotes, e.g. "events"');
    expect(reason({ count: "7" })).toBe('must be a number, got a string "7": write a number, e.g. 10');
    expect(reason({ rec: "x" })).toBe('must be a record, got a string "x": write an object of names to values');
    expect(reason({ when: "x" })).toBe('must be date, got a string "x": write a date');
  });

  it("gives numeric, string and list limits with the fix", () => {
    expect(reason({ count: 0 })).toBe("0 is below the minimum 1: use at least 1");
    expect(reason({ count: 11 })).toBe("11 is above the maximum 10: use at most 10");
    expect(reason({ tags: [] })).toBe("must have at least 1 item: add one");
    expect(reason({ pair: ["a"] })).toBe("must have at least 2 items: add more");
    expect(reason({ tags: ["a", "b", "c"] })).toBe("has 3 items, at most 2 allowed: remove some");
    expect(reason({ short: "abcd" })).toBe("is 4 characters, at most 3 allowed: shorten it");
    expect(reason({ long: "a" })).toBe("must have at least 3 characters: lengthen it");
    expect(reason({ nonEmpty: "" })).toBe("must have at least 1 character: it must not be empty");
  });

  it("lists the allowed values, suggesting the nearest", () => {
    expect(reason({ kind: "htp" })).toBe('"htp" is not one of "http", "otlp": did you mean "http"?');
    expect(reason({ kind: "zzzzzz" })).toBe('"zzzzzz" is not one of "http", "otlp": use one of them');
    expect(reason({ kind: 5 })).toBe('5 is not one of "http", "otlp": use one of them');
  });

  it("names the expected format, the accepted forms, and passes other zod texts on with the fix", () => {
    expect(reason({ code: "b" })).toBe('"b" is not in the expected format (/^a+$/): correct it');
    expect(reason({ either: true })).toBe("true matches none of the accepted forms: see the property's documentation in schema.json");
    expect(reason({ five: 7 })).toBe("Invalid number: must be a multiple of 5: correct it");
    expect(reason({ prefixed: "out.x" })).toBe('"out.x" is not in the expected format (starts_with): correct it');
  });

  it("keeps a message the schema wrote itself, even one naming what zod's texts name", () => {
    expect(reason({ custom: "x" })).toBe("must not be x: write another letter");
    expect(reason({ sql: "A" })).toBe("must be lower case: Expected lower-case letters");
  });

  it("reports an unknown key with the known ones, suggesting the nearest, and a misspelled required key once", () => {
    const known = "name, dotted, when, prefixed, sql, count, tags, pair, short, long, nonEmpty, kind, code, either, five, flag, list, obj, rec, piped, custom, wrapped, col";
    expect(failures({ nmae: "n" })).toEqual([{ property: "nmae", reason: `is not a known property: did you mean "name"? Known here: ${known}. Rename it.` }]);
    expect(failures({ name: "n", zzz: 1 })).toEqual([{ property: "zzz", reason: `is not a known property. Known here: ${known}. Remove it or correct its name.` }]);
    // The misspelling is said once only when the right key is missing: set with a wrong type, both are said.
    expect(failures({ nmae: "n", name: 5 }).map((f) => f.property)).toEqual(["name", "nmae"]);
    // A required key missing beside an unrelated unknown one: both are reported.
    expect(failures({ zzz: 1 }).map((f) => f.property)).toEqual(["name", "zzz"]);
    expect(failures({ name: "n", obj: { alpha: "x", alpah: 1 } })).toEqual([
      { property: "obj.alpah", reason: 'is not a known property: did you mean "alpha"? Known here: alpha. Rename it.' },
    ]);
  });

  it("finds the known keys and descriptions below a transform and in the option of a union", () => {
    expect(reason({ wrapped: { innr: "x", inner: "y" } })).toBe('is not a known property: did you mean "inner"? Known here: inner. Rename it.');
    expect(failures({ name: "n", col: { kind: "a" } })).toEqual([{ property: "col.title", reason: "is required: set it (The title of an a)" }]);
    // The description of the option that has the field, not the first option's.
    expect(failures({ name: "n", col: { kind: "b" } })).toEqual([{ property: "col.size", reason: "is required: set it (The size of a b)" }]);
    expect(failures({ name: "n", col: { kind: "a", title: "t", titel: "x" } })).toEqual([
      { property: "col.titel", reason: 'is not a known property: did you mean "title"? Known here: kind, title, size. Rename it.' },
    ]);
  });

  it("leaves out the issues the caller skips", () => {
    expect(failures({ name: 5, count: 0 }, (i) => i.path[0] === "name").map((f) => f.property)).toEqual(["count"]);
  });
});
