import { z } from "zod";
import type { EmulatorContext, JsonValue } from "../core/context";
import type { StorageJob, StorageJobResults } from "../../keboola/storage-answers";
import { taskShouldFail } from "../core/faults";
import type { TokenRecord } from "../core/tokens";
import { authenticated, type StorageApp } from "./auth";
import { errors, exceptionId } from "./errors";
import { nowStorage } from "./format";
import { readQuery, str } from "./body";
import type { StorageJobRecord } from "./state";

// Storage jobs: asynchronous operations (table create/import/export, bucket/table drop)
// answer 202 with a job, polled at `GET /v2/storage/jobs/{id}`. A job is `waiting`, then
// `processing` (from the first request after it was created), then `success` with `results`
// or `error` with `error: {code, message, exceptionId}` after `taskDurationMs`. Every effect
// happens in the deferred handlers (lazily, before the next request). Fault injection:
// `failTasks` may name a job id or an operation name (`tableCreate`, `tableImport`, ...).

/** A job ends in error with this code and message (and optional results). */
export class JobFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly results: { [key: string]: JsonValue } | null = null,
  ) {
    super(message);
  }
}

export type JobRunner = (job: StorageJobRecord) => StorageJobResults | null;

const runners = new WeakMap<EmulatorContext, Map<string, JobRunner>>();

/** Registers what a job of an operation does when it runs. */
export function onStorageJob(ctx: EmulatorContext, operationName: string, runner: JobRunner): void {
  let map = runners.get(ctx);
  if (!map) runners.set(ctx, (map = new Map()));
  map.set(operationName, runner);
}

export function createStorageJob(
  ctx: EmulatorContext,
  token: TokenRecord,
  branchId: number,
  operationName: string,
  operationParams: { [key: string]: JsonValue },
  tableId: string | null,
  work: { [key: string]: JsonValue } = {},
): StorageJobRecord {
  const id = ctx.nextId("storage.job", 1000001);
  const job: StorageJobRecord = {
    id,
    branchId,
    status: "waiting",
    tableId,
    operationName,
    operationParams,
    createdTime: nowStorage(ctx),
    startTime: null,
    endTime: null,
    runId: null,
    results: null,
    creatorToken: { id: token.id, description: token.description },
    work,
  };
  ctx.state.storage.jobs[String(id)] = job;
  ctx.defer("storage.job.start", { jobId: id }, 0);
  ctx.defer("storage.job.finish", { jobId: id });
  return job;
}

export function storageJobJson(ctx: EmulatorContext, job: StorageJobRecord): StorageJob {
  const out: StorageJob = {
    id: job.id,
    status: job.status,
    url: `${ctx.baseUrl()}/v2/storage/jobs/${job.id}`,
    tableId: job.tableId,
    operationName: job.operationName,
    operationParams: job.operationParams,
    createdTime: job.createdTime,
    startTime: job.startTime,
    endTime: job.endTime,
    runId: job.runId,
    results: job.results,
    creatorToken: job.creatorToken,
    metrics: { inCompressed: false, inBytes: 0, inBytesUncompressed: 0, outCompressed: false, outBytes: 0, outBytesUncompressed: 0 },
  };
  if (job.error) out.error = job.error;
  return out;
}

/** The arguments of the deferred start and finish of a job (createStorageJob). */
const jobArgs = z.object({ jobId: z.number() });

export function registerStorageJobs(api: StorageApp, ctx: EmulatorContext): void {
  const auth = authenticated(ctx);
  ctx.onDeferred("storage.job.start", (args) => {
    const job = ctx.state.storage.jobs[String(jobArgs.parse(args).jobId)];
    if (!job || job.status !== "waiting") return;
    job.status = "processing";
    job.startTime = nowStorage(ctx);
  });

  ctx.onDeferred("storage.job.finish", (args) => {
    const job = ctx.state.storage.jobs[String(jobArgs.parse(args).jobId)];
    if (!job || job.status === "success" || job.status === "error") return;
    if (!job.startTime) job.startTime = nowStorage(ctx);
    job.endTime = nowStorage(ctx);
    try {
      if (taskShouldFail(ctx.faults(), String(job.id), job.operationName)) {
        const id = exceptionId(ctx);
        throw new JobFailure(
          "APPLICATION_ERROR",
          `Application error. Please contact our support support@keboola.com with following exception id (${id}) and we will look into it.`,
        );
      }
      const runner = runners.get(ctx)?.get(job.operationName);
      job.results = runner ? runner(job) : null;
      job.status = "success";
    } catch (err) {
      if (!(err instanceof JobFailure)) throw err;
      job.status = "error";
      job.results = err.results;
      job.error = { code: err.code, message: err.message, exceptionId: exceptionId(ctx) };
    }
  });

  api.get("/jobs/:jobId", auth, (c) => {
    const job = ctx.state.storage.jobs[c.req.param("jobId")];
    if (!job) throw errors.jobNotFound(c.req.param("jobId"));
    return c.json(storageJobJson(ctx, job));
  });

  api.get("/jobs", auth, (c) => {
    const { branchId } = c.var;
    const q = readQuery(c);
    const limit = Math.max(1, Math.min(1000, Number(str(q.limit) ?? 100) || 100));
    const offset = Math.max(0, Number(str(q.offset) ?? 0) || 0);
    const status = str(q.storage_job_status);
    const jobs = Object.values(ctx.state.storage.jobs)
      .filter((j) => j.branchId === branchId && (!status || j.status === status))
      .sort((a, b) => b.id - a.id)
      .slice(offset, offset + limit);
    return c.json(jobs.map((j) => storageJobJson(ctx, j)));
  });
}
