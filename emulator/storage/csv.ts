// RFC 4180 CSV: parsing of imported files (any single-character delimiter and enclosure,
// CRLF or LF line ends, a UTF-8 BOM ignored) and formatting of exports and previews (every
// value enclosed in double quotes, embedded quotes doubled, LF line ends, as the Storage API
// answers data-preview).

export class CsvError extends Error {}

export function parseCsv(text: string, delimiter = ",", enclosure = '"'): string[][] {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false; // inside an enclosed field
  let wasQuoted = false; // the current field started with the enclosure
  let i = 0;
  const n = text.length;
  const endField = (): void => {
    row.push(field);
    field = "";
    wasQuoted = false;
  };
  const endRow = (): void => {
    endField();
    rows.push(row);
    row = [];
  };
  while (i < n) {
    const ch = text[i];
    if (quoted) {
      if (enclosure && ch === enclosure) {
        if (text[i + 1] === enclosure) {
          field += enclosure;
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        const next = text[i];
        if (i < n && next !== delimiter && next !== "\n" && next !== "\r") {
          throw new CsvError(`Invalid CSV: unexpected character after the closing enclosure on line ${rows.length + 1}.`);
        }
        continue;
      }
      field += ch;
      i++;
      continue;
    }
    if (enclosure && ch === enclosure && field === "" && !wasQuoted) {
      quoted = true;
      wasQuoted = true;
      i++;
      continue;
    }
    if (ch === delimiter) {
      endField();
      i++;
      continue;
    }
    if (ch === "\r" || ch === "\n") {
      endRow();
      i += ch === "\r" && text[i + 1] === "\n" ? 2 : 1;
      continue;
    }
    field += ch;
    i++;
  }
  if (quoted) throw new CsvError(`Invalid CSV: unterminated enclosure on line ${rows.length + 1}.`);
  if (field !== "" || wasQuoted || row.length > 0) endRow();
  return rows;
}

export function csvValue(v: string): string {
  return `"${v.replace(/"/g, '""')}"`;
}

export function formatCsv(rows: string[][]): string {
  return rows.map((r) => r.map(csvValue).join(",")).join("\n") + (rows.length ? "\n" : "");
}
