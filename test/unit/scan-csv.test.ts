import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CsvProblem, scanCsv } from "../../provider/validation/storage";

// scanCsv reads a Table's data file at preview: size, sha256, rows, header, and RFC 4180 problems
// with their line numbers (its plain and quoted runs are skipped by fast paths: these pin them).

const dir = mkdtempSync(join(tmpdir(), "scan-csv-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const scan = (text: string) => {
  const file = join(dir, `f${n++}.csv`);
  writeFileSync(file, text);
  return scanCsv(file);
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
    expect(s).toEqual({ bytes: Buffer.byteLength(text), sha256: createHash("sha256").update(text).digest("hex"), rows: 3, header: ["id", "na,me", "note"] });
    expect((await scan("a,b\n1,2")).rows).toBe(1);
  });

  it("names the line of a record with a wrong field count, counting line breaks inside quoted fields", async () => {
    expect(await problem('a,b\n1,"x\ny\nz"\n2,3,4\n')).toBe("line 5: 3 fields, but the header has 2");
    expect(await problem("a,b\n1,2\n3\n")).toBe("line 3: 1 fields, but the header has 2");
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
});
