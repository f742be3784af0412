import type { JsonValue } from "../../keboola/json";
import { cell, code, showValue } from "./values";

// A sink's column mapping (its `columns` input) as a table a reviewer reads at a glance: each
// column's name, type and where its value comes from (path or template), with what changed marked.
// Column order matters (the table's columns must equal the mapping's names in order), so a column
// that keeps its name but moves is marked too.

interface Column {
  name: string;
  type: string;
  source: string;
}

const record = (v: JsonValue): Record<string, JsonValue> | undefined => (typeof v === "object" && v !== null && !Array.isArray(v) ? v : undefined);

/** What the columns without a path or template hold (docs/resources-guide.md, "Sink": the column types). */
const HOLDS: Readonly<Record<string, string>> = { uuid: "event id", datetime: "receive time", ip: "sender IP", body: "raw body", headers: "request headers" };

/** Where a column's value comes from, as one cell. */
function sourceOf(c: Record<string, JsonValue>): string {
  const parts: string[] = [];
  if (typeof c.type === "string" && HOLDS[c.type]) parts.push(`_${HOLDS[c.type]}_`);
  const template = record(c.template ?? null);
  if (typeof c.path === "string") parts.push(code(c.path));
  if (template && template.content !== undefined) {
    parts.push(code(typeof template.content === "string" ? template.content : showValue(template.content)));
    if (typeof template.language === "string" && template.language !== "jsonnet") parts.push(template.language);
  }
  if (c.defaultValue !== undefined) parts.push(`default ${code(showValue(c.defaultValue))}`);
  if (c.rawString === true) parts.push("raw string");
  if (c.primaryKey === true) parts.push("primary key");
  return parts.join(", ");
}

function columnsOf(value: JsonValue | undefined): Column[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: Column[] = [];
  for (const item of value) {
    const c = record(item);
    if (!c || typeof c.name !== "string") return undefined;
    out.push({ name: c.name, type: typeof c.type === "string" ? c.type : showValue(c.type ?? null), source: sourceOf(c) });
  }
  return out;
}

const HEAD = ["| | column | type | path / template |", "|---|---|---|---|"];
const row = (mark: string, c: Column) => `| ${mark} | ${cell(code(c.name))} | ${cell(c.type)} | ${cell(c.source)} |`;
const changed = (a: string, b: string) => (a === b ? a : `${a} → ${b}`);

/** The mapping as a table (a created sink's), or undefined when it is not a list of columns. */
export function columnsTable(value: JsonValue | undefined): string[] | undefined {
  const columns = columnsOf(value);
  return columns && ["| column | type | path / template |", "|---|---|---|", ...columns.map((c) => `| ${cell(code(c.name))} | ${cell(c.type)} | ${cell(c.source)} |`)];
}

/**
 * Before and after as one table, in the new order and the removed columns last: `+` added,
 * `−` removed, `~` changed (each changed cell `before → after`), `↕` moved; unmarked ones stay.
 * Undefined when either side is not a list of columns (a secret, a value not known yet).
 */
export function columnsDiffTable(before: JsonValue | undefined, after: JsonValue | undefined): string[] | undefined {
  const olds = columnsOf(before);
  const news = columnsOf(after);
  if (!olds || !news) return undefined;
  const oldByName = new Map(olds.map((c) => [c.name, c]));
  const newNames = new Set(news.map((c) => c.name));
  const keptOld = olds.filter((c) => newNames.has(c.name)).map((c) => c.name);
  const keptNew = news.filter((c) => oldByName.has(c.name)).map((c) => c.name);
  const lines = [...HEAD];
  for (const c of news) {
    const o = oldByName.get(c.name);
    if (!o) {
      lines.push(row("+", c));
      continue;
    }
    const moved = keptOld.indexOf(c.name) !== keptNew.indexOf(c.name);
    const differs = o.type !== c.type || o.source !== c.source;
    const mark = [differs ? "~" : "", moved ? "↕" : ""].join("");
    lines.push(row(mark, { name: c.name, type: changed(o.type, c.type), source: o.source === c.source ? c.source : `${o.source || "–"} → ${c.source || "–"}` }));
  }
  for (const o of olds) if (!newNames.has(o.name)) lines.push(row("−", o));
  return lines;
}
