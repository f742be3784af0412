import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { contentSummary, CsvProblem, csvRecord, dataRanges, formatBytes, headerMismatch, inlineCsv, scanCsv } from "../../provider/validation/storage";

// scanCsv reads a Table's data file at preview: size, sha256, rows, header, and RFC 4180 problems
// with their line numbers (its plain and quoted runs are skipped by fast paths: these pin them).

const dir = mkdtempSync(join(tmpdir(), "scan-csv-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const scan = (text: string, sliceBytes = 0) => {
  const file = join(dir, `f${n++}.csv`);
  writeFileSync(file, text);
  return scanCsv(file, sliceBytes);
};
const problem = async (text: string) => {
  const err = await scan(text).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(CsvProblem);
  return (err as CsvProblem).message;
};

describe("scanCsv", () => {
  it("counts rows of plain, quoted and multi-line fields, CRLF or LF, and hashes the bytes", async () => {
    const text = 'id,"na,me",note\r\n1,a,plain\r\n2,"b ""x""","two\nlines"\n3,,""\n\n';
    const s = await scan(text);
    expect(s).toEqual({ bytes: Buffer.byteLength(text), sha256: createHash("sha256").update(text).digest("hex"), rows: 3, header: ["id", "na,me", "note"], dataStart: 17, cuts: [] });
    expect((await scan("a,b\n1,2")).rows).toBe(1);
  });

  it("names the line of a record with a wrong field count, counting line breaks inside quoted fields", async () => {
    expect(await problem('a,b\n1,"x\ny\nz"\n2,3,4\n')).toBe("line 5: 3 fields, but the header has 2");
    expect(await problem("a,b\n1,2\n3\n")).toBe("line 3: 1 fields, but the header has 2");
  });

  it("checks and counts a last record without a line break at the end of the file, a one-field one too", async () => {
    expect((await scan("a\nx")).rows).toBe(1);
    expect((await scan("a,b\n1,2\n3,4")).rows).toBe(2);
    expect(await problem("a,b\n1,2\n3")).toBe("line 3: 1 fields, but the header has 2");
  });

  it("refuses a quote inside an unquoted field, text after a closing quote and an unclosed quote", async () => {
    expect(await problem('a,b\n1,2\n3,ab"c\n')).toMatch(/^line 3: a double quote inside an unquoted field/);
    expect(await problem('a,b\n1,"x"y\n')).toMatch(/^line 2: text after a closing double quote/);
    expect(await problem('a,b\n1,2\n3,"never closed\n')).toMatch(/^line 3: a quoted field is never closed/);
    expect(await problem("")).toMatch(/^line 1: the file is empty/);
  });

  it("keeps its state across the reads of a file larger than one chunk", async () => {
    const row = `1,${"x".repeat(5000)},"${"q\n".repeat(1000)}"\n`;
    const text = `a,b,c\n${row.repeat(400)}`;
    const s = await scan(text);
    expect(s.rows).toBe(400);
    expect(await problem(`${text}1,2\n`)).toBe(`line ${2 + 400 * 1001}: 2 fields, but the header has 3`);
  });

  it("finds the cuts of a sliced upload on the same pass: record boundaries, never inside a quoted line break", async () => {
    // Records of 12, 11, 11, 12 and 12 bytes; the second and third hold a line break inside quotes.
    const records = ["1,aaaaaaaaa\n", '2,"aa\naaa"\n', '3,"a\naaaa"\n', "4,aaaaaaaaa\n", "5,aaaaaaaaa\n"];
    const text = `k,v\n${records.join("")}`;
    const s = await scan(text, 15);
    expect(s.dataStart).toBe(4);
    // Record 2's quoted line break (byte 22) is 18 bytes in, past 15, but no record ends there:
    // the cut is at record 2's end (27); then 23 bytes later at record 4's end (50).
    expect(s.cuts).toEqual([27, 50]);
    const slices = dataRanges(s).map(([a, b]) => text.slice(a, b));
    expect(slices).toEqual([records.slice(0, 2).join(""), records.slice(2, 4).join(""), records[4]]);
    expect(slices.join("")).toBe(text.slice(4));
  });

  it("cuts a CRLF file after the LF, and a file with no data has no ranges", async () => {
    const text = "k\r\n1\r\n2\r\n3\r\n";
    const s = await scan(text, 4);
    expect(s.dataStart).toBe(3);
    expect(dataRanges(s).map(([a, b]) => text.slice(a, b))).toEqual(["1\r\n2\r\n", "3\r\n"]);
    expect(dataRanges(await scan("k,v\n", 1))).toEqual([]);
  });

  it("ends records at a CR alone (old Mac line ends): the cut after the CR", async () => {
    const text = "k\r1\r2\r3\r";
    const s = await scan(text, 4);
    expect([s.rows, s.header, s.dataStart]).toEqual([3, ["k"], 2]);
    expect(dataRanges(s).map(([a, b]) => text.slice(a, b))).toEqual(["1\r2\r", "3\r"]);
    expect((await scan("k\r1\r2")).rows).toBe(2);
  });

  it("a single column: a line holding a value (even an empty quoted one) is a row, an empty line is none", async () => {
    expect((await scan("k\n1\n2\n")).rows).toBe(2);
    expect((await scan('k\n""\n\n3\n')).rows).toBe(2);
    // A quoted last field ends at a CRLF as at an LF.
    expect((await scan('k,v\r\n1,"x"\r\n2,"y"\r\n')).rows).toBe(2);
  });

  it("reads a header's quoted fields as written (a doubled quote, a line break) and counts the lines they span", async () => {
    const s = await scan('id,"say ""hi""","two\nlines"\n1,2,3\n');
    expect([s.header, s.rows]).toEqual([["id", 'say "hi"', "two\nlines"], 1]);
    expect(await problem('id,"a long\nname",x\n1,2,3\n1,2\n')).toBe("line 4: 2 fields, but the header has 3");
  });
});

describe("a table's CSV: its header against the columns, inline rows, the content summary", () => {
  it("takes a header equal to the declared columns, in order, and refuses one that lacks the last columns, has more, or reorders them", () => {
    expect(headerMismatch(["code", "name"], ["code", "name"])).toBeUndefined();
    const fix = "make them equal, in order";
    expect(headerMismatch(["code"], ["code", "name"])).toBe(`line 1: the header [code] differs from the declared columns [code, name]: ${fix}`);
    expect(headerMismatch(["code", "name", "x"], ["code", "name"])).toBe(`line 1: the header [code, name, x] differs from the declared columns [code, name]: ${fix}`);
    expect(headerMismatch(["name", "code"], ["code", "name"])).toBe(`line 1: the header [name, code] differs from the declared columns [code, name]: ${fix}`);
    expect(headerMismatch([], ["code"])).toBeDefined();
  });

  it("writes inline rows as RFC 4180 CSV: a field with a comma, quote, line break or nothing is quoted, a quote doubled", () => {
    expect(csvRecord(["a", "b,c", 'q"x', "", "two\nlines", "cr\r"])).toBe('a,"b,c","q""x","","two\nlines","cr\r"\n');
    expect(inlineCsv(["code", "name"], [["CZ", "Czechia"], ["DE", "Germany, Federal Republic"]])).toBe('code,name\nCZ,Czechia\nDE,"Germany, Federal Republic"\n');
    expect(inlineCsv(["code"], [])).toBe("code\n");
  });

  it("summarises declared data as state and the diff show it: size in B, KB, MB, GB, TB, and the sha256", () => {
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(1023)).toBe("1023 B");
    expect(formatBytes(1024)).toBe("1.0 KB");
    expect(formatBytes(1536)).toBe("1.5 KB");
    expect(formatBytes(10 * 1024)).toBe("10 KB");
    expect(formatBytes(1024 * 1024)).toBe("1.0 MB");
    expect(formatBytes(3_250_586)).toBe("3.1 MB");
    expect(formatBytes(5 * 1024 ** 3)).toBe("5.0 GB");
    expect(formatBytes(2048 * 1024 ** 4)).toBe("2048 TB");
    expect(contentSummary(32, "ab".repeat(32))).toBe(`32 B, sha256 ${"ab".repeat(32)}`);
  });
});
