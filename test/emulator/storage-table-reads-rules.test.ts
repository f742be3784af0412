import { describe, expect, it } from "vitest";
import { StorageHttpError } from "../../emulator/storage/errors";
import type { TableRecord } from "../../emulator/storage/state";
import { compareText, rowSelection, selectRows, tryCast } from "../../emulator/storage/table-reads";

// The read rules of emulator/storage/table-reads.ts called directly, over one small table: each
// comparison operator at its boundary, NULLs (values that do not cast), multi-key sorts, the
// parameters' shapes. Semantics as the file cites them (keboola/storage-api-php-client
// apiary.apib "Unload Data Asynchronously", its Snowflake tests WhereFilterTest and OrderByTest;
// Snowflake's collation and try_to_number); test/emulator/storage-table-reads.test.ts runs the
// same rules through the API as keboola-sdk-go sends them. The direct tests of the casts and the
// collation live here only.

const table: TableRecord = {
  id: "in.c-b.t",
  branchId: 101,
  bucketId: "in.c-b",
  name: "t",
  columns: ["id", "n", "s"],
  primaryKey: [],
  rows: [
    ["1", "10", "b"],
    ["2", "20", "a"],
    ["3", "x", "a"],
    ["4", "20", "c"],
    ["5", "y", "b"],
  ],
  created: "",
  lastImportDate: null,
  lastChangeDate: null,
};
const ids = (q: Record<string, unknown>, limit: number | null = null): string[] => selectRows(table, rowSelection(table, q), limit).map((r) => r[0]);
const where = (operator: string, values: string[], dataType?: string) => ({ whereFilters: [{ column: "n", operator, values, ...(dataType ? { dataType } : {}) }] });
const refusal = (q: Record<string, unknown>): { status: number; code: string | undefined; message: string } => {
  try {
    rowSelection(table, q);
  } catch (e) {
    expect(e).toBeInstanceOf(StorageHttpError);
    const err = e as StorageHttpError;
    return { status: err.status, code: err.code, message: err.message };
  }
  throw new Error("the selection was accepted");
};

describe("where filters", () => {
  it("compares as INTEGER at each operator's boundary; a value that does not cast matches nothing", () => {
    expect(ids(where("eq", ["20"], "INTEGER"))).toEqual(["2", "4"]);
    expect(ids(where("ne", ["20"], "INTEGER"))).toEqual(["1"]);
    expect(ids(where("gt", ["10"], "INTEGER"))).toEqual(["2", "4"]);
    expect(ids(where("ge", ["20"], "INTEGER"))).toEqual(["2", "4"]);
    expect(ids(where("lt", ["20"], "INTEGER"))).toEqual(["1"]);
    expect(ids(where("le", ["10"], "INTEGER"))).toEqual(["1"]);
    expect(ids(where("le", ["20"], "INTEGER"))).toEqual(["1", "2", "4"]);
  });

  it("with several values: eq is any of them, the others hold for all of them", () => {
    expect(ids(where("eq", ["10", "20"], "INTEGER"))).toEqual(["1", "2", "4"]);
    expect(ids(where("ne", ["10", "20"], "INTEGER"))).toEqual([]);
    expect(ids(where("gt", ["5", "15"], "INTEGER"))).toEqual(["2", "4"]);
    expect(ids(where("lt", ["25", "15"], "INTEGER"))).toEqual(["1"]);
  });

  it("compares texts without a data type (the value x too)", () => {
    expect(ids(where("gt", ["20"]))).toEqual(["3", "5"]);
    expect(ids(where("eq", ["x"]))).toEqual(["3"]);
  });

  it("reads the deprecated whereColumn/whereOperator/whereValues as one filter (eq by default)", () => {
    expect(ids({ whereColumn: "s", whereValues: ["a"] })).toEqual(["2", "3"]);
    expect(ids({ whereColumn: "s", whereOperator: "ne", whereValues: ["a"] })).toEqual(["1", "4", "5"]);
    expect(ids({ whereColumn: "s", whereValues: ["a"], whereFilters: [{ column: "id", values: ["1"] }] })).toEqual(["1"]);
  });

  it("takes no filters from an empty parameter, and a map of filters as a list", () => {
    for (const whereFilters of [null, ""]) expect(ids({ whereFilters })).toEqual(["1", "2", "3", "4", "5"]);
    expect(ids({ whereFilters: { a: { column: "s", values: ["c"] } } })).toEqual(["4"]);
  });

  it("refuses an unknown operator, column or data type, and filters that are not a list of objects", () => {
    expect(refusal({ whereFilters: [{ column: "n", operator: "like", values: ["1"] }] })).toEqual({ status: 400, code: "storage.tables.validation", message: "Invalid where operator like" });
    expect(refusal({ whereFilters: [{ column: "gone", values: ["1"] }] })).toEqual({
      status: 400,
      code: "storage.tables.nonExistingColumns",
      message: 'Columns gone not found in the table "in.c-b.t".',
    });
    expect(refusal({ whereFilters: [{ column: "n", values: ["1"], dataType: "TEXT" }] }).message).toBe("Data type TEXT not recognized. Possible datatypes are [INTEGER|DOUBLE]");
    expect(refusal({ whereFilters: "n" }).message).toBe('Parameter "whereFilters" should be an array, but parameter contains:\n"n"');
    expect(refusal({ whereFilters: ["n"] }).message).toBe('All items in param "whereFilters" should be an arrays, but parameter contains:\n["n"]');
  });
});

