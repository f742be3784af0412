// RFC 4180 CSV: parsing of imported files (any single-character delimiter and enclosure,
// CRLF or LF line ends, a UTF-8 BOM ignored) and formatting of exports and previews (every
// value enclosed in double quotes, embedded quotes doubled, LF line ends, as the Storage API
// answers data-preview).

export class CsvError extends Error {}

/**
 * An incremental RFC 4180 parser: text goes in by chunks of any size (a quoted field, a doubled
 * enclosure or a CRLF may straddle two chunks), complete records come out, so a file far larger
 * than one JavaScript string can be loaded.
 */
export class CsvParser {
  private row: string[] = [];
  private field = "";
  private quoted = false; // inside an enclosed field
  private wasQuoted = false; // the current field started with the enclosure
  private pendingEnclosure = false; // an enclosure inside a quoted field ended the last chunk
  private pendingCr = false; // a CR ended the last chunk (a LF may follow)
  private rows = 0; // records ended so far (for line numbers)
  private started = false;

  constructor(
    private readonly delimiter = ",",
    private readonly enclosure = '"',
  ) {}

  /** Parses a chunk; answers the records it completed. */
  push(chunk: string): string[][] {
    const out: string[][] = [];
    let text = chunk;
    if (!this.started && text.length) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const { delimiter, enclosure } = this;
    let i = 0;
    const n = text.length;
    if (this.pendingCr) {
      this.pendingCr = false;
      if (text[0] === "\n") i = 1;
    }
    if (this.pendingEnclosure && n > 0) {
      this.pendingEnclosure = false;
      if (text[0] === enclosure) {
        this.field += enclosure;
        i = 1;
      } else this.closeQuote(text[0]);
    }
    while (i < n) {
      const ch = text[i];
      if (this.quoted) {
        if (enclosure && ch === enclosure) {
          if (i + 1 === n) {
            this.pendingEnclosure = true;
            return out;
          }
          if (text[i + 1] === enclosure) {
            this.field += enclosure;
            i += 2;
            continue;
          }
          i++;
          this.closeQuote(text[i]);
          continue;
        }
        // Copy the run of plain characters at once (a quoted field has an enclosure).
        let j = text.indexOf(enclosure, i);
        if (j === -1) j = n;
        this.field += text.slice(i, j);
        i = j;
        continue;
      }
      if (enclosure && ch === enclosure && this.field === "" && !this.wasQuoted) {
        this.quoted = true;
        this.wasQuoted = true;
        i++;
        continue;
      }
      if (ch === delimiter) {
        this.endField();
        i++;
        continue;
      }
      if (ch === "\r" || ch === "\n") {
        out.push(this.endRow());
        if (ch === "\r") {
          if (i + 1 === n) {
            this.pendingCr = true;
            return out;
          }
          if (text[i + 1] === "\n") i++;
        }
        i++;
        continue;
      }
      // Copy the run of plain characters up to the next delimiter or line end at once.
      let j = i + 1;
      while (j < n) {
        const c = text[j];
        if (c === delimiter || c === "\r" || c === "\n") break;
        j++;
      }
      this.field += text.slice(i, j);
      i = j;
    }
    return out;
  }

  /** Ends the input; answers the last record, if any. */
  end(): string[][] {
    if (this.pendingEnclosure) {
      this.pendingEnclosure = false;
      this.quoted = false;
    }
    if (this.quoted) throw new CsvError(`Invalid CSV: unterminated enclosure on line ${this.rows + 1}.`);
    if (this.field !== "" || this.wasQuoted || this.row.length > 0) return [this.endRow()];
    return [];
  }

  /** After a closing enclosure: the next character (there is one) must end the field. */
  private closeQuote(next: string): void {
    this.quoted = false;
    if (next !== this.delimiter && next !== "\n" && next !== "\r") {
      throw new CsvError(`Invalid CSV: unexpected character after the closing enclosure on line ${this.rows + 1}.`);
    }
  }

  private endField(): void {
    this.row.push(this.field);
    this.field = "";
    this.wasQuoted = false;
  }

  private endRow(): string[] {
    this.endField();
    const row = this.row;
    this.row = [];
    this.rows++;
    return row;
  }
}

export function parseCsv(text: string, delimiter = ",", enclosure = '"'): string[][] {
  const parser = new CsvParser(delimiter, enclosure);
  const rows = parser.push(text);
  for (const r of parser.end()) rows.push(r);
  return rows;
}

export function csvValue(v: string): string {
  return `"${v.replace(/"/g, '""')}"`;
}

export function formatCsv(rows: string[][]): string {
  return rows.map((r) => r.map(csvValue).join(",")).join("\n") + (rows.length ? "\n" : "");
}
