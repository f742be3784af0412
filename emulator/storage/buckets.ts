import type { EmulatorContext, JsonValue } from "../core/context";
import { type BucketStage, bucketDisplayNameProblem, bucketIdOf, bucketNameProblem, bucketStageProblem } from "../../keboola/storage";
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

/** `Invalid parameters - <field>: <problem>` (`Invalid data - ...` for the display name), code storage.buckets.validation. */
function validation(kind: "parameters" | "data", field: string, problem: string): StorageHttpError {
  return new StorageHttpError(400, "storage.buckets.validation", `Invalid ${kind} - ${field}: ${problem}`);
}

/**
 * A display name is unique among the buckets of a stage of the branch. (The real message says "in
 * project"; the emulator checks per stage, so `in.c-x` and `out.c-x` may both show `x`.)
 */
function requireUniqueDisplayName(ctx: EmulatorContext, branchId: number, stage: string, displayName: string): void {
  const clash = Object.values(ctx.state.storage.buckets).some((b) => b.branchId === branchId && b.stage === stage && b.displayName === displayName);
  if (clash) throw new StorageHttpError(400, "storage.buckets.alreadyExists", `The display name "${displayName}" already exists in project.`);
}

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

export function registerBucketRoutes(api: StorageApp, ctx: EmulatorContext): void {
  const auth = authenticated(ctx);
  onStorageJob(ctx, "bucketUpdate", (job) => {
    const w = job.work as { bucketId: string; displayName: string | null };
    const bucket = getBucket(ctx, job.branchId, w.bucketId);
    if (!bucket) throw new JobFailure("storage.buckets.notFound", `The bucket "${w.bucketId}" was not found in the project "${ctx.state.project.id}"`);
    if (w.displayName !== null) bucket.displayName = w.displayName;
    return bucketJson(ctx, bucket) as { [key: string]: JsonValue };
  });
  onStorageJob(ctx, "bucketDelete", (job) => {
    const w = job.work as { bucketId: string; force: boolean };
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
    if (rawName === undefined) throw validation("parameters", "name", "This field is missing.");
    const nameProblem = bucketNameProblem(rawName);
    if (nameProblem) throw validation("parameters", "name", nameProblem);
    const stageProblem = bucketStageProblem(stage);
    if (stageProblem) throw validation("parameters", "stage", stageProblem);
    const backend = str(body.backend);
    if (backend !== undefined && backend !== "snowflake" && backend !== "bigquery") {
      throw validation("parameters", "backend", "The value you selected is not a valid choice.");
    }
    const displayName = str(body.displayName) ?? rawName;
    const displayProblem = bucketDisplayNameProblem(displayName);
    if (displayProblem) throw validation("data", "displayName", displayProblem);
    const id = bucketIdOf(stage as BucketStage, rawName);
    if (getBucket(ctx, branchId, id)) throw new StorageHttpError(400, "storage.buckets.alreadyExists", `The bucket ${id} already exists.`);
    requireUniqueDisplayName(ctx, branchId, stage, displayName);
    const bucket = ensureBucket(ctx, branchId, id, str(body.description) ?? "");
    bucket.displayName = displayName;
    return c.json(bucketJson(ctx, bucket), 201);
  });

  api.put("/buckets/:bucketId", auth, async (c) => {
    const { token, branchId } = c.var;
    requireBucketWrite(token);
    const bucket = requireBucket(ctx, branchId, c.req.param("bucketId"));
    const { body } = await readBody(c);
    const displayName = str(body.displayName);
    if (displayName !== undefined) {
      const problem = bucketDisplayNameProblem(displayName);
      if (problem) throw validation("data", "displayName", problem);
      if (displayName !== bucket.displayName) requireUniqueDisplayName(ctx, branchId, bucket.stage, displayName);
    }
    const apply = (): void => {
      if (displayName !== undefined) bucket.displayName = displayName;
    };
    if (truthy(readQuery(c).async)) {
      const job = createStorageJob(ctx, token, branchId, "bucketUpdate", { displayName: displayName ?? null }, null, { bucketId: bucket.id, displayName: displayName ?? null });
      return c.json(storageJobJson(ctx, job), 202);
    }
    apply();
    return c.json(bucketJson(ctx, bucket));
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
      });
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
