import { z } from "zod";
import { isOneOf, isRecord } from "../../keboola/json";
import { list, str } from "./body";
import { StorageHttpError } from "./errors";
import type { TableRecord } from "./state";

// What a read of a table's rows selects: the filters and the order of a data preview
// (`GET tables/{id}/data-preview`, query parameters) and of an unload (`POST
// tables/{id}/export-async`, JSON body), one rule for both. keboola-sdk-go sends them as
// `whereFilters[i][column|operator|values][j]|dataType` and `orderBy[i][column|order|dataType]`
// in the preview's query (pkg/keboola/storage_table_options.go toQueryParams) and as the lists
// `whereFilters: [{column, operator, values, dataType}]` and `orderBy: [{column, order, dataType}]`
// in the unload's body (storage_table_unload.go unloadConfig); readQuery and readBody turn both
// into the same objects.
//
// Semantics: keboola/storage-api-php-client apiary.apib ("Unload Data Asynchronously": rows
// filtering and sorting, WhereFiltersObject, OrderByObject): filters are joined by AND; `eq` with
// several values is SQL IN, `ne` NOT IN; gt/ge/lt/le compare; a `dataType` casts the column with
// Snowflake's try_to_* (a value that does not cast is NULL and matches nothing); `orderBy` sorts
// by the columns in turn, ASC by default. Errors: the storage-api-php-client Snowflake backend
// tests WhereFilterTest and OrderByTest.

export const WHERE_OPERATORS = ["eq", "ne", "gt", "ge", "lt", "le"] as const;
/** The data types a Snowflake filter or sort may cast to (apiary.apib: "INTEGER ... DOUBLE ... (Snowflake, BigQuery)"; the rest are BigQuery's). */
export const SNOWFLAKE_CAST_TYPES = ["INTEGER", "DOUBLE"] as const;
type CastType = (typeof SNOWFLAKE_CAST_TYPES)[number];

/** A selection as an unload job keeps it in its work (checked when the job runs). */
export const rowSelectionSchema = z.object({
  /** The columns to answer, in this order (all of the table's when none were asked for). */
  columns: z.array(z.string()),
  where: z.array(
    z.object({ column: z.string(), operator: z.enum(WHERE_OPERATORS), values: z.array(z.string()), dataType: z.enum(SNOWFLAKE_CAST_TYPES).optional() }),
  ),
  orderBy: z.array(z.object({ column: z.string(), order: z.enum(["ASC", "DESC"]), dataType: z.enum(SNOWFLAKE_CAST_TYPES).optional() })),
});
export type RowSelection = z.output<typeof rowSelectionSchema>;
type WhereFilter = RowSelection["where"][number];
type OrderBy = RowSelection["orderBy"][number];

const invalid = (message: string): StorageHttpError => new StorageHttpError(400, "storage.tables.validation", message);

/** PHP's json_encode of a parameter, as the messages quote it. */
const quoted = (v: unknown): string => JSON.stringify(v) ?? "null";

/**
 * The items of a list parameter (`whereFilters`, `orderBy`): each must be an object (WhereFilterTest
 * and OrderByTest testInvalidStructuredQuery*, testNonArrayParamsShouldReturnError*).
 */
function items(name: string, raw: unknown): Array<Record<string, unknown>> {
  if (raw === undefined || raw === null || raw === "") return [];
  if (!isRecord(raw) && !Array.isArray(raw)) throw invalid(`Parameter "${name}" should be an array, but parameter contains:\n${quoted(raw)}`);
  const values: unknown[] = Array.isArray(raw) ? raw : Object.values(raw);
  const out: Array<Record<string, unknown>> = [];
  for (const v of values) {
    if (!isRecord(v)) throw invalid(`All items in param "${name}" should be an arrays, but parameter contains:\n${quoted(raw)}`);
    out.push(v);
  }
  return out;
}

/** "Data type non-existing not recognized. Possible datatypes are [INTEGER|DOUBLE]" (OrderByTest invalidDataProvider). */
function castType(raw: unknown): CastType | undefined {
  const t = str(raw);
  if (t === undefined || t === "") return undefined;
  if (isOneOf(SNOWFLAKE_CAST_TYPES, t)) return t;
  throw invalid(`Data type ${t} not recognized. Possible datatypes are [${SNOWFLAKE_CAST_TYPES.join("|")}]`);
}

/**
 * The selection a request asks for, checked against the table. `q` holds the parameters as
 * readQuery or readBody parse them; the deprecated `whereColumn`, `whereValues` and
 * `whereOperator` make one filter.
 */
