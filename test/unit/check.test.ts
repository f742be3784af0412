import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  UNKNOWN,
  checkWith,
  containsUnknown,
  failuresForEngine,
  knownFields,
  parseChecked,
  parseKnown,
  unknownAsOld,
  unknownsAsOld,
  whenKnown,
  withExpected,
  type CheckedDefinition,
} from "../../provider/validation/check";
import { withoutHidden } from "../../provider/dynamic/props";

// What `check` does with inputs that are partly unknown at preview (provider/validation/check.ts),
// called directly: the resources' tests reach these rules only through their own schemas.

describe("unknown values", () => {
  it("finds the preview marker at any depth", () => {
    expect(containsUnknown(UNKNOWN)).toBe(true);
    expect(containsUnknown({ a: [1, { b: UNKNOWN }] })).toBe(true);
    expect(containsUnknown([null, "x", { a: 1 }])).toBe(false);
    expect(containsUnknown("04da6b54")).toBe(false);
  });

  it("gives a value, or the named fields of one, only when nothing in them is unknown", () => {
    expect(whenKnown({ a: [1] })).toEqual({ a: [1] });
    expect(whenKnown({ a: [UNKNOWN] })).toBeUndefined();
    const v = { a: "x", b: { c: UNKNOWN } };
    expect(knownFields(v, ["a"])).toBe(v);
    expect(knownFields(v, ["a", "b"])).toBeUndefined();
  });

  it("takes an unknown as the old value, at the top or at every depth", () => {
    expect(unknownAsOld("old", UNKNOWN)).toBe("old");
    expect(unknownAsOld("old", { a: UNKNOWN })).toBe("old");
    expect(unknownAsOld("old", "new")).toBe("new");
    expect(unknownsAsOld({ a: "1", b: ["x", "y"] }, { a: UNKNOWN, b: [UNKNOWN, "z", UNKNOWN], c: "new" })).toEqual({ a: "1", b: ["x", "z", UNKNOWN], c: "new" });
    // Nothing old at that place: the unknown stays.
    expect(unknownsAsOld(undefined, UNKNOWN)).toBe(UNKNOWN);
    expect(unknownsAsOld("scalar", { a: UNKNOWN })).toEqual({ a: UNKNOWN });
    expect(unknownsAsOld(["a"], { 0: UNKNOWN })).toEqual({ 0: UNKNOWN });
    expect(unknownsAsOld({ 0: "a" }, [UNKNOWN])).toEqual([UNKNOWN]);
    expect(unknownsAsOld("old", null)).toBeNull();
    expect(unknownsAsOld("old", 5)).toBe(5);
  });
});

describe("inputs as the host gives them", () => {
  it("strips the properties the host and the resource classes add", () => {
    expect(withoutHidden({ __provider: "p", __resourceName: "n", __owner: "o", __program: "f", __root: "r", __import: true, name: "x", __other: 1 })).toEqual({ name: "x", __other: 1 });
  });

  it("fills an unknown with the value the program says it will have, and nothing else", () => {
    expect(withExpected({ bucketId: UNKNOWN, name: UNKNOWN, kept: "k" }, { bucketId: "in.c-a", name: undefined, kept: "other", absent: "x" })).toEqual({
      bucketId: "in.c-a",
      name: UNKNOWN,
      kept: "k",
    });
  });
});

