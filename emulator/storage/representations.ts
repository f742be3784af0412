import type { EmulatorContext } from "../core/context";
import type { StorageBucket, StorageTable } from "../../keboola/storage-answers";
import { storageTime, storageTimeOf } from "./format";
import type { BucketRecord, TableRecord } from "./state";
import { listTables, tableDataBytes } from "./tables";

// JSON shapes of buckets and tables, as the Storage API reference shows them (keboola/storage-answers.ts).

export function bucketJson(ctx: EmulatorContext, b: BucketRecord): StorageBucket {
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
    created: storageTimeOf(b.created),
    lastChangeDate: storageTime(changes[changes.length - 1] ?? null),
    updated: storageTimeOf(changes[changes.length - 1] ?? b.created),
    isReadOnly: false,
    dataSizeBytes: tables.reduce((n, t) => n + tableDataBytes(t), 0),
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

export function tableJson(ctx: EmulatorContext, t: TableRecord, withBucket = true): StorageTable {
  const out: StorageTable = {
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
    created: storageTimeOf(t.created),
    lastImportDate: storageTime(t.lastImportDate),
    lastChangeDate: storageTime(t.lastChangeDate),
    rowsCount: t.rows.length + (t.unkeptRows ?? 0),
    dataSizeBytes: tableDataBytes(t),
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
  // Every table's detail has a `definition`: a typed table's stored columns, an untyped table's
  // column names each with an empty definition (keboola/storage-answers.ts StorageUntypedColumn;
  // keboola/keboola-as-code test/cli/remote-*/*/expected-state.json snapshot it for tables made
  // from a CSV or from names only: `"definition": {"primaryKeysNames": [...], "columns":
  // [{"name": "col1"}, ...]}`).
  out.definition = {
    primaryKeysNames: [...t.primaryKey],
    columns: t.definition
      ? t.definition.columns.map((c) => ({ ...c, definition: { ...c.definition } }))
      : t.columns.map((name) => ({ name, definition: [] })),
  };
  if (withBucket) {
    const bucket = ctx.state.storage.buckets[`${t.branchId}/${t.bucketId}`];
    if (bucket) out.bucket = bucketJson(ctx, bucket);
  }
  return out;
}

/**
 * A table of a list (`GET /tables`, `GET /buckets/{id}/tables`): `columns`, `metadata` and
 * `columnMetadata` only when `include` names them (apiary.apib "List All Tables", "Tables in
 * bucket"); never the `definition`, which only the detail has (keboola/keboola-as-code
 * internal/pkg/utils/testproject/snapshot.go: "The table list does not contain the "definition"
 * field, so we have to load the tables separately"; keboola/cli pull request 630: "the LIST
 * endpoint genuinely does not return it").
 */
export function listedTableJson(ctx: EmulatorContext, t: TableRecord, include: string[]): StorageTable {
  const json = tableJson(ctx, t);
  delete json.definition;
  for (const part of ["columns", "metadata", "columnMetadata"] as const) if (!include.includes(part)) delete json[part];
  return json;
}

/** A bucket of `GET /buckets`: `metadata` only with `include=metadata` (keboola/storage-api-php-client BucketsTest). */
export function listedBucketJson(ctx: EmulatorContext, b: BucketRecord, include: string[]): StorageBucket {
  const json = bucketJson(ctx, b);
  if (!include.includes("metadata")) delete json.metadata;
  return json;
}
