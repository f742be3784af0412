import { describe, expect, it } from "vitest";
import { z } from "zod";
import { descriptionOf, schemaDef } from "../../provider/validation/schema-def";
import { isJsonScalar, isOneOf, isRecord } from "../../keboola/json";

// The walkers of check messages and manifest suggestions read zod schemas through schemaDef: it
// must find what zod's own definition holds, for every kind of schema they step through (a zod
// upgrade that changes the classes behind a `def.type` fails here).

describe("schemaDef", () => {
  const inner = z.string();
  const wrappers = {
    optional: inner.optional(),
    exactOptional: inner.exactOptional(),
    default: inner.default("x"),
    nullable: inner.nullable(),
    prefault: inner.prefault("x"),
    readonly: inner.readonly(),
    catch: inner.catch("x"),
  };

  it.each(Object.entries(wrappers))("reads the schema a %s wraps", (_kind, schema) => {
    // A default also gives its value (what pull leaves unwritten, manifest/parse.ts manifestDefaultAt).
    expect(schemaDef(schema)).toEqual({ type: schema._zod.def.type, innerType: inner, ...(_kind === "default" ? { defaultValue: "x" } : {}) });
  });

  it("reads a pipe's input, a transform's and a preprocess's included", () => {
    for (const schema of [inner.pipe(z.string()), inner.transform((s) => s.length), z.preprocess((v) => v, inner)]) {
      const def = schemaDef(schema);
      expect(def.type).toBe("pipe");
      expect(def.in).toBe(schema._zod.def.in);
    }
  });

  it("reads the options of a union, a discriminated union and an xor", () => {
    const a = z.object({ k: z.literal("a") });
    const b = z.object({ k: z.literal("b") });
    for (const schema of [z.union([a, b]), z.discriminatedUnion("k", [a, b]), z.xor([a, b])]) {
      expect(schemaDef(schema)).toEqual({ type: "union", options: [a, b] });
    }
  });

  it("reads an object's shape, an array's element and a record's values", () => {
    for (const schema of [z.object({ a: inner }), z.looseObject({ a: inner }), z.strictObject({ a: inner })]) {
      expect(schemaDef(schema)).toEqual({ type: "object", shape: { a: inner } });
    }
    expect(schemaDef(z.array(inner))).toEqual({ type: "array", element: inner });
    expect(schemaDef(z.record(z.string(), inner))).toEqual({ type: "record", valueType: inner });
  });

  it("reads nothing more of other schemas", () => {
    expect(schemaDef(z.lazy(() => inner))).toEqual({ type: "lazy" });
    expect(schemaDef(z.tuple([inner]))).toEqual({ type: "tuple" });
    expect(schemaDef(inner)).toEqual({ type: "string" });
  });

  it("reads a field's description as zod's description getter does", () => {
    const described = z.string().describe("The name.");
    expect(descriptionOf(described)).toBe("The name.");
    expect(descriptionOf(described)).toBe(described.description);
    expect(descriptionOf(z.string())).toBeUndefined();
  });
});

describe("JSON guards", () => {
  it("isRecord: non-null objects that are not arrays", () => {
    expect([{}, { a: 1 }, new Error("x")].map(isRecord)).toEqual([true, true, true]);
    expect([null, undefined, [], [1], "x", 1, true].map(isRecord)).toEqual([false, false, false, false, false, false, false]);
  });

  it("isJsonScalar: strings, numbers, booleans and null", () => {
    expect(["", "x", 0, 1.5, false, null].map(isJsonScalar)).toEqual([true, true, true, true, true, true]);
    expect([undefined, {}, [], () => 1].map(isJsonScalar)).toEqual([false, false, false, false]);
  });

  it("isOneOf: only the listed values", () => {
    const signals = ["logs", "metrics", "traces"] as const;
    expect(["logs", "traces"].every((s) => isOneOf(signals, s))).toBe(true);
    expect(["Logs", "", undefined, 1, null].some((s) => isOneOf(signals, s))).toBe(false);
  });
});
