import { statSync } from "node:fs";
import { open } from "node:fs/promises";
import { createHash } from "node:crypto";
import { z } from "zod";
import { isOneOf } from "../../keboola/json";
import { bucketDisplayNameProblem, bucketIdOf, bucketNameProblem, columnNameProblem, snowflakeBaseType, snowflakeDefinitionProblem, snowflakeStoredDefinition, tableNameProblem, SNOWFLAKE_TYPES } from "../../keboola/storage";

// Buckets and tables as inputs: names and stages as the Storage API validates them (the rules and
// their messages are keboola/storage.ts's, shared with the emulator), columns, primary keys, typed
// definitions, and the CSV a table's data comes from (RFC 4180, header equal to the declared
// columns), read as a stream so a large file is never held in memory.

export { bucketIdOf };

export const stageSchema = z.enum(["in", "out"], { message: 'must be "in" or "out"' }).describe('Stage: "in" (input data) or "out" (output data).');

/** A refinement answering the service's own message for a value it refuses, with the fix. */
const rule = (problem: (v: string) => string | undefined, fix: string) => (v: string, ctx: z.RefinementCtx) => {
  const p = problem(v);
  if (p) ctx.addIssue({ code: "custom", message: `the service refuses it: ${p} ${fix}` });
};

export const bucketNameSchema = z
  .string()
  .superRefine(rule(bucketNameProblem, "Rename it."))
  .refine((n) => !n.startsWith("c-"), { message: 'must not start with "c-": the service adds it (name "ref" makes the bucket "in.c-ref"); drop the prefix' });

export const bucketDisplayNameSchema = z
  .string()
  .min(1, "must not be empty: omit it to show the name")
  .max(96)
  .superRefine(rule(bucketDisplayNameProblem, 'Use letters, digits, "-" and "_" only (e.g. "App-events"), or omit it.'));

export const tableNameSchema = z.string().superRefine(rule(tableNameProblem, "Rename it."));

export const columnNameSchema = z.string().superRefine(rule(columnNameProblem, "Rename it."));

/** Column names: unique (Storage compares them case-insensitively), at least one. */
export const tableColumnsSchema = z
  .array(columnNameSchema)
  .min(1, "needs at least one column")
  .superRefine((cols, ctx) => {
    const seen = new Map<string, number>();
    cols.forEach((c, i) => {
      const first = seen.get(c.toLowerCase());
      if (first !== undefined) ctx.addIssue({ code: "custom", path: [i], message: `"${c}" is already columns[${first}]: column names must be unique (case-insensitively)` });
      else seen.set(c.toLowerCase(), i);
    });
  });

/** The Storage base type of a native type (what `basetype` says beside a definition). */
export const baseTypeOf = snowflakeBaseType;

export const columnDefinitionSchema = z
  .object({
    type: z.string().describe("The native type, e.g. VARCHAR, INTEGER or NUMBER (upper-cased).").transform((t) => t.toUpperCase()),
    length: z.union([z.string(), z.number().transform(String)]).optional().describe('Length or precision, e.g. "255" for VARCHAR or "38,2" for NUMBER.'),
    nullable: z.boolean().optional().describe("Whether the column accepts NULL (default true; primary key columns are never nullable)."),
    default: z.string().optional().describe("The column's default value."),
  })
  .strict()
  .superRefine((d, ctx) => {
    const problem = snowflakeDefinitionProblem(d);
    if (!problem) return;
    const typeProblem = !isOneOf(SNOWFLAKE_TYPES, d.type);
    ctx.addIssue({
      code: "custom",
      path: [typeProblem ? "type" : "length"],
      message: `the backend refuses it: ${problem}. ${typeProblem ? `Use one of ${SNOWFLAKE_TYPES.join(", ")}.` : "Fix the length."}`,
    });
  });

export type TableColumnDefinition = z.output<typeof columnDefinitionSchema>;

/** What the backend stores for a declared definition (synonyms resolved, default lengths filled, a primary key column not nullable). */
export function storedDefinition(name: string, d: TableColumnDefinition, primaryKey: boolean): { type: string; nullable: boolean; length?: string; default?: string } {
  return snowflakeStoredDefinition(name, { ...d, nullable: primaryKey ? false : (d.nullable ?? true) }).definition;
}

