// A transformation code's scripts as one text and back, as kbc keeps a code in a file
// (keboola/keboola-as-code internal/pkg/model/transformation.go: ScriptsFromStr when it reads
// the file, Scripts.String when it writes it; mapper/transformation local_load.go and
// local_save.go, and mapper/sharedcode/codes for a shared code row's `code_content`).
//
// kbc splits into SQL statements for three components only, by id; every other component's code
// (Python, R, and the other SQL backends too: Redshift, BigQuery, ...) is the whole text as one
// script. Both directions trim trailing white space, so a file's final newline is not code.

import { joinSql, splitSqlAt, type SqlSplit } from "./sql";

/** The components whose code kbc splits into SQL statements (model/transformation.go). */
export const SQL_SPLIT_COMPONENTS: readonly string[] = ["keboola.snowflake-transformation", "keboola.synapse-transformation", "keboola.oracle-transformation"];

/** Whether kbc splits this component's code into statements. */
export function splitsIntoStatements(componentId: string): boolean {
  return SQL_SPLIT_COMPONENTS.includes(componentId);
}

/** kbc's NormalizeScript: trailing newlines, carriage returns, tabs and spaces removed. */
function trimEnd(text: string): string {
  let end = text.length;
  while (end > 0 && "\n\r\t ".includes(text[end - 1])) end--;
  return text.slice(0, end);
}

/**
 * The scripts kbc reads from a code file of `componentId` (ScriptsFromStr), each with where it
 * starts in `text`, and the code a SQL split drops (an unclosed quote; see sql.ts).
 */
export function scriptsOfCode(text: string, componentId: string): SqlSplit {
  const code = trimEnd(text);
  if (splitsIntoStatements(componentId)) return splitSqlAt(code);
  return { statements: [{ text: code, start: 0 }], dropped: [] };
}

/** The text kbc writes into a code file of `componentId` for its scripts (Scripts.String). */
export function codeOfScripts(scripts: readonly string[], componentId: string): string {
  const items = scripts.map(trimEnd);
  return (splitsIntoStatements(componentId) ? joinSql(items) : items.join("\n")) + "\n";
}
