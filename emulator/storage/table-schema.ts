import { z } from "zod";
import { isOneOf, isRecord, type JsonValue } from "../../keboola/json";
import type { StorageTable } from "../../keboola/storage-answers";
import type { EmulatorContext } from "../core/context";
import {
  BASE_TYPES,
  NOT_A_VALID_CHOICE,
  type ColumnDefinition,
  SNOWFLAKE_TYPE_OF_BASE_TYPE,
  columnNameProblem,
  snowflakeDefinitionProblem,
  snowflakeStoredDefinition,
  storedColumnDefinitionSchema,
  tableNameProblem,
} from "../../keboola/storage";
import { authenticated, type StorageApp } from "./auth";
import { list, readBody, readQuery, str } from "./body";
import { requireBucket } from "./buckets";
import { StorageHttpError } from "./errors";
import { truthy } from "./format";
import { JobFailure, createStorageJob, onStorageJob, storageJobJson } from "./jobs";
import { requireBucketWrite } from "./permissions";
import { tableJson } from "./representations";
import type { StorageJobRecord, TableRecord } from "./state";
import { requireTable } from "./table-routes";
import { ensureTable, getBucket, getTable, parseTableId } from "./tables";

// A table's schema: typed tables (`POST buckets/{id}/tables-definition`, job
// `tableDefinitionCreate`), columns (`POST tables/{id}/columns`, job `tableColumnAdd`;
// `DELETE tables/{id}/columns/{name}?force=`, job `tableColumnDelete`) and the primary key
// (`POST|DELETE tables/{id}/primary-key`, jobs `tablePrimaryKeyAdd` / `tablePrimaryKeyDelete`).
// Shapes: keboola/storage-api-php-client apiary.apib ("Create new table definition", "Add Column
// to Table", "Delete Column from Table", "Primary Keys"); typed-table behaviour from its Snowflake
// backend tests (TableDefinitionOperationsTest: the stored definition, "Invalid parameters -
// definition: This field was not expected." for a typed column on an untyped table, 'Column
// "definition" or "basetype" must be set.' for an untyped column on a typed one). Types and
// lengths are checked by the one rule set in keboola/storage.ts.

const validation = (field: string, problem: string): StorageHttpError =>
  new StorageHttpError(400, "storage.tables.validation", `Invalid parameters - ${field}: ${problem}`);

type JsonObject = { [key: string]: JsonValue };

function objectOf(v: unknown): Record<string, unknown> | undefined {
  return isRecord(v) ? v : undefined;
}

// What each job remembers of its request (the job's `work`), read back by its runner; the
// creating route's literal satisfies the schema's input.
const definitionCreateWork = z.object({
  bucketId: z.string(),
  name: z.string(),
  columns: z.array(z.string()),
  primaryKey: z.array(z.string()),
  definition: z.array(storedColumnDefinitionSchema).nullable(),
});
const columnAddWork = z.object({ name: z.string(), definition: storedColumnDefinitionSchema.nullable() });
const columnDeleteWork = z.object({ name: z.string() });
const primaryKeyAddWork = z.object({ columns: z.array(z.string()), skipDuplicatesCheck: z.boolean() });

/** A column's declared type: a native `definition`, a `basetype`, or neither (untyped). */
function declaredType(raw: Record<string, unknown>, field: string): ColumnDefinition | undefined {
  const def = objectOf(raw.definition);
  const basetype = str(raw.basetype);
  if (def) {
    const type = str(def.type);
    if (!type) throw validation(`${field}.definition.type`, "This field is missing.");
    const out: ColumnDefinition = { type };
    const length = str(def.length);
    if (length !== undefined && length !== "") out.length = length;
    if (def.nullable !== undefined && def.nullable !== null) out.nullable = truthy(def.nullable);
    const dflt = str(def.default);
    if (dflt !== undefined) out.default = dflt;
    const problem = snowflakeDefinitionProblem(out);
    if (problem) throw validation(`${field}.definition`, problem);
    return out;
  }
  if (basetype) {
    if (!isOneOf(BASE_TYPES, basetype)) throw validation(`${field}.basetype`, NOT_A_VALID_CHOICE);
    return { type: SNOWFLAKE_TYPE_OF_BASE_TYPE[basetype] };
  }
  return undefined;
}

