import { z } from "zod";
import type { EmulatorContext } from "../core/context";
import { authenticated, type StorageApp } from "./auth";
import { list, readBody, readQuery, str } from "./body";
import { StorageHttpError, errors } from "./errors";
import { truthy } from "./format";
import { JobFailure, createStorageJob, onStorageJob, storageJobJson } from "./jobs";
import { requireBucketWrite } from "./permissions";
import { bucketJson, tableJson } from "./representations";
import { deleteBucket, deleteTable, ensureBucket, getBucket, listTables } from "./tables";

// Buckets: list, create, detail, drop (`?force=true` drops the tables too; `?async=true`
// answers 202 with a `bucketDelete` job), and the tables of a bucket.

export function requireBucket(ctx: EmulatorContext, branchId: number, bucketId: string) {
  const bucket = getBucket(ctx, branchId, bucketId);
  if (!bucket) throw errors.bucketNotFound(bucketId, ctx.state.project.id);
  return bucket;
}

function dropBucket(ctx: EmulatorContext, branchId: number, bucketId: string, force: boolean): void {
  const tables = listTables(ctx, branchId, bucketId);
  if (tables.length && !force) {
    throw new StorageHttpError(
      400,
      "buckets.deleteNotEmpty",
      `Only empty buckets can be deleted. There are ${tables.length} tables in the bucket.`,
    );
  }
  for (const t of tables) deleteTable(ctx, branchId, t.id);
  deleteBucket(ctx, branchId, bucketId);
}

/** What a `bucketDelete` job remembers of its request (the job's `work`). */
const bucketDeleteWork = z.object({ bucketId: z.string(), force: z.boolean() });

export function registerBucketRoutes(api: StorageApp, ctx: EmulatorContext): void {
  const auth = authenticated(ctx);
  onStorageJob(ctx, "bucketDelete", (job) => {
    const w = bucketDeleteWork.parse(job.work);
    if (!getBucket(ctx, job.branchId, w.bucketId)) return null;
    try {
      dropBucket(ctx, job.branchId, w.bucketId, w.force);
    } catch (err) {
      if (err instanceof StorageHttpError) throw new JobFailure(err.code ?? "error", err.message);
      throw err;
    }
    return null;
  });

  api.get("/buckets", auth, (c) => {
    const { branchId } = c.var;
    const buckets = Object.values(ctx.state.storage.buckets).filter((b) => b.branchId === branchId);
    return c.json(buckets.map((b) => bucketJson(ctx, b)));
  });

  api.post("/buckets", auth, async (c) => {
    const { token, branchId } = c.var;
    requireBucketWrite(token);
    const { body } = await readBody(c);
    const rawName = str(body.name);
    const stage = str(body.stage) ?? "in";
    if (!rawName) throw new StorageHttpError(400, "storage.buckets.validation", "Invalid parameters - name: This field is missing.");
    if (stage !== "in" && stage !== "out") {
      throw new StorageHttpError(400, "storage.buckets.validation", 'Invalid parameters - stage: The value you selected is not a valid choice.');
    }
    // Storage always prefixes the name with `c-` (name "main" -> id "in.c-main").
    const name = `c-${rawName}`;
    if (!/^c-[A-Za-z0-9_-]+$/.test(name)) {
      throw new StorageHttpError(
        400,
        "storage.buckets.validation",
        "Invalid parameters - name: Only alphanumeric characters dash and underscores are allowed in bucket name.",
      );
    }
    const id = `${stage}.${name}`;
    if (getBucket(ctx, branchId, id)) throw new StorageHttpError(400, "storage.buckets.alreadyExists", `The bucket ${id} already exists.`);
    const bucket = ensureBucket(ctx, branchId, id, str(body.description) ?? "");
    const displayName = str(body.displayName);
    if (displayName) bucket.displayName = displayName;
    return c.json(bucketJson(ctx, bucket), 201);
  });

  api.get("/buckets/:bucketId", auth, (c) => {
    const { branchId } = c.var;
    return c.json(bucketJson(ctx, requireBucket(ctx, branchId, c.req.param("bucketId"))));
  });

  api.delete("/buckets/:bucketId", auth, (c) => {
    const { token, branchId } = c.var;
    requireBucketWrite(token);
    const bucket = requireBucket(ctx, branchId, c.req.param("bucketId"));
    const q = readQuery(c);
    const force = truthy(q.force);
    if (truthy(q.async)) {
      const job = createStorageJob(ctx, token, branchId, "bucketDelete", { params: { idBucket: bucket.id, force } }, null, {
        bucketId: bucket.id,
        force,
      } satisfies z.input<typeof bucketDeleteWork>);
      return c.json(storageJobJson(ctx, job), 202);
    }
    dropBucket(ctx, branchId, bucket.id, force);
    return c.body(null, 204);
  });

  api.get("/buckets/:bucketId/tables", auth, (c) => {
    const { branchId } = c.var;
    const bucket = requireBucket(ctx, branchId, c.req.param("bucketId"));
    const include = list(readQuery(c).include) ?? [];
    return c.json(
      listTables(ctx, branchId, bucket.id).map((t) => {
        const json = tableJson(ctx, t);
        if (!include.includes("columns")) delete json.columns;
        return json;
      }),
    );
  });
}
