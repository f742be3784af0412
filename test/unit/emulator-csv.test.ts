import { describe, expect, it } from "vitest";
import { CsvError, CsvParser, formatCsv, parseCsv } from "../../emulator/storage/csv";

// The emulator's incremental CSV parser gives the same records whatever the chunk boundaries.

const sample = 'id,name,note\r\n1,"Smith, John","says ""hi"""\r\n2,Jane,"multi\nline"\n3,,""\n"4",x,y';

function byChunks(text: string, size: number): string[][] {
  const p = new CsvParser();
  const rows: string[][] = [];
  for (let i = 0; i < text.length; i += size) rows.push(...p.push(text.slice(i, i + size)));
  rows.push(...p.end());
  return rows;
}

/** Parses the given chunks as they are (empty ones included). */
function chunks(...parts: string[]): string[][] {
  const p = new CsvParser();
  const rows = parts.flatMap((part) => p.push(part));
  return [...rows, ...p.end()];
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

  it("takes a lone CR as a line end, in one piece and across chunks", () => {
    const text = "a\rb\r\nc\rd";
    expect(parseCsv(text)).toEqual([["a"], ["b"], ["c"], ["d"]]);
    for (let size = 1; size <= text.length; size++) expect(byChunks(text, size)).toEqual([["a"], ["b"], ["c"], ["d"]]);
  });

  it("ignores a UTF-8 byte order mark at the start only", () => {
    expect(parseCsv("\ufeffid,name\n1,\ufeffx\n")).toEqual([["id", "name"], ["1", "\ufeffx"]]);
  });

  it("ends a record on a closing enclosure at the end of the input, and keeps an empty enclosed field", () => {
    expect(parseCsv('a,"b"')).toEqual([["a", "b"]]);
    expect(parseCsv('""')).toEqual([[""]]);
    expect(parseCsv("")).toEqual([]);
  });

  it("keeps a doubled enclosure split by an empty chunk", () => {
    expect(chunks('"a"', "", '"b"')).toEqual([['a"b']]);
    expect(chunks('"a"', "", ",c")).toEqual([["a", "c"]]);
  });

  it("reads an enclosure inside an unenclosed field as a character", () => {
    expect(parseCsv('a"b,c\n')).toEqual([['a"b', "c"]]);
    // Also when the field's first characters came in the previous chunk.
    expect(chunks("a", '"b,c\n')).toEqual([['a"b', "c"]]);
  });

  it("formats values enclosed, quotes doubled, one LF per record, nothing for no records", () => {
    expect(formatCsv([["a", 'say "hi"'], ["", "x\ny"]])).toBe('"a","say ""hi"""\n"","x\ny"\n');
    expect(formatCsv([])).toBe("");
  });
});
