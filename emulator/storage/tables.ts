import type { EmulatorContext } from "../core/context";
import type { BucketRecord, TableRecord } from "./state";

/** A row's bytes as `dataSizeBytes` counts them: its values and a separator each. */
export const rowBytes = (r: string[]): number => r.reduce((m, v) => m + Buffer.byteLength(v) + 1, 0);

// A table's data size, computed once per rows array and length (a load replaces the array, an
// insert pushes to it) instead of over every row on each answer about the table or its bucket:
// with millions of rows that was seconds of the event loop per GET of the bucket.
const sizes = new WeakMap<string[][], { length: number; bytes: number }>();

/** `dataSizeBytes` of a table: its rows, and the bytes of rows it counts without keeping. */
export function tableDataBytes(table: TableRecord): number {
  let hit = sizes.get(table.rows);
  if (hit?.length !== table.rows.length) {
    hit = { length: table.rows.length, bytes: table.rows.reduce((n, r) => n + rowBytes(r), 0) };
    sizes.set(table.rows, hit);
  }
  return hit.bytes + (table.unkeptBytes ?? 0);
}

// Table helpers shared by the Storage routes and by the Stream service (sink tasks create
// tables, ingestion appends rows), so both see one consistent storage.

const key = (branchId: number, id: string): string => `${branchId}/${id}`;

/** `in.c-bucket.table` -> `{stage, bucketId, name}`, or undefined when not exactly three parts. */
export function parseTableId(tableId: string): { stage: "in" | "out"; bucketId: string; name: string } | undefined {
  const parts = tableId.split(".");
  if (parts.length !== 3 || (parts[0] !== "in" && parts[0] !== "out") || !parts[1] || !parts[2]) return undefined;
  return { stage: parts[0], bucketId: `${parts[0]}.${parts[1]}`, name: parts[2] };
}

export function getBucket(ctx: EmulatorContext, branchId: number, bucketId: string): BucketRecord | undefined {
  return ctx.state.storage.buckets[key(branchId, bucketId)];
}

export function getTable(ctx: EmulatorContext, branchId: number, tableId: string): TableRecord | undefined {
  return ctx.state.storage.tables[key(branchId, tableId)];
}

export function listTables(ctx: EmulatorContext, branchId: number, bucketId?: string): TableRecord[] {
  return Object.values(ctx.state.storage.tables).filter(
    (t) => t.branchId === branchId && (bucketId === undefined || t.bucketId === bucketId),
  );
}

export function ensureBucket(ctx: EmulatorContext, branchId: number, bucketId: string, description = ""): BucketRecord {
  const existing = getBucket(ctx, branchId, bucketId);
  if (existing) return existing;
  const [stage, name = ""] = bucketId.split(".");
  if (stage !== "in" && stage !== "out") throw new Error(`invalid bucket id ${bucketId}`);
  const bucket: BucketRecord = {
    id: bucketId,
    branchId,
    stage,
    name,
    displayName: name.replace(/^c-/, ""),
    description,
    created: new Date(ctx.now()).toISOString(),
  };
  ctx.state.storage.buckets[key(branchId, bucketId)] = bucket;
  return bucket;
}

/** Create the table (and its bucket) if missing; returns the table, existing or new. */
export function ensureTable(ctx: EmulatorContext, branchId: number, tableId: string, columns: string[], primaryKey: string[] = []): TableRecord {
  const existing = getTable(ctx, branchId, tableId);
  if (existing) return existing;
  const parsed = parseTableId(tableId);
  if (!parsed) throw new Error(`invalid table id ${tableId}`);
  ensureBucket(ctx, branchId, parsed.bucketId);
  const table: TableRecord = {
    id: tableId,
    branchId,
    bucketId: parsed.bucketId,
    name: parsed.name,
    columns: [...columns],
    primaryKey: [...primaryKey],
    rows: [],
    created: new Date(ctx.now()).toISOString(),
    lastImportDate: null,
    lastChangeDate: null,
  };
  ctx.state.storage.tables[key(branchId, tableId)] = table;
  return table;
}

export function deleteTable(ctx: EmulatorContext, branchId: number, tableId: string): boolean {
  return delete ctx.state.storage.tables[key(branchId, tableId)];
}

export function deleteBucket(ctx: EmulatorContext, branchId: number, bucketId: string): boolean {
  return delete ctx.state.storage.buckets[key(branchId, bucketId)];
}

/** Append rows given as column-name -> value maps; unknown columns are ignored, missing ones empty. */
export function appendRows(table: TableRecord, rows: Array<Record<string, string>>, now: number): void {
  for (const row of rows) table.rows.push(table.columns.map((c) => row[c] ?? ""));
  const at = new Date(now).toISOString();
  table.lastImportDate = at;
  table.lastChangeDate = at;
}