export function registerTableSchemaRoutes(api: StorageApp, ctx: EmulatorContext): void {
  const auth = authenticated(ctx);

  onStorageJob(ctx, "tableDefinitionCreate", (job) => runDefinitionCreate(ctx, job));
  onStorageJob(ctx, "tableColumnAdd", (job) => {
    const w = columnAddWork.parse(job.work);
    const table = jobTable(ctx, job);
    if (table.columns.includes(w.name)) throw new JobFailure("storage.tables.columnAlreadyExists", columnExists(w.name, table.id));
    table.columns.push(w.name);
    for (const r of table.rows) r.push("");
    if (table.definition && w.definition) table.definition.columns.push(w.definition);
    touch(ctx, table);
    return null;
  });
  onStorageJob(ctx, "tableColumnDelete", (job) => {
    const w = columnDeleteWork.parse(job.work);
    const table = jobTable(ctx, job);
    const i = table.columns.indexOf(w.name);
    if (i < 0) return null;
    table.columns.splice(i, 1);
    for (const r of table.rows) r.splice(i, 1);
    table.primaryKey = table.primaryKey.filter((k) => k !== w.name);
    if (table.definition) table.definition.columns = table.definition.columns.filter((c) => c.name !== w.name);
    if (table.columnMetadata) delete table.columnMetadata[w.name];
    touch(ctx, table);
    return null;
  });
  onStorageJob(ctx, "tablePrimaryKeyAdd", (job) => {
    const w = primaryKeyAddWork.parse(job.work);
    const table = jobTable(ctx, job);
    const missing = w.columns.filter((c) => !table.columns.includes(c));
    if (missing.length) throw new JobFailure("storage.tables.validation.invalidPrimaryKeyColumns", pkNotColumns(missing));
    if (!w.skipDuplicatesCheck) {
      const idx = w.columns.map((c) => table.columns.indexOf(c));
      const seen = new Set<string>();
      for (const r of table.rows) {
        const k = JSON.stringify(idx.map((x) => r[x]));
        if (seen.has(k)) {
          throw new JobFailure(
            "storage.tables.primaryKeyDuplicateValues",
            `Primary key cannot be created: the table "${table.id}" contains duplicate values in the columns "${w.columns.join(", ")}".`,
          );
        }
        seen.add(k);
      }
    }
    table.primaryKey = [...w.columns];
    if (table.definition) {
      for (const c of table.definition.columns) if (w.columns.includes(c.name)) c.definition.nullable = false;
    }
    touch(ctx, table);
    return null;
  });
  onStorageJob(ctx, "tablePrimaryKeyDelete", (job) => {
    const table = jobTable(ctx, job);
    table.primaryKey = [];
    touch(ctx, table);
    return null;
  });

  api.post("/buckets/:bucketId/tables-definition", auth, async (c) => {
    const { token, branchId } = c.var;
    requireBucketWrite(token);
    const bucket = requireBucket(ctx, branchId, c.req.param("bucketId"));
    const { body } = await readBody(c);
    const name = str(body.name);
    if (name === undefined) throw validation("name", "This field is missing.");
    const nameProblem = tableNameProblem(name);
    if (nameProblem) throw validation("name", nameProblem);
    const rawColumns = Array.isArray(body.columns) ? body.columns : Object.values(objectOf(body.columns) ?? {});
    if (!rawColumns.length) throw validation("columns", "This field is missing.");
    const primaryKey = (list(body.primaryKeysNames) ?? []).filter((k) => k !== "");
    const columns: Array<{ name: string; type: ColumnDefinition | undefined }> = rawColumns.map((raw, i) => {
      const col = objectOf(raw) ?? {};
      const colName = str(col.name);
      if (colName === undefined) throw validation(`columns[${i}].name`, "This field is missing.");
      const problem = columnNameProblem(colName);
      if (problem) throw validation(`columns[${i}].name`, problem);
      return { name: colName, type: declaredType(col, `columns[${i}]`) };
    });
    const names = columns.map((col) => col.name);
    const dup = names.find((n, i) => names.findIndex((m) => m.toLowerCase() === n.toLowerCase()) !== i);
    if (dup) throw validation("columns", `Column "${dup}" is duplicated.`);
    const missing = primaryKey.filter((k) => !names.includes(k));
    if (missing.length) throw validation("primaryKeysNames", pkNotColumns(missing));
    const typed = columns.some((col) => col.type !== undefined);
    if (typed) {
      const untyped = columns.find((col) => col.type === undefined);
      if (untyped) throw validation(`columns`, `Column "definition" or "basetype" must be set.`);
      const nullablePk = columns.find((col) => primaryKey.includes(col.name) && col.type?.nullable === true);
      if (nullablePk) throw validation("primaryKeysNames", `Primary key column "${nullablePk.name}" cannot be nullable.`);
    }
    if (getTable(ctx, branchId, `${bucket.id}.${name}`)) throw tableExists(name, bucket.id);
    // PK columns default to not nullable ("when column is part of primary key and nullable is not set default will be set to false").
    // Typed: every column has its type (an untyped one was refused above).
    const stored = typed
      ? columns.flatMap((col) =>
          col.type ? [snowflakeStoredDefinition(col.name, { ...col.type, nullable: col.type.nullable ?? !primaryKey.includes(col.name) })] : [],
        )
      : null;
    const params: JsonObject = {
      name,
      primaryKeysNames: primaryKey,
      columns: columns.map((col): JsonObject =>
        col.type
          ? { name: col.name, definition: { ...jsonDefinition(col.type), nullable: col.type.nullable ?? !primaryKey.includes(col.name) } }
          : { name: col.name },
      ),
      queue: "main",
    };
    const job = createStorageJob(ctx, token, branchId, "tableDefinitionCreate", params, null, {
      bucketId: bucket.id,
      name,
      columns: names,
      primaryKey,
      definition: stored,
    } satisfies z.input<typeof definitionCreateWork>);
    return c.json(storageJobJson(ctx, job), 202);
  });

  api.post("/tables/:tableId/columns", auth, async (c) => {
    const { token, branchId } = c.var;
    requireBucketWrite(token);
    const table = requireTable(ctx, branchId, c.req.param("tableId"));
    const { body } = await readBody(c);
    const name = str(body.name);
    if (name === undefined) throw validation("name", "This field is missing.");
    const problem = columnNameProblem(name);
    if (problem) throw validation("name", problem);
    const hasType = objectOf(body.definition) !== undefined || !!str(body.basetype);
    if (!table.definition && objectOf(body.definition)) throw validation("definition", "This field was not expected.");
    if (table.definition && !hasType) throw new StorageHttpError(400, "storage.tables.validation", 'Column "definition" or "basetype" must be set.');
    if (table.columns.some((col) => col.toLowerCase() === name.toLowerCase())) {
      throw new StorageHttpError(400, "storage.tables.columnAlreadyExists", columnExists(name, table.id));
    }
    const type = table.definition ? declaredType(body, "definition") : undefined;
    const stored = type ? snowflakeStoredDefinition(name, type) : null;
    const params: JsonObject = { name };
    // A definition on an untyped table was refused above, so a typed table's type is declared.
    if (objectOf(body.definition) && type) params.definition = jsonDefinition(type);
    const basetype = str(body.basetype);
    if (basetype) params.basetype = basetype;
    const job = createStorageJob(ctx, token, branchId, "tableColumnAdd", params, table.id, {
      name,
      definition: stored,
    } satisfies z.input<typeof columnAddWork>);
    return c.json(storageJobJson(ctx, job), 202);
  });

  api.delete("/tables/:tableId/columns/:columnName", auth, (c) => {
    const { token, branchId } = c.var;
    requireBucketWrite(token);
    const table = requireTable(ctx, branchId, c.req.param("tableId"));
    const name = c.req.param("columnName");
    const force = truthy(readQuery(c).force);
    if (!table.columns.includes(name)) {
      throw new StorageHttpError(404, "storage.tables.columnNotFound", `Column "${name}" not found in table "${table.id}".`);
    }
    if (table.primaryKey.includes(name) && !force) {
      throw new StorageHttpError(
        400,
        "storage.tables.cannotDeletePrimaryKeyColumn",
        `Cannot delete column "${name}" from table "${table.id}": it is part of the primary key. Remove the primary key first, or use force.`,
      );
    }
    if (table.columns.length === 1) {
      throw new StorageHttpError(400, "storage.tables.cannotDeleteLastColumn", `Cannot delete the last column "${name}" of table "${table.id}".`);
    }
    const job = createStorageJob(ctx, token, branchId, "tableColumnDelete", { name, force }, table.id, {
      name,
    } satisfies z.input<typeof columnDeleteWork>);
    return c.json(storageJobJson(ctx, job), 202);
  });

  api.post("/tables/:tableId/primary-key", auth, async (c) => {
    const { token, branchId } = c.var;
    requireBucketWrite(token);
    const table = requireTable(ctx, branchId, c.req.param("tableId"));
    const { body } = await readBody(c);
    const columns = (list(body.columns) ?? []).filter((k) => k !== "");
    if (!columns.length) throw validation("columns", "This field is missing.");
    if (table.primaryKey.length) {
      throw new StorageHttpError(400, "storage.tables.primaryKeyAlreadyExists", `Primary key already exists in table "${table.id}". Remove it first.`);
    }
    const missing = columns.filter((k) => !table.columns.includes(k));
    if (missing.length) throw validation("columns", pkNotColumns(missing));
    const skipDuplicatesCheck = truthy(body.skipDuplicatesCheck);
    const job = createStorageJob(ctx, token, branchId, "tablePrimaryKeyAdd", { columns, skipDuplicatesCheck }, table.id, {
      columns,
      skipDuplicatesCheck,
    } satisfies z.input<typeof primaryKeyAddWork>);
    return c.json(storageJobJson(ctx, job), 202);
  });

  api.delete("/tables/:tableId/primary-key", auth, (c) => {
    const { token, branchId } = c.var;
    requireBucketWrite(token);
    const table = requireTable(ctx, branchId, c.req.param("tableId"));
    const job = createStorageJob(ctx, token, branchId, "tablePrimaryKeyDelete", {}, table.id);
    return c.json(storageJobJson(ctx, job), 202);
  });
}

