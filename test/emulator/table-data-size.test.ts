import { describe, expect, it } from "vitest";
import { tableDataBytes } from "../../emulator/storage/tables";
import type { TableRecord } from "../../emulator/storage/state";

// dataSizeBytes is computed once per rows array and length, so it must follow every change of the
// rows: a load that replaces the array, rows pushed to it, and rows counted without being kept.

const table = (rows: string[][], unkeptBytes?: number) => ({ rows, ...(unkeptBytes !== undefined ? { unkeptBytes } : {}) }) as Pick<TableRecord, "rows" | "unkeptBytes"> as TableRecord;

describe("tableDataBytes", () => {
  it("counts each value's UTF-8 bytes and a separator, and follows pushes, replacements and unkept rows", () => {
    const t = table([["CZ", "Česko"]]);
    expect(tableDataBytes(t)).toBe(3 + 7);
    t.rows.push(["DE", "Germany"]);
    expect(tableDataBytes(t)).toBe(3 + 7 + 3 + 8);
    t.rows = [["A", ""]];
    expect(tableDataBytes(t)).toBe(2 + 1);
    t.unkeptBytes = 100;
    expect(tableDataBytes(t)).toBe(103);
  });
});