// ---- CSV ----------------------------------------------------------------------------------------

/** What a scan finds (also what the scan cache keeps, scan-cache.ts: one schema for both). */
export const csvScanSchema = z.object({
  /** Bytes of the file as it is. */
  bytes: z.number(),
  sha256: z.string(),
  /** Data rows (the header excluded). */
  rows: z.number(),
  header: z.array(z.string()),
  /** Where the data begins: the byte after the header line's end. */
  dataStart: z.number(),
  /** Record boundaries about `sliceBytes` apart (the byte after a line end outside quotes), for a sliced upload. */
  cuts: z.array(z.number()),
});
export type CsvScan = z.infer<typeof csvScanSchema>;

export class CsvProblem extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

/**
 * Reads a CSV file once, as a stream: its size, sha256, header and row count, and whether it is
 * RFC 4180 (fields separated by commas, records by CRLF or LF, a field with a comma, quote or line
 * break enclosed in double quotes, a quote inside one doubled). Every record must have as many
 * fields as the header. Throws CsvProblem with the (1-based) line number. With `sliceBytes`,
 * also the record boundaries to cut the data at for a sliced upload, found on the same pass.
 * The file is read into one reused buffer: a 1 GB scan leaves no garbage behind.
 */
export async function scanCsv(path: string, sliceBytes = 0): Promise<CsvScan> {
  const hash = createHash("sha256");
  let bytes = 0;
  let dataStart = -1;
  let lastCut = 0;
  const cuts: number[] = [];
  // A record ended at byte `at` (the byte after its line end): the header's end, or maybe a cut.
  const lineEnd = (at: number) => {
    if (dataStart < 0) lastCut = dataStart = at;
    else if (sliceBytes > 0 && at - lastCut >= sliceBytes) cuts.push((lastCut = at));
  };
  let line = 1;
  let recordLine = 1;
  let field: number[] = [];
  /** The header's field texts (data fields are only counted, allocating nothing per field). */
  const record: string[] = [];
  let fields = 0;
  let header: string[] | undefined;
  let rows = 0;
  // States: start of field, in an unquoted field, in a quoted field, a quote seen in a quoted field.
  let state: "start" | "plain" | "quoted" | "quote" = "start";
  let pendingCR = false;
  const endField = () => {
    if (header === undefined) {
      record.push(Buffer.from(field).toString("utf8"));
      field = [];
    }
    fields++;
  };
  const endRecord = () => {
    if (header === undefined) header = [...record];
    else if (!(fields === 1 && lastEmpty)) {
      if (fields !== header.length) {
        throw new CsvProblem(`line ${recordLine}: ${fields} fields, but the header has ${header.length}`, recordLine);
      }
      rows++;
    }
    fields = 0;
    recordLine = line;
  };
  let lastEmpty = false;
  // A CR or LF `b` outside quotes ends the field and the record; `after` is the byte after it (a
  // CR's record ends there too, but a cut waits for the LF that may follow).
  const endLine = (b: number, after: number) => {
    endField();
    line++;
    endRecord();
    if (b === 0x0d) pendingCR = true;
    else lineEnd(after);
    state = "start";
  };
  const fh = await open(path, "r");
  const into = Buffer.allocUnsafeSlow(1024 * 1024);
  try {
    for (;;) {
      const base = bytes;
      const { bytesRead } = await fh.read(into, 0, into.length, base);
      if (bytesRead === 0) break;
      const buf = into.subarray(0, bytesRead);
      hash.update(buf);
      bytes += buf.length;
      for (let i = 0; i < buf.length; i++) {
        const b = buf[i];
        if (pendingCR) {
          pendingCR = false;
          if (b === 0x0a) {
            lineEnd(base + i + 1);
            continue; // CRLF: the record ended at the CR
          }
          lineEnd(base + i);
        }
        // Past the header, runs of plain bytes (the bulk of a large file) are skipped in a tight loop
        // and a quoted field's text by the native indexOf: the bench's 1 GB scan is bound by them.
        if (header !== undefined && (state === "start" || state === "plain") && b !== 0x2c && b !== 0x0a && b !== 0x0d && b !== 0x22) {
          let j = i + 1;
          for (; j < buf.length; j++) {
            const c = buf[j];
            if (c === 0x2c || c === 0x0a || c === 0x0d || c === 0x22) break;
          }
          state = "plain";
          i = j - 1;
          continue;
        }
        if (header !== undefined && state === "quoted" && b !== 0x22) {
          let j = buf.indexOf(0x22, i);
          if (j < 0) j = buf.length;
          for (let nl = buf.indexOf(0x0a, i); nl >= 0 && nl < j; nl = buf.indexOf(0x0a, nl + 1)) line++;
          i = j - 1;
          continue;
        }
        switch (state) {
          case "start":
          case "plain":
            if (b === 0x2c) {
              lastEmpty = false;
              endField();
              state = "start";
            } else if (b === 0x0a || b === 0x0d) {
              lastEmpty = state === "start" && fields === 0;
              endLine(b, base + i + 1);
            } else if (b === 0x22) {
              if (state === "plain") throw new CsvProblem(`line ${line}: a double quote inside an unquoted field (RFC 4180: enclose the field in double quotes and double the quote)`, line);
              state = "quoted";
            } else {
              if (header === undefined) field.push(b);
              state = "plain";
            }
            break;
          case "quoted":
            if (b === 0x22) state = "quote";
            else {
              if (b === 0x0a) line++;
              if (header === undefined) field.push(b);
            }
            break;
          case "quote":
            if (b === 0x22) {
              if (header === undefined) field.push(b);
              state = "quoted";
            } else if (b === 0x2c) {
              endField();
              state = "start";
            } else if (b === 0x0a || b === 0x0d) {
              lastEmpty = false;
              endLine(b, base + i + 1);
            } else {
              throw new CsvProblem(`line ${line}: text after a closing double quote (RFC 4180: a quote inside a quoted field is written twice)`, line);
            }
            break;
        }
      }
    }
  } finally {
    await fh.close();
  }
  if (state === "quoted") throw new CsvProblem(`line ${recordLine}: a quoted field is never closed (a double quote is missing)`, recordLine);
  if (state !== "start" || fields > 0) {
    lastEmpty = false;
    endField();
    endRecord();
  }
  if (header === undefined) throw new CsvProblem("line 1: the file is empty: it needs a header line with the column names", 1);
  return { bytes, sha256: hash.digest("hex"), rows, header, dataStart: dataStart < 0 ? bytes : dataStart, cuts };
}