export function rowSelection(table: TableRecord, q: Record<string, unknown>): RowSelection {
  const columns = list(q.columns) ?? [];
  const unknown = columns.filter((col) => !table.columns.includes(col));
  if (unknown.length) {
    throw new StorageHttpError(400, "storage.tables.nonExistingColumns", `Columns ${unknown.join(", ")} not found in the table "${table.id}".`);
  }

  const where: WhereFilter[] = [];
  const legacyColumn = str(q.whereColumn);
  const rawFilters = q.whereFilters !== undefined ? items("whereFilters", q.whereFilters) : [];
  if (legacyColumn && !rawFilters.length) rawFilters.push({ column: legacyColumn, operator: q.whereOperator, values: q.whereValues });
  for (const f of rawFilters) {
    const column = str(f.column) ?? "";
    const operator = str(f.operator) ?? "eq";
    if (!isOneOf(WHERE_OPERATORS, operator)) throw invalid(`Invalid where operator ${operator}`);
    if (!table.columns.includes(column)) {
      throw new StorageHttpError(400, "storage.tables.nonExistingColumns", `Columns ${column} not found in the table "${table.id}".`);
    }
    const dataType = castType(f.dataType);
    where.push({ column, operator, values: list(f.values) ?? [], ...(dataType ? { dataType } : {}) });
  }

  const orderBy: OrderBy[] = [];
  for (const o of q.orderBy !== undefined ? items("orderBy", q.orderBy) : []) {
    const column = str(o.column) ?? "";
    if (!table.columns.includes(column)) throw invalid(`Can't filter by column ${column}, column does not exist`);
    const order = (str(o.order) ?? "ASC").toUpperCase();
    if (order !== "ASC" && order !== "DESC") throw invalid(`Invalid sort order ${str(o.order)}. Available orders are [DESC|ASC]`);
    const dataType = castType(o.dataType);
    orderBy.push({ column, order, ...(dataType ? { dataType } : {}) });
  }
  return { columns: columns.length ? columns : [...table.columns], where, orderBy };
}

const NUMBER = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;

/**
 * Snowflake's try_to_double / try_to_number of a text: the number, or null when it is none
 * (apiary.apib: `try_to_double(Price) > 40.3`). INTEGER is a NUMBER(38,0), rounded half away from zero.
 */
export function tryCast(value: string, type: CastType): number | null {
  if (!NUMBER.test(value)) return null;
  const n = Number(value);
  return type === "INTEGER" ? Math.sign(n) * Math.round(Math.abs(n)) : n;
}

/**
 * Snowflake compares texts by their code points (its default collation; JavaScript's `<` compares
 * UTF-16 units, which orders characters above U+FFFF before U+E000-U+FFFF).
 */
export function compareText(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const shift = (c: number): number => (c >= 0xd800 && c <= 0xdfff ? c + 0x2000 : c >= 0xe000 ? c - 0x800 : c);
    return shift(x) - shift(y);
  }
  return a.length - b.length;
}

type Key = string | number | null;

const keyOf = (value: string, dataType: CastType | undefined): Key => (dataType ? tryCast(value, dataType) : value);

/** Compares two non-null keys of the same kind. */
const compareKeys = (a: string | number, b: string | number): number =>
  typeof a === "number" && typeof b === "number" ? a - b : compareText(String(a), String(b));

function matches(value: string, f: WhereFilter): boolean {
  const key = keyOf(value, f.dataType);
  // NULL (a value that does not cast) satisfies neither IN nor NOT IN nor any comparison.
  if (key === null) return false;
  const operands = f.values.map((v) => keyOf(v, f.dataType)).filter((v): v is string | number => v !== null);
  switch (f.operator) {
    case "eq":
      return operands.some((v) => compareKeys(key, v) === 0);
    case "ne":
      return operands.every((v) => compareKeys(key, v) !== 0);
    case "gt":
      return operands.every((v) => compareKeys(key, v) > 0);
    case "ge":
      return operands.every((v) => compareKeys(key, v) >= 0);
    case "lt":
      return operands.every((v) => compareKeys(key, v) < 0);
    case "le":
      return operands.every((v) => compareKeys(key, v) <= 0);
  }
}

/**
 * The table's rows a selection answers, at most `limit` of them: filtered, sorted (a stable sort:
 * rows that tie keep the table's order; NULLs last ascending and first descending, Snowflake's
 * default), and projected to the selection's columns.
 */
export function selectRows(table: TableRecord, sel: RowSelection, limit: number | null): string[][] {
  let rows = table.rows;
  for (const f of sel.where) {
    const i = table.columns.indexOf(f.column);
    rows = rows.filter((r) => matches(r[i], f));
  }
  if (sel.orderBy.length) {
    const sorts = sel.orderBy.map((o) => ({ i: table.columns.indexOf(o.column), desc: o.order === "DESC", dataType: o.dataType }));
    const keyed = rows.map((r) => ({ r, keys: sorts.map((s) => keyOf(r[s.i], s.dataType)) }));
    keyed.sort((a, b) => {
      for (let k = 0; k < sorts.length; k++) {
        const x = a.keys[k];
        const y = b.keys[k];
        if (x === y) continue;
        // A NULL sorts as higher than any value.
        const c = x === null ? 1 : y === null ? -1 : compareKeys(x, y);
        if (c !== 0) return sorts[k].desc ? -c : c;
      }
      return 0;
    });
    rows = keyed.map((k) => k.r);
  }
  if (limit !== null) rows = rows.slice(0, limit);
  const idx = sel.columns.map((c) => table.columns.indexOf(c));
  return rows.map((r) => idx.map((i) => r[i]));
}
