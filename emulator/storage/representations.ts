import type { EmulatorContext } from "../core/context";
import { storageTime } from "./format";
import type { BucketRecord, TableRecord } from "./state";
import { listTables } from "./tables";

// JSON shapes of buckets and tables, as the Storage API reference shows them.

function dataSize(tables: TableRecord[]): number {
  let bytes = 0;
  for (const t of tables) {
    for (const r of t.rows) for (const v of r) bytes += Buffer.byteLength(v) + 1;
    bytes += t.unkeptBytes ?? 0;
  }
  return bytes;
}

export function bucketJson(ctx: EmulatorContext, b: BucketRecord): Record<string, unknown> {
  const tables = listTables(ctx, b.branchId, b.id);
  const changes = tables.map((t) => t.lastChangeDate).filter((d): d is string => !!d).sort();
  return {
    uri: `${ctx.baseUrl()}/v2/storage/buckets/${b.id}`,
    id: b.id,
    name: b.name,
    displayName: b.displayName,
    idBranch: b.branchId,
    stage: b.stage,
    description: b.description,
    tables: `${ctx.baseUrl()}/v2/storage/buckets/${b.id}/tables`,
    created: storageTime(b.created),
    lastChangeDate: storageTime(changes[changes.length - 1] ?? null),
    updated: storageTime(changes[changes.length - 1] ?? b.created),
    isReadOnly: false,
    dataSizeBytes: dataSize(tables),
    rowsCount: tables.reduce((n, t) => n + t.rows.length + (t.unkeptRows ?? 0), 0),
    isMaintenance: false,
    backend: "snowflake",
    sharing: null,
    hasExternalSchema: false,
    databaseName: "",
    path: b.id,
    isSnowflakeSharedDatabase: false,
    color: null,
    owner: null,
    isLinkedBucket: false,
    backendPath: [`KBC_PRJ_${ctx.state.project.id}`, b.id],
    metadata: (b.metadata ?? []).map((m) => ({ ...m })),
  };
}

export function tableJson(ctx: EmulatorContext, t: TableRecord, withBucket = true): Record<string, unknown> {
  const out: Record<string, unknown> = {
    uri: `${ctx.baseUrl()}/v2/storage/tables/${t.id}`,
    id: t.id,
    name: t.name,
    displayName: t.name,
    transactional: false,
    primaryKey: [...t.primaryKey],
    indexType: null,
    indexKey: [],
    distributionType: null,
    distributionKey: [],
    syntheticPrimaryKeyEnabled: false,
    created: storageTime(t.created),
    lastImportDate: storageTime(t.lastImportDate),
    lastChangeDate: storageTime(t.lastChangeDate),
    rowsCount: t.rows.length + (t.unkeptRows ?? 0),
    dataSizeBytes: dataSize([t]),
    isAlias: false,
    isAliasable: true,
    isTyped: t.definition !== undefined,
    tableType: "table",
    path: `/${t.bucketId}/${t.name}`,
    columns: [...t.columns],
    metadata: (t.metadata ?? []).map((m) => ({ ...m })),
    // PHP's empty array: `[]` without entries, an object by column name with them.
    columnMetadata: Object.keys(t.columnMetadata ?? {}).length
      ? Object.fromEntries(Object.entries(t.columnMetadata ?? {}).map(([k, v]) => [k, v.map((m) => ({ ...m }))]))
      : [],
  };
  if (t.definition) {
    out.definition = {
      primaryKeysNames: [...t.primaryKey],
      columns: t.definition.columns.map((c) => ({ ...c, definition: { ...c.definition } })),
    };
  }
  if (withBucket) {
    const bucket = ctx.state.storage.buckets[`${t.branchId}/${t.bucketId}`];
    if (bucket) out.bucket = bucketJson(ctx, bucket);
  }
  return out;
}
