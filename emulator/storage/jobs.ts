import { z } from "zod";
import type { EmulatorContext } from "../core/context";
import type { JsonValue } from "../../keboola/json";
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

export type JobRunner<P = undefined> = (job: StorageJobRecord, prepared: P) => StorageJobResults | null;

/** An operation's runner with what its preparation made for the job already given to it. */
type PreparedRun = (job: StorageJobRecord) => StorageJobResults | null;

/**
 * How an operation starts a job when it is due: its preparation, answering the run (or a promise
 * of it). Each operation's prepared value has its own type, so it is bound into the run where
 * that type is known (onStorageJob, onPreparedStorageJob) and is not kept apart from its runner.
 */
type StartJob = (job: StorageJobRecord) => PreparedRun | Promise<PreparedRun>;

const runners = new WeakMap<EmulatorContext, Map<string, StartJob>>();

/** A preparation under way (a promise), by job id; kept in memory only (see registerStorageJobs). */
type Preparing = { done: false } | { done: true; value: PreparedRun } | { done: true; error: unknown };
const preparing = new WeakMap<EmulatorContext, Map<number, Preparing>>();

/** How often a job whose preparation is under way looks again (its finish is deferred again). */
const PREPARE_POLL_MS = 50;

function register(ctx: EmulatorContext, operationName: string, start: StartJob): void {
  let map = runners.get(ctx);
  if (!map) runners.set(ctx, (map = new Map()));
  map.set(operationName, start);
}

/** Registers what a job of an operation does when it runs (an operation with nothing to prepare). */
export function onStorageJob(ctx: EmulatorContext, operationName: string, runner: JobRunner): void {
  register(ctx, operationName, () => (job) => runner(job, undefined));
}

/**
 * Registers what a job of an operation does when it runs, with a preparation: `prepare` runs first,
 * when the job is due, and what it answers (or, for a promise, resolves to) is handed to the runner. A
 * promise keeps the job `processing` until it settles, so heavy work (a load's gunzip and parse)
 * runs without blocking the event loop; a value answered at once finishes the job as before.
 */
export function onPreparedStorageJob<P>(
  ctx: EmulatorContext,
  operationName: string,
  runner: JobRunner<P>,
  prepare: (job: StorageJobRecord) => P | Promise<P>,
): void {
  const withPrepared = (prepared: P): PreparedRun => (job) => runner(job, prepared);
  register(ctx, operationName, (job) => {
    const value = prepare(job);
    return value instanceof Promise ? value.then(withPrepared) : withPrepared(value);
  });
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
    const start = runners.get(ctx)?.get(job.operationName);
    try {
      if (taskShouldFail(ctx.faults(), String(job.id), job.operationName)) {
        job.endTime = nowStorage(ctx);
        const id = exceptionId(ctx);
        throw new JobFailure(
          "APPLICATION_ERROR",
          `Application error. Please contact our support support@keboola.com with following exception id (${id}) and we will look into it.`,
        );
      }
      let run: PreparedRun | undefined;
      if (start) {
        let map = preparing.get(ctx);
        if (!map) preparing.set(ctx, (map = new Map()));
        let entry = map.get(job.id);
        if (!entry) {
          // Started here, when the job is due; after a restart (the promise is gone with the
          // process, the finish still deferred in the state) it starts again.
          const value = start(job);
          if (value instanceof Promise) {
            const pending: Preparing = { done: false };
            map.set(job.id, (entry = pending));
            const jobs = map;
            value.then(
              (v) => jobs.set(job.id, { done: true, value: v }),
              (err: unknown) => jobs.set(job.id, { done: true, error: err }),
            );
          } else entry = { done: true, value };
        }
        if (!entry.done) {
          job.status = "processing";
          ctx.defer("storage.job.finish", { jobId: job.id }, PREPARE_POLL_MS);
          return;
        }
        map.delete(job.id);
        if ("error" in entry) throw entry.error;
        run = entry.value;
      }
      job.endTime = nowStorage(ctx);
      job.results = run ? run(job) : null;
      job.status = "success";
    } catch (err) {
      if (!(err instanceof JobFailure)) throw err;
      job.endTime = nowStorage(ctx);
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
