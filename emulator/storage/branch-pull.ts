import { z } from "zod";
import type { EmulatorContext } from "../core/context";
import { authenticated, type StorageApp } from "./auth";
import { CREATED_BY_BRANCH_KEY } from "./branches";
import { StorageHttpError } from "./errors";
import { recordEvent } from "./events";
import { nowStorage } from "./format";
import { JobFailure, createStorageJob, onStorageJob, storageJobJson } from "./jobs";
import { requireBucketWrite } from "./permissions";
import { tableJson } from "./representations";
import type { MetadataEntry, TableRecord } from "./state";
import { requireTable } from "./table-routes";
import { ensureBucket, getBucket } from "./tables";

// Pulling a table of the default branch into a development branch (keboola/storage-api-php-client
// apiary.apib "Pull table from default branch to dev branch"; tests/Backend/SOX/PullTableTest.php
// and BranchStorageTest.php at commit f1d929a7; the client's `pullTableToBranch` answers the
// finished job's results' `id`):
//   POST /v2/storage/branch/{branchId}/tables/{tableId}/pull -> 202, a `devBranchTablePull` job
//   with the table's id and `operationParams: {sourceBranchId, targetBranchId}`; its results are
//   the branch's table.
// The job copies the production table into the branch under the same id, with its data, columns,
// primary key, typed definition and the metadata of the table and its columns; a table the branch
// already has is overwritten (its metadata too: what was set in the branch is gone, what
// production has comes). Its `created` is the pull's. The branch's bucket of the same id is created
// when missing, with the system metadata `KBC.createdBy.branch.id` and
// `KBC.lastUpdatedBy.branch.id` naming the branch and a `storage.bucketCreated` event of the
// branch; an existing bucket keeps its own metadata (BranchStorageTest
// testCrossBranchStorageMetadata). Each pull records `storage.tableCopyToBucket` in the branch with
// `params: {sourceBucketId, sourceBucketBranch, destinationBucketId, destinationBucketBranch}`. A
// token that may not write the bucket gets 403 "You don't have access to the resource."
// (testTokenWithoutPrivilegesCannotPullTable).
// Not in the public sources, so chosen here: a pull in the default branch is refused (400; the PHP
// client refuses it before sending), a production table that does not exist answers its 404 at
// once, the events' messages, the new bucket's display name and description (production's), and
// that the copied metadata gets new ids and timestamps (as the copy into a new branch does).

const OPERATION = "devBranchTablePull";
const pullWork = z.object({ tableId: z.string() });

/** Copies of metadata entries with new ids and timestamps. */
function copiedMetadata(ctx: EmulatorContext, entries: MetadataEntry[] | undefined): MetadataEntry[] {
  return (entries ?? []).map((m) => ({ ...m, id: String(ctx.nextId("storage.metadata", 19501)), timestamp: nowStorage(ctx) }));
}

/** The branch's copy of a production table (what the job writes). */
function copyTable(ctx: EmulatorContext, source: TableRecord, branchId: number): TableRecord {
  const copy: TableRecord = {
    ...source,
    branchId,
    columns: [...source.columns],
    primaryKey: [...source.primaryKey],
    rows: source.rows.map((r) => r.slice()),
    created: new Date(ctx.now()).toISOString(),
    metadata: copiedMetadata(ctx, source.metadata),
    columnMetadata: Object.fromEntries(Object.entries(source.columnMetadata ?? {}).map(([column, entries]) => [column, copiedMetadata(ctx, entries)])),
  };
  if (source.definition) {
    copy.definition = { primaryKeysNames: [...source.definition.primaryKeysNames], columns: source.definition.columns.map((c) => ({ ...c, definition: { ...c.definition } })) };
  }
  return copy;
}

export function registerBranchPullRoutes(api: StorageApp, ctx: EmulatorContext): void {
  const auth = authenticated(ctx);

  onStorageJob(ctx, OPERATION, (job) => {
    const { tableId } = pullWork.parse(job.work);
    const main = ctx.state.project.defaultBranchId;
    let source: TableRecord;
    try {
      source = requireTable(ctx, main, tableId);
    } catch (err) {
      // Dropped in production after the request.
      if (err instanceof StorageHttpError) throw new JobFailure(err.code ?? "storage.tables.notFound", err.message);
      throw err;
    }
    const sourceBucket = getBucket(ctx, main, source.bucketId);
    const token = job.creatorToken;
    let bucket = getBucket(ctx, job.branchId, source.bucketId);
    if (!bucket) {
      bucket = ensureBucket(ctx, job.branchId, source.bucketId, sourceBucket?.description ?? "");
      if (sourceBucket) bucket.displayName = sourceBucket.displayName;
      const marker = (key: string): MetadataEntry => ({
        id: String(ctx.nextId("storage.metadata", 19501)),
        key,
        value: String(job.branchId),
        provider: "system",
        timestamp: nowStorage(ctx),
      });
      bucket.metadata = [marker(CREATED_BY_BRANCH_KEY), marker("KBC.lastUpdatedBy.branch.id")];
      recordEvent(ctx, { event: "storage.bucketCreated", message: `Created bucket ${bucket.id}`, objectId: bucket.id, objectName: bucket.name, objectType: "bucket", token, branchId: job.branchId });
    }
    const copy = copyTable(ctx, source, job.branchId);
    ctx.state.storage.tables[`${job.branchId}/${tableId}`] = copy;
    recordEvent(ctx, {
      event: "storage.tableCopyToBucket",
      message: `Table ${tableId} copied from the default branch`,
      objectId: tableId,
      objectName: source.name,
      objectType: "table",
      params: { sourceBucketId: source.bucketId, sourceBucketBranch: main, destinationBucketId: bucket.id, destinationBucketBranch: job.branchId },
      token,
      branchId: job.branchId,
    });
    return tableJson(ctx, copy);
  });

  api.post("/tables/:tableId/pull", auth, (c) => {
    const { token, branchId } = c.var;
    const main = ctx.state.project.defaultBranchId;
    if (branchId === main) {
      throw new StorageHttpError(400, "storage.devBranch.pullToDefaultBranch", "A table can be pulled into a development branch only.");
    }
    requireBucketWrite(token);
    const tableId = c.req.param("tableId");
    requireTable(ctx, main, tableId);
    const job = createStorageJob(ctx, token, branchId, OPERATION, { sourceBranchId: main, targetBranchId: branchId }, tableId, { tableId } satisfies z.input<typeof pullWork>);
    return c.json(storageJobJson(ctx, job), 202);
  });
}