describe("parseKnown", () => {
  const shape = z.object({ a: z.string(), n: z.number().default(1), opt: z.string().optional() });

  it("parses what is known (defaults applied), keeps the marker, and a refused known value as given", () => {
    expect(parseKnown(shape, UNKNOWN)).toBe(UNKNOWN);
    expect(parseKnown(shape, { a: "x" })).toEqual({ a: "x", n: 1 });
    expect(parseKnown(shape, { a: 5 })).toEqual({ a: 5 });
  });

  it("walks an object holding an unknown: its known fields parsed, absent ones defaulted, other keys kept", () => {
    // toStrictEqual: an absent optional field stays absent (no key holding undefined).
    expect(parseKnown(shape, { a: UNKNOWN, extra: "e" })).toStrictEqual({ a: UNKNOWN, extra: "e", n: 1 });
    // A list where an object is expected stays as given (not read as an object of indexes).
    expect(parseKnown(shape, [UNKNOWN])).toEqual([UNKNOWN]);
    expect(parseKnown(z.record(z.string(), shape), [{ a: UNKNOWN }])).toEqual([{ a: UNKNOWN }]);
    expect(parseKnown(shape.optional(), { a: UNKNOWN, n: 2 })).toEqual({ a: UNKNOWN, n: 2 });
  });

  it("walks arrays and records element by element", () => {
    const element = z.object({ id: z.string(), on: z.boolean().default(true) });
    expect(parseKnown(z.array(element), [{ id: UNKNOWN }, { id: "b" }])).toEqual([{ id: UNKNOWN, on: true }, { id: "b", on: true }]);
    expect(parseKnown(z.record(z.string(), element), { x: { id: UNKNOWN }, y: { id: "y", on: false } })).toEqual({ x: { id: UNKNOWN, on: true }, y: { id: "y", on: false } });
  });

  it("parses a transform's input side only: the transform cannot run on an unknown", () => {
    const piped = shape.transform((o) => ({ ...o, derived: true }));
    expect(parseKnown(piped, { a: UNKNOWN })).toEqual({ a: UNKNOWN, n: 1 });
    expect(parseKnown(piped, { a: "x" })).toEqual({ a: "x", n: 1, derived: true });
  });

  it("picks a union's option of the value's own kind, seen through wrappers and pipes", () => {
    const union = z.union([z.string(), z.array(z.object({ k: z.string(), d: z.number().default(0) })), shape.optional()]);
    expect(parseKnown(union, { a: UNKNOWN })).toEqual({ a: UNKNOWN, n: 1 });
    expect(parseKnown(union, [{ k: UNKNOWN }])).toEqual([{ k: UNKNOWN, d: 0 }]);
    const records = z.union([z.number(), z.record(z.string(), z.object({ v: z.string(), d: z.number().default(3) })).transform((r) => r)]);
    expect(parseKnown(records, { x: { v: UNKNOWN } })).toEqual({ x: { v: UNKNOWN, d: 3 } });
    // No option of its kind: the value stays as given.
    expect(parseKnown(z.union([z.string(), z.number()]), { a: UNKNOWN })).toEqual({ a: UNKNOWN });
    expect(parseKnown(z.union([z.string(), shape]), [UNKNOWN])).toEqual([UNKNOWN]);
  });
});