/** The data's [start, end) byte ranges between a scan's cuts (the header excluded), empty ones dropped. */
export function dataRanges(scan: Pick<CsvScan, "bytes" | "dataStart" | "cuts">): Array<[number, number]> {
  const bounds = [scan.dataStart, ...scan.cuts, scan.bytes];
  const ranges: Array<[number, number]> = [];
  // Stryker disable next-line EqualityOperator,ArithmeticOperator: equivalent: a step past the last bound compares with undefined, which is never greater, so nothing more is pushed
  for (let k = 0; k + 1 < bounds.length; k++) if (bounds[k + 1] > bounds[k]) ranges.push([bounds[k], bounds[k + 1]]);
  return ranges;
}

/** Why a CSV header differs from the declared columns, or undefined. */
export function headerMismatch(header: readonly string[], columns: readonly string[]): string | undefined {
  if (header.length === columns.length && header.every((h, i) => h === columns[i])) return undefined;
  return `line 1: the header [${header.join(", ")}] differs from the declared columns [${columns.join(", ")}]: make them equal, in order`;
}

/** A CSV record as RFC 4180 writes it. */
export function csvRecord(values: readonly string[]): string {
  return values.map((v) => (/[",\r\n]/.test(v) || v === "" ? `"${v.replace(/"/g, '""')}"` : v)).join(",") + "\n";
}

/** Inline rows as the CSV the provider uploads (header first). */
export function inlineCsv(columns: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  return csvRecord(columns) + rows.map(csvRecord).join("");
}

/** `3.1 MB`, `120 B`. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[u]}`;
}

/** What state and the diff say about declared data: `3.1 MB, sha256 <hex>`. */
export function contentSummary(bytes: number, sha256: string): string {
  return `${formatBytes(bytes)}, sha256 ${sha256}`;
}

export function fileExists(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
