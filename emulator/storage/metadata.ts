import { isRecord } from "../../keboola/json";
import type { EmulatorContext } from "../core/context";
import { authenticated, type StorageApp } from "./auth";
import { type Body, readBody, str } from "./body";
import { requireBucket } from "./buckets";
import { StorageHttpError } from "./errors";
import { nowStorage } from "./format";
import { requireBucketWrite } from "./permissions";
import type { MetadataEntry } from "./state";
import { requireTable } from "./table-routes";

// Metadata of buckets and tables (keboola/storage-api-php-client apiary.apib, "Metadata"):
// timestamped key-value pairs per provider (the component or tool that wrote them).
//   GET    /buckets/{id}/metadata, /tables/{id}/metadata          -> [entry]
//   POST   /buckets/{id}/metadata {provider, metadata: [{key, value}]} -> 201 [every entry of the bucket]
//   POST   /tables/{id}/metadata  JSON {provider, metadata?, columnsMetadata?}
//          -> 201 {metadata: [...], columnsMetadata: {column: [...]} | []}
//          (form-encoded, the deprecated variant: 201 [every entry of the table])
//   DELETE .../metadata/{metadataId} -> 204
// An entry is {id (string), key, value, provider, timestamp}; the same provider and key update
// the entry (new value and timestamp, same id). The bucket and table details carry `metadata`,
// the table detail `columnMetadata` too. keboola/keboola-sdk-go storage_table_metadata.go sends
// JSON with `columnsMetadata: {all: [{columnName, key, value}]}` and reads the object answer.

export const validation = (field: string, problem: string): StorageHttpError =>
  new StorageHttpError(400, "storage.metadata.validation", `Invalid parameters - ${field}: ${problem}`);

export interface MetadataInput {
  key: string;
  value: string;
  columnName?: string;
}

export function entriesOf(raw: unknown, field: string): MetadataInput[] {
  const items: unknown[] = Array.isArray(raw) ? raw : isRecord(raw) ? Object.values(raw) : [];
  return items.map((item, i) => {
    // A list item has no key or value either (PHP reads its missing keys as null).
    const o = isRecord(item) ? item : {};
    const key = str(o.key);
    const value = str(o.value);
    if (!key) throw validation(`${field}[${i}][key]`, "This value should not be blank.");
    if (value === undefined) throw validation(`${field}[${i}][value]`, "This field is missing.");
    const out: MetadataInput = { key, value };
    const columnName = str(o.columnName);
    if (columnName !== undefined) out.columnName = columnName;
    return out;
  });
}

function provider(body: Body): string {
  const p = str(body.provider);
  if (!p) throw validation("provider", "This field is missing.");
  return p;
}

/** Sets entries on a list in place (same provider and key: updated) and answers the touched entries. */
export function upsertMetadata(ctx: EmulatorContext, list: MetadataEntry[], providerId: string, inputs: MetadataInput[]): MetadataEntry[] {
  const touched: MetadataEntry[] = [];
  for (const m of inputs) {
    let entry = list.find((e) => e.provider === providerId && e.key === m.key);
    if (entry) {
      entry.value = m.value;
      entry.timestamp = nowStorage(ctx);
    } else {
      entry = { id: String(ctx.nextId("storage.metadata", 19501)), key: m.key, value: m.value, provider: providerId, timestamp: nowStorage(ctx) };
      list.push(entry);
    }
    touched.push(entry);
  }
  return touched;
}

const copy = (list: MetadataEntry[] | undefined): MetadataEntry[] => (list ?? []).map((m) => ({ ...m }));

function removeEntry(list: MetadataEntry[] | undefined, id: string): boolean {
  const i = (list ?? []).findIndex((m) => m.id === id);
  if (i < 0 || !list) return false;
  list.splice(i, 1);
  return true;
}

export const metadataNotFound = (id: string): StorageHttpError => new StorageHttpError(404, "storage.metadata.notFound", `Metadata with id "${id}" not found.`);

export function registerMetadataRoutes(api: StorageApp, ctx: EmulatorContext): void {
  const auth = authenticated(ctx);

  api.get("/buckets/:bucketId/metadata", auth, (c) => c.json(copy(requireBucket(ctx, c.var.branchId, c.req.param("bucketId")).metadata)));

  api.post("/buckets/:bucketId/metadata", auth, async (c) => {
    requireBucketWrite(c.var.token);
    const bucket = requireBucket(ctx, c.var.branchId, c.req.param("bucketId"));
    const { body } = await readBody(c);
    const p = provider(body);
    const inputs = entriesOf(body.metadata, "metadata");
    if (!inputs.length) throw validation("metadata", "This field is missing.");
    upsertMetadata(ctx, (bucket.metadata ??= []), p, inputs);
    return c.json(copy(bucket.metadata), 201);
  });

  api.delete("/buckets/:bucketId/metadata/:metadataId", auth, (c) => {
    requireBucketWrite(c.var.token);
    const bucket = requireBucket(ctx, c.var.branchId, c.req.param("bucketId"));
    if (!removeEntry(bucket.metadata, c.req.param("metadataId"))) throw metadataNotFound(c.req.param("metadataId"));
    return c.body(null, 204);
  });

  api.get("/tables/:tableId/metadata", auth, (c) => c.json(copy(requireTable(ctx, c.var.branchId, c.req.param("tableId")).metadata)));

  api.post("/tables/:tableId/metadata", auth, async (c) => {
    requireBucketWrite(c.var.token);
    const table = requireTable(ctx, c.var.branchId, c.req.param("tableId"));
    const json = (c.req.header("Content-Type") ?? "").toLowerCase().includes("application/json");
    const { body } = await readBody(c);
    const p = provider(body);
    const inputs = entriesOf(body.metadata, "metadata");
    const columnsMetadata = body.columnsMetadata;
    // A list or an object of groups (a list's indexes are its keys).
    const columnGroups = typeof columnsMetadata === "object" && columnsMetadata !== null ? Object.entries(columnsMetadata) : [];
    if (!inputs.length && !columnGroups.length) throw validation("metadata", "At least one of metadata or columnsMetadata is required.");
    upsertMetadata(ctx, (table.metadata ??= []), p, inputs);
    const columnMetadata = (table.columnMetadata ??= {});
    for (const [index, group] of columnGroups) {
      for (const m of entriesOf(group, `columnsMetadata[${index}]`)) {
        // Indexed by int (or any key) with columnName in each entry; indexing by column name is deprecated.
        const column = m.columnName ?? index;
        if (!table.columns.includes(column)) {
          throw new StorageHttpError(400, "storage.metadata.invalidColumn", `Column "${column}" not found in table "${table.id}".`);
        }
        upsertMetadata(ctx, (columnMetadata[column] ??= []), p, [m]);
      }
    }
    if (!json) return c.json(copy(table.metadata), 201);
    const columns = Object.fromEntries(Object.entries(columnMetadata).map(([k, v]) => [k, copy(v)]));
    return c.json({ metadata: copy(table.metadata), columnsMetadata: Object.keys(columns).length ? columns : [] }, 201);
  });

  api.delete("/tables/:tableId/metadata/:metadataId", auth, (c) => {
    requireBucketWrite(c.var.token);
    const table = requireTable(ctx, c.var.branchId, c.req.param("tableId"));
    if (!removeEntry(table.metadata, c.req.param("metadataId"))) throw metadataNotFound(c.req.param("metadataId"));
    return c.body(null, 204);
  });
}