function jsonDefinition(def: ColumnDefinition): JsonObject {
  const out: JsonObject = { type: def.type };
  if (def.length !== undefined && def.length !== null) out.length = def.length;
  if (def.nullable !== undefined) out.nullable = def.nullable;
  if (def.default !== undefined && def.default !== null) out.default = def.default;
  return out;
}

const columnExists = (name: string, tableId: string): string => `The column "${name}" already exists in table "${tableId}".`;
const pkNotColumns = (missing: string[]): string => `Primary key columns "${missing.join(", ")}" are not present in the table columns.`;
const tableExists = (name: string, bucketId: string): StorageHttpError =>
  new StorageHttpError(400, "storage.buckets.tableAlreadyExists", `The table "${name}" already exists in the bucket "${bucketId}".`);

function touch(ctx: EmulatorContext, table: TableRecord): void {
  table.lastChangeDate = new Date(ctx.now()).toISOString();
}

function jobTable(ctx: EmulatorContext, job: StorageJobRecord): TableRecord {
  const tableId = job.tableId ?? "";
  const table = getTable(ctx, job.branchId, tableId);
  if (table) return table;
  const p = parseTableId(tableId);
  throw new JobFailure(
    "storage.tables.notFound",
    `The table "${p?.name ?? job.tableId}" was not found in the bucket "${p?.bucketId ?? ""}" in the project "${ctx.state.project.id}"`,
  );
}

function runDefinitionCreate(ctx: EmulatorContext, job: StorageJobRecord): StorageTable {
  const w = definitionCreateWork.parse(job.work);
  if (!getBucket(ctx, job.branchId, w.bucketId)) {
    throw new JobFailure("storage.buckets.notFound", `The bucket "${w.bucketId}" was not found in the project "${ctx.state.project.id}"`);
  }
  const tableId = `${w.bucketId}.${w.name}`;
  if (getTable(ctx, job.branchId, tableId)) {
    throw new JobFailure("storage.buckets.tableAlreadyExists", `The table "${w.name}" already exists in the bucket "${w.bucketId}".`);
  }
  const table = ensureTable(ctx, job.branchId, tableId, w.columns, w.primaryKey);
  if (w.definition) {
    table.definition = { primaryKeysNames: [...w.primaryKey], columns: w.definition };
  }
  job.tableId = tableId;
  return tableJson(ctx, table);
}
