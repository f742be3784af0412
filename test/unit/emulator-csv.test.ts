import { describe, expect, it } from "vitest";
import { CsvError, CsvParser, parseCsv } from "../../emulator/storage/csv";

// The emulator's incremental CSV parser gives the same records whatever the chunk boundaries.

const sample = 'id,name,note\r\n1,"Smith, John","says ""hi"""\r\n2,Jane,"multi\nline"\n3,,""\n"4",x,y';

function byChunks(text: string, size: number): string[][] {
  const p = new CsvParser();
  const rows: string[][] = [];
  for (let i = 0; i < text.length; i += size) rows.push(...p.push(text.slice(i, i + size)));
  rows.push(...p.end());
  return rows;
}

describe("CsvParser", () => {
  it("parses RFC 4180 the same in one piece and in chunks of every size", () => {
    const whole = parseCsv(sample);
    expect(whole).toEqual([
      ["id", "name", "note"],
      ["1", "Smith, John", 'says "hi"'],
      ["2", "Jane", "multi\nline"],
      ["3", "", ""],
      ["4", "x", "y"],
    ]);
    for (let size = 1; size <= sample.length; size++) expect(byChunks(sample, size)).toEqual(whole);
  });

  it("refuses an unterminated enclosure and a character after a closing one, with the line", () => {
    expect(() => byChunks('a\n"open', 2)).toThrow(new CsvError("Invalid CSV: unterminated enclosure on line 2."));
    expect(() => byChunks('a\n"x"y\n', 1)).toThrow("unexpected character after the closing enclosure on line 2");
  });
});