describe("order and columns", () => {
  it("sorts by several keys (a stable sort), NULLs last ascending and first descending", () => {
    expect(ids({ orderBy: [{ column: "s" }, { column: "id", order: "desc" }] })).toEqual(["3", "2", "5", "1", "4"]);
    // Rows 3 and 5 do not cast (NULL): they tie, and keep the table's order.
    expect(ids({ orderBy: [{ column: "n", dataType: "INTEGER" }] })).toEqual(["1", "2", "4", "3", "5"]);
    expect(ids({ orderBy: [{ column: "n", order: "DESC", dataType: "INTEGER" }] })).toEqual(["3", "5", "2", "4", "1"]);
    // Two NULLs tie on the first key, so the next key decides.
    expect(ids({ orderBy: [{ column: "n", dataType: "INTEGER" }, { column: "id", order: "DESC" }] })).toEqual(["1", "4", "2", "5", "3"]);
    expect(ids({ orderBy: [{ column: "s", dataType: "" }] })).toEqual(["2", "3", "1", "5", "4"]);
  });

  it("refuses an unknown sort column or order", () => {
    expect(refusal({ orderBy: [{ column: "gone" }] }).message).toBe("Can't filter by column gone, column does not exist");
    expect(refusal({ orderBy: [{ column: "s", order: "up" }] }).message).toBe("Invalid sort order up. Available orders are [DESC|ASC]");
  });

  it("projects the columns asked for, refuses unknown ones, and stops at the limit", () => {
    expect(selectRows(table, rowSelection(table, { columns: ["s", "id"] }), 2)).toEqual([
      ["b", "1"],
      ["a", "2"],
    ]);
    expect(refusal({ columns: ["id", "gone", "lost"] })).toEqual({
      status: 400,
      code: "storage.tables.nonExistingColumns",
      message: 'Columns gone, lost not found in the table "in.c-b.t".',
    });
    expect(ids({}, 0)).toEqual([]);
  });
});

describe("Snowflake's casts and collation", () => {
  it("casts as Snowflake's try_to_double / try_to_number do: a text that is no number is NULL", () => {
    expect(tryCast("003.123", "DOUBLE")).toBe(3.123);
    expect(tryCast("4.5", "INTEGER")).toBe(5);
    expect(tryCast("-4.5", "INTEGER")).toBe(-5);
    expect(tryCast("abc", "DOUBLE")).toBeNull();
    expect(tryCast("", "INTEGER")).toBeNull();
  });

  it("orders texts by code point, as Snowflake's default collation", () => {
    // U+1F600 (a surrogate pair in UTF-16) is above U+FF21; JavaScript's `<` says otherwise.
    expect("\u{1F600}" < "\uFF21").toBe(true);
    expect(compareText("\u{1F600}", "\uFF21")).toBeGreaterThan(0);
    expect(compareText("B", "a")).toBeLessThan(0);
    expect(compareText("ab", "a")).toBeGreaterThan(0);
  });

  it("casts number texts, with spaces, signs, exponents and a lone dot's digits", () => {
    for (const [text, n] of [[" 1 ", 1], ["+2", 2], ["-.5", -0.5], ["-.55", -0.55], ["1.", 1], ["1e2", 100], ["1E+2", 100], ["1e-2", 0.01]] as const) {
      expect(tryCast(text, "DOUBLE")).toBe(n);
    }
    for (const text of ["x1", "1x", ".", "e2", "1e", "1e+", "--1", ".e1", "1 2"]) expect(tryCast(text, "DOUBLE")).toBeNull();
  });

  it("orders by code points: U+D7FF < U+E000 < U+E001 < U+FFFF < U+10000", () => {
    const order = ["\uD7FF", "\uE000", "\uE001", "\uFFFF", "\u{10000}"];
    for (let i = 0; i + 1 < order.length; i++) {
      expect(compareText(order[i], order[i + 1])).toBeLessThan(0);
      expect(compareText(order[i + 1], order[i])).toBeGreaterThan(0);
    }
    // A common start decides nothing: the first character that differs does, else the length.
    expect(compareText("xa\uE000", "xa\u{10000}")).toBeLessThan(0);
    expect(compareText("xa", "xab")).toBeLessThan(0);
  });
});