describe("checkWith", () => {
  const inputs = z.object({
    name: z.string().min(1),
    bucketId: z.string().regex(/^in\.c-/, "must start with in.c-: name an input bucket"),
    size: z.number().default(10),
    note: z.string().optional(),
    meta: z.object({ owner: z.string() }).optional(),
  });
  const definition: CheckedDefinition<z.output<typeof inputs>> = {
    inputs,
    lifecycle: { fields: inputs.shape },
    refine: (value, ctx) => {
      if (value.name === "same" && value.bucketId === "in.c-same") ctx.addIssue({ code: "custom", path: ["name"], message: "must differ from the bucket: rename it" });
      if (value.size === 13) ctx.addIssue({ code: "custom", path: ["bucketId"], message: "size 13 needs another bucket" });
      if (value.size === 14) ctx.addIssue({ code: "custom", path: ["meta", "owner"], message: "size 14 needs an owner" });
      if (value.size === 15) ctx.addIssue({ code: "custom", message: "size 15 is never allowed: use another size" });
    },
  };

  it("parses known inputs with their defaults, without the host's properties", () => {
    expect(checkWith(definition, { __resourceName: "t", name: "x", bucketId: "in.c-a" })).toEqual({ value: { name: "x", bucketId: "in.c-a", size: 10 }, failures: [] });
  });

  it("reports a known value the schema refuses, at its property", () => {
    expect(checkWith(definition, { name: "", bucketId: "out.c-a" })).toEqual({
      failures: [
        { property: "name", reason: "must have at least 1 character: it must not be empty" },
        { property: "bucketId", reason: "must start with in.c-: name an input bucket" },
      ],
    });
  });

  it("skips what is unknown and returns the known rest parsed, the marker in place", () => {
    // toStrictEqual: the absent optional fields stay absent.
    expect(checkWith(definition, { name: "x", bucketId: UNKNOWN })).toStrictEqual({ value: { name: "x", bucketId: UNKNOWN, size: 10 }, failures: [] });
    // A plain schema has no fields to parse one by one: nothing is refused, no value comes back.
    expect(checkWith(inputs, { name: "x", bucketId: UNKNOWN })).toEqual({ failures: [] });
    // Refused known values are still reported beside the unknown.
    expect(checkWith(definition, { name: "", bucketId: UNKNOWN }).failures.map((f) => f.property)).toEqual(["name"]);
  });

  it("checks an unknown against the value the program says it will have", () => {
    expect(checkWith(definition, { name: "x", bucketId: UNKNOWN }, { bucketId: "out.c-b" }).failures).toEqual([{ property: "bucketId", reason: "must start with in.c-: name an input bucket" }]);
  });

  it("runs the rules across fields on the partly known value, reporting only problems at known places", () => {
    expect(checkWith(definition, { name: "same", bucketId: "in.c-same" })).toEqual({ value: { name: "same", bucketId: "in.c-same", size: 10 }, failures: [] });
    // Rules run when the schema passes only on a partly known value (an unknown somewhere).
    expect(checkWith(definition, { name: "same", bucketId: "in.c-same", size: UNKNOWN })).toEqual({ failures: [{ property: "name", reason: "must differ from the bucket: rename it" }] });
    expect(checkWith(definition, { name: UNKNOWN, bucketId: UNKNOWN, size: 13 })).toEqual({ value: { name: UNKNOWN, bucketId: UNKNOWN, size: 13 }, failures: [] });
    // A problem below an unknown (meta is not known yet) is not reported; below a known value it is.
    expect(checkWith(definition, { name: "x", bucketId: UNKNOWN, size: 14, meta: UNKNOWN })).toEqual({ value: { name: "x", bucketId: UNKNOWN, size: 14, meta: UNKNOWN }, failures: [] });
    expect(checkWith(definition, { name: "x", bucketId: UNKNOWN, size: 14, meta: { owner: "o" } }).failures).toEqual([{ property: "meta.owner", reason: "size 14 needs an owner" }]);
    // A rule's problem with no path is the resource's own.
    expect(checkWith(definition, { name: "x", bucketId: UNKNOWN, size: 15 }).failures).toEqual([{ property: "", reason: "size 15 is never allowed: use another size" }]);
  });
});

describe("failures as the engine prints them", () => {
  it("moves a nested path into the reason, keeps a top-level property", () => {
    expect(
      failuresForEngine([
        { property: "configuration.parameters.x", reason: "bad" },
        { property: "columns[1]", reason: "worse" },
        { property: "name", reason: "short" },
        { property: "", reason: "overall" },
      ]),
    ).toEqual([
      { property: "", reason: "configuration.parameters.x: bad" },
      { property: "", reason: "columns[1]: worse" },
      { property: "name", reason: "short" },
      { property: "", reason: "overall" },
    ]);
  });
});

describe("parseChecked", () => {
  const schema = z.object({ name: z.string(), n: z.number().default(2) });

  it("parses accepted inputs without the host's properties", () => {
    expect(parseChecked(schema, { __provider: "p", name: "x" }, "Bucket b")).toEqual({ name: "x", n: 2 });
  });

  it("throws with every problem when stored inputs no longer parse", () => {
    expect(() => parseChecked(schema, { name: 5, n: "x" }, "Bucket b")).toThrow(
      'Bucket b: invalid inputs: name: must be a string, got a number 5: write text in quotes, e.g. "events"; n: must be a number, got a string "x": write a number, e.g. 10',
    );
  });
});
