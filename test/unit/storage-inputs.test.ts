import { describe, expect, it } from "vitest";
import {
  bucketDisplayNameSchema,
  bucketNameSchema,
  columnDefinitionSchema,
  columnNameSchema,
  contentSummary,
  formatBytes,
  headerMismatch,
  stageSchema,
  storedDefinition,
  tableColumnsSchema,
  tableNameSchema,
} from "../../provider/validation/storage";
import { bucketNameProblem, columnNameProblem, snowflakeDefinitionProblem, tableNameProblem, SNOWFLAKE_TYPES } from "../../keboola/storage";

// Buckets and tables as inputs (provider/validation/storage.ts): each schema's refusal says the
// service's own message (keboola/storage.ts, tested in storage-rules.test.ts) and then the fix.

const messages = (r: { error?: { issues: Array<{ path: PropertyKey[]; message: string }> } }) => r.error?.issues.map((i) => [i.path.join("."), i.message]);

describe("bucket and table names as inputs", () => {
  it("refuses a stage other than in or out", () => {
    expect(messages(stageSchema.safeParse("sys"))).toEqual([["", 'must be "in" or "out"']]);
  });

  it("quotes the service's refusal of a bucket name and says to rename it; the c- prefix is the service's to add", () => {
    expect(messages(bucketNameSchema.safeParse("a b"))).toEqual([["", `the service refuses it: ${bucketNameProblem("a b")} Rename it.`]]);
    expect(messages(bucketNameSchema.safeParse("c-ref"))).toEqual([["", 'must not start with "c-": the service adds it (name "ref" makes the bucket "in.c-ref"); drop the prefix']]);
    expect(bucketNameSchema.safeParse("cref").success).toBe(true);
  });

  it("refuses an empty, a too long or a badly spelled display name, with the fix", () => {
    expect(messages(bucketDisplayNameSchema.safeParse(""))).toEqual([["", "must not be empty: omit it to show the name"], ["", expect.stringMatching(/^the service refuses it: .+ Use letters, digits, "-" and "_" only \(e\.g\. "App-events"\), or omit it\.$/)]]);
    expect(bucketDisplayNameSchema.safeParse("a".repeat(96)).success).toBe(true);
    expect(bucketDisplayNameSchema.safeParse("a".repeat(97)).success).toBe(false);
    expect(messages(bucketDisplayNameSchema.safeParse("App events"))).toEqual([["", expect.stringMatching(/^the service refuses it: Only alphanumeric characters dash and underscores are allowed/)]]);
  });

  it("quotes the service's refusal of a table or column name", () => {
    expect(messages(tableNameSchema.safeParse("a.b"))).toEqual([["", `the service refuses it: ${tableNameProblem("a.b")} Rename it.`]]);
    expect(messages(columnNameSchema.safeParse("a b"))).toEqual([["", `the service refuses it: ${columnNameProblem("a b")} Rename it.`]]);
  });

  it("refuses no columns, and a column repeated in any case, at the repeat", () => {
    expect(messages(tableColumnsSchema.safeParse([]))).toEqual([["", "needs at least one column"]]);
    expect(messages(tableColumnsSchema.safeParse(["id", "Name", "NAME"]))).toEqual([["2", '"NAME" is already columns[1]: column names must be unique (case-insensitively)']]);
    expect(tableColumnsSchema.safeParse(["id", "name"]).success).toBe(true);
  });
});

describe("typed column definitions as inputs", () => {
  it("upper-cases the type and writes a numeric length as text", () => {
    expect(columnDefinitionSchema.parse({ type: "varchar", length: 10 })).toEqual({ type: "VARCHAR", length: "10" });
  });

  it("refuses an unknown type at type, listing the types, and a bad length at length", () => {
    expect(messages(columnDefinitionSchema.safeParse({ type: "VARCHAR2" }))).toEqual([
      ["type", `the backend refuses it: ${snowflakeDefinitionProblem({ type: "VARCHAR2" })}. Use one of ${SNOWFLAKE_TYPES.join(", ")}.`],
    ]);
    expect(messages(columnDefinitionSchema.safeParse({ type: "NUMBER", length: "39,0" }))).toEqual([
      ["length", `the backend refuses it: ${snowflakeDefinitionProblem({ type: "NUMBER", length: "39,0" })}. Fix the length.`],
    ]);
  });

  it("stores a key column as not nullable, another as declared or nullable", () => {
    expect(storedDefinition("id", { type: "INT", nullable: true }, true)).toMatchObject({ type: "NUMBER", nullable: false });
    expect(storedDefinition("note", { type: "VARCHAR", nullable: false }, false)).toMatchObject({ type: "VARCHAR", nullable: false });
    expect(storedDefinition("note", { type: "VARCHAR" }, false)).toMatchObject({ type: "VARCHAR", nullable: true });
  });
});

describe("a table's data as the diff shows it", () => {
  it("says how a header differs from the declared columns", () => {
    expect(headerMismatch(["a", "b"], ["a", "b"])).toBeUndefined();
    expect(headerMismatch(["a"], ["a", "b"])).toBe("line 1: the header [a] differs from the declared columns [a, b]: make them equal, in order");
    expect(headerMismatch(["a", "b", "c"], ["a", "b"])).toContain("the header [a, b, c]");
  });

  it("writes sizes with one decimal under 10 of a unit, whole above, up to TB", () => {
    expect([0, 1023, 1024, 10 * 1024 - 52, 10 * 1024, 1024 ** 2, 5.5 * 1024 ** 3, 2048 * 1024 ** 4].map(formatBytes)).toEqual([
      "0 B",
      "1023 B",
      "1.0 KB",
      "9.9 KB",
      "10 KB",
      "1.0 MB",
      "5.5 GB",
      "2048 TB",
    ]);
    expect(contentSummary(2048, "ab")).toBe("2.0 KB, sha256 ab");
  });
});
