import { z } from "zod";
import type { EmulatorContext } from "../core/context";
import { isJsonObject, isRecord, type JsonObject } from "../../keboola/json";
import type { QueueJobDetail } from "../../keboola/queue";
import { taskShouldFail } from "../core/faults";
import type { TokenRecord } from "../core/tokens";
import { findConfig } from "../storage/configurations";
import { StorageHttpError, exceptionId } from "../storage/errors";
import { colonTime } from "../storage/format";
import { canAccessComponent } from "../storage/permissions";
import { resolveBranch } from "../storage/auth";
import { QueueHttpError } from "./errors";
import type { QueueJobRecord } from "./state";
import { VariablesError, loadVariables, missingPlaceholdersError, render, resolveLinks, type SharedCodeSource } from "./variables";
import { SHARED_CODE_COMPONENT, rowSharedCodeOf, sharedCodeOf } from "../../keboola/shared-code";
import { CipherTextError, decryptForJob, encryptDocument, type JobCipherScope } from "../encryption/cipher";
import { runsFlow, startFlow, taskJobFinished } from "./flow";
import { APPLICATION_ERROR_MESSAGE, runComponent, type JobInputs } from "./components";

// Queue jobs: created (`created`), then `waiting`, `processing` after half of taskDurationMs,
// and finished after taskDurationMs: the configuration (and its enabled rows, or the
// `configRowIds`) is read, variables are substituted, and the job ends `success` with
// `result.message` "Component processing finished." or `error` with the failure in
// `result.message`. Links to shared code are replaced before variables (see variables.ts). The
// substituted configuration is kept in `state.queue.resolved[<jobId>]`,
// with its `#` values as Storage holds them (ciphers).
//
// Branches: a job's `branchId` (none: the default branch) names the branch whose configuration,
// rows, shared code and variables it runs, as the Queue reads them through a Storage client of
// that branch (keboola/job-queue-internal-api-php-client JobFactory/JobRuntimeResolver.php); an
// unknown branch is Storage's 404 message after "Cannot resolve job parameters: " (400), and the
// job answers the numeric id of the branch it ran in.
//
// Secrets, as the real Queue and runner treat them:
// - At creation, the `#` values of `configData` are encrypted for the component in the project
//   (keboola/job-queue-internal-api-php-client `src/NewJobFactory.php` encrypts the job's data with
//   `JobObjectEncryptor::encrypt`: `encryptForProject`), so the job holds and shows ciphers only.
// - Before the component runs, after variables are substituted, every `#` value of the
//   configuration, its rows and their states is decrypted for the job's component, project,
//   configuration and branch type (keboola/job-runner `src/JobDefinitionFactory.php`
//   `decryptConfiguration`; see encryption/cipher.ts `decryptForJob` for the scopes accepted); a
//   value that does not decrypt fails the job with object-encryptor's message as `result.message`
//   (a user error). What the component got is kept in memory only (`jobInputs`), never in state.
// The component itself is not run: it succeeds, unless components.ts knows what it does with its
// configuration (keboola.runner-config-test).
// Fault injection: `failTasks` may name a job id, `queue.job` or a component id.
// Jobs of keboola.flow / keboola.orchestrator with a configuration run its phases instead (flow.ts).

export interface JobRequest {
  component?: unknown;
  config?: unknown;
  mode?: unknown;
  branchId?: unknown;
  configRowIds?: unknown;
  configData?: unknown;
  tag?: unknown;
  variableValuesId?: unknown;
  variableValuesData?: unknown;
}

function optString(v: unknown): string | null {
  if (v === undefined || v === null || v === "") return null;
  return typeof v === "string" || typeof v === "number" ? String(v) : null;
}

function valuesOf(data: unknown): Array<{ name: string; value: string }> {
  if (!isRecord(data)) return [];
  const values = data.values;
  if (!Array.isArray(values)) return [];
  return values.map((v) => {
    const o = isRecord(v) ? v : {};
    return { name: String(o.name ?? ""), value: o.value === null || o.value === undefined ? "" : String(o.value) };
  });
}

/**
 * Validates the request and creates the job (synchronous checks as the real API makes them at
 * creation); `parentRunId` makes it a child job of that run.
 */
export function createQueueJob(ctx: EmulatorContext, token: TokenRecord, req: JobRequest, parentRunId?: string): QueueJobRecord {
  if (req.component === undefined || req.component === null) {
    throw new QueueHttpError(400, 'The child config "component" under "job" must be configured.');
  }
  const component = optString(req.component);
  if (!component) throw new QueueHttpError(400, 'The path "job.component" cannot contain an empty value, but got "".');
  const mode = optString(req.mode) ?? "run";
  if (!["run", "forceRun", "debug"].includes(mode)) {
    throw new QueueHttpError(400, 'Invalid configuration for path "job.mode": Mode must be one of "run", "forceRun" or "debug".');
  }
  const variableValuesId = optString(req.variableValuesId);
  const values = valuesOf(req.variableValuesData);
  if (variableValuesId && values.length) {
    throw new QueueHttpError(400, 'Provide either "variableValuesId" or "variableValuesData", but not both.');
  }

  let branchId: number;
  try {
    branchId = resolveBranch(ctx, optString(req.branchId) ?? undefined);
  } catch (err) {
    if (err instanceof StorageHttpError) throw new QueueHttpError(400, `Cannot resolve job parameters: ${err.message}`);
    throw err;
  }
  const configId = optString(req.config);
  if (configId) {
    if (!canAccessComponent(token, component)) {
      throw new QueueHttpError(400, "Cannot resolve job parameters: You don't have access to the resource.");
    }
    const cfg = findConfig(ctx, branchId, component, configId);
    if (!cfg) throw new QueueHttpError(400, `Cannot resolve job parameters: Configuration "${configId}" not found`);
    if (cfg.isDisabled && mode !== "forceRun") {
      throw new QueueHttpError(400, `Configuration "${configId}" of component "${component}" is disabled.`);
    }
  }
  const rowIds = Array.isArray(req.configRowIds) ? req.configRowIds.map((x) => String(x)) : [];
  // Any object: a JSON body's or form fields' values are JSON all the way down.
  const configData = isJsonObject(req.configData)
    ? encryptDocument(ctx.stack.encryption.key, { kind: "project", componentId: component, projectId: String(ctx.state.project.id) }, req.configData)
    : null;

  const id = String(ctx.nextId("queue.job", 1000001));
  const job: QueueJobRecord = {
    id,
    // A child job (the X-KBC-RunId header names its parent's runId): `<parent runId>.<id>`
    // (Job Queue API spec, Job.runId; copy in api-evangelist/keboola openapi/keboola-queue-api-openapi.yml).
    runId: parentRunId ? `${parentRunId}.${id}` : id,
    ...(parentRunId ? { parentRunId } : {}),
    branchId: String(branchId),
    projectId: ctx.state.project.id,
    projectName: ctx.state.project.name,
    tokenId: token.id,
    tokenDescription: token.description,
    status: "created",
    desiredStatus: "processing",
    mode,
    component,
    config: configId,
    configData,
    configRowIds: rowIds,
    tag: optString(req.tag) ?? "latest",
    createdTime: colonTime(ctx.now()),
    startTime: null,
    endTime: null,
    durationSeconds: 0,
    result: null,
    variableValuesId,
    variableValuesData: values.length ? { values } : null,
    createdAtMs: ctx.now(),
    startedAtMs: null,
  };
  ctx.state.queue.jobs[id] = job;
  ctx.defer("queue.job.wait", { jobId: id }, 0);
  ctx.defer("queue.job.start", { jobId: id }, Math.floor(ctx.options.taskDurationMs / 2));
  ctx.defer("queue.job.finish", { jobId: id });
  return job;
}

export function queueJobJson(ctx: EmulatorContext, job: QueueJobRecord): QueueJobDetail {
  const finished = ["success", "error", "warning", "cancelled", "terminated"].includes(job.status);
  return {
    id: job.id,
    runId: job.runId,
    parentRunId: job.parentRunId ?? "",
    project: { id: String(job.projectId), name: job.projectName },
    token: { id: job.tokenId, description: job.tokenDescription },
    status: job.status,
    desiredStatus: job.desiredStatus,
    mode: job.mode,
    component: job.component,
    config: job.config,
    configData: job.configData ?? [],
    configRowIds: job.configRowIds.length ? job.configRowIds : null,
    tag: job.tag,
    createdTime: job.createdTime,
    startTime: job.startTime,
    endTime: job.endTime,
    durationSeconds: job.durationSeconds,
    // PHP serializes an empty result as a list.
    result: job.result ?? [],
    usageData: [],
    isFinished: finished,
    isSuccess: finished ? job.status === "success" || job.status === "warning" : null,
    url: `${ctx.urls().queue}/jobs/${job.id}`,
    branchId: job.branchId,
    variableValuesId: job.variableValuesId,
    variableValuesData: job.variableValuesData ?? [],
    backend: [],
    executor: "dind",
    metrics: [],
    behavior: { onError: null },
    parallelism: null,
    // A flow job contains its tasks' jobs (keboola-sdk-go pkg/keboola/queue_job.go `Type`).
    type: runsFlow(job) ? "orchestrationContainer" : "standard",
    orchestrationJobId: job.orchestrationJobId ?? null,
    orchestrationTaskId: job.orchestrationTaskId ?? null,
    onlyOrchestrationTaskIds: null,
    previousJobId: null,
  };
}

class JobError extends Error {
  constructor(
    message: string,
    readonly type: "user" | "application" = "user",
  ) {
    super(message);
  }
}

// In memory only: plain texts never enter the emulator's state, its file or its logs.
const inputsByContext = new WeakMap<EmulatorContext, Map<string, JobInputs>>();

/** The decrypted inputs of the last run of a job, if it got that far. */
export function jobInputs(ctx: EmulatorContext, jobId: string): JobInputs | undefined {
  return inputsByContext.get(ctx)?.get(jobId);
}

/** Decrypts a job's documents as the runner does; a value that does not decrypt fails the job. */
function decryptInputs(ctx: EmulatorContext, job: QueueJobRecord, branchId: number, inputs: JobInputs): JobInputs {
  const scope: JobCipherScope = {
    componentId: job.component,
    projectId: String(job.projectId),
    configId: job.config,
    branchType: branchId === ctx.state.project.defaultBranchId ? "default" : "dev",
  };
  const open = (document: JsonObject): JsonObject => decryptForJob(ctx.stack.encryption.key, scope, document);
  try {
    return {
      configuration: open(inputs.configuration),
      state: open(inputs.state),
      rows: inputs.rows.map((r) => ({ id: r.id, configuration: open(r.configuration), state: open(r.state) })),
    };
  } catch (err) {
    if (err instanceof CipherTextError) throw new JobError(err.message);
    throw err;
  }
}

function keepInputs(ctx: EmulatorContext, jobId: string, inputs: JobInputs): void {
  let byJob = inputsByContext.get(ctx);
  if (!byJob) inputsByContext.set(ctx, (byJob = new Map()));
  byJob.set(jobId, inputs);
}

/** Runs the job: reads its configuration, substitutes variables, decrypts; throws JobError/VariablesError on failure. */
function run(ctx: EmulatorContext, job: QueueJobRecord): string | null {
  const branchId = Number(job.branchId);
  if (!job.config) {
    const configuration = job.configData ?? {};
    const inputs = decryptInputs(ctx, job, branchId, { configuration, state: {}, rows: [] });
    keepInputs(ctx, job.id, inputs);
    ctx.state.queue.resolved[job.id] = { configuration, rows: [], variables: {} };
    runOrFail(job, inputs);
    return null;
  }
  const cfg = findConfig(ctx, branchId, job.component, job.config);
  if (!cfg) throw new JobError(`Configuration "${job.config}" not found`);
  const merged: JsonObject = { ...cfg.configuration, ...(job.configData ?? {}) };
  const sharedCode: SharedCodeSource = {
    sharedCodeRows: (id) => {
      const c = findConfig(ctx, branchId, SHARED_CODE_COMPONENT, id);
      return c ? new Map(c.rows.map((r) => [r.id, r.configuration])) : undefined;
    },
  };
  const rootUse = sharedCodeOf(merged);
  const base = rootUse ? resolveLinks(merged, rootUse, sharedCode) : merged;
  const values = loadVariables(
    base,
    job.variableValuesId,
    job.variableValuesData,
    {
      variablesConfiguration: (id) => findConfig(ctx, branchId, "keboola.variables", id)?.configuration,
      valuesRow: (variablesId, rowId) =>
        findConfig(ctx, branchId, "keboola.variables", variablesId)?.rows.find((r) => r.id === rowId)?.configuration,
    },
  );
  const selected = cfg.rows.filter((r) => (job.configRowIds.length ? job.configRowIds.includes(r.id) : !r.isDisabled));
  if (job.configRowIds.length && selected.length === 0) {
    throw new JobError(`None of rows "${job.configRowIds.join(", ")}" was found.`);
  }
  let configuration = base;
  let rows = selected.map((r) => {
    const use = rowSharedCodeOf(merged, r.configuration);
    return { id: r.id, configuration: use ? resolveLinks(r.configuration, use, sharedCode) : r.configuration };
  });
  if (values) {
    const missing: string[] = [];
    configuration = render(base, values, missing);
    rows = rows.map((r) => ({ id: r.id, configuration: render(r.configuration, values, missing) }));
    if (missing.length) throw missingPlaceholdersError(missing);
  }
  const states = new Map(selected.map((r) => [r.id, r.state ?? {}]));
  const inputs = decryptInputs(ctx, job, branchId, {
    configuration,
    state: cfg.state ?? {},
    rows: rows.map((r) => ({ ...r, state: states.get(r.id) ?? {} })),
  });
  keepInputs(ctx, job.id, inputs);
  ctx.state.queue.resolved[job.id] = { configuration, rows, variables: values ?? {} };
  runOrFail(job, inputs);
  return String(cfg.version);
}

/** The component runs on what it got (components.ts); its failure fails the job. */
function runOrFail(job: QueueJobRecord, inputs: JobInputs): void {
  const failure = runComponent(job.component, inputs);
  if (failure) throw new JobError(failure.message, failure.type);
}

/** The arguments of a job's deferred steps (createQueueJob). */
const jobArgs = z.object({ jobId: z.string() });

export function registerQueueJobHandlers(ctx: EmulatorContext): void {
  const jobOf = (args: unknown): QueueJobRecord | undefined => ctx.state.queue.jobs[jobArgs.parse(args).jobId];

  ctx.onDeferred("queue.job.wait", (args) => {
    const job = jobOf(args);
    if (job && job.status === "created") job.status = "waiting";
  });

  ctx.onDeferred("queue.job.start", (args) => {
    const job = jobOf(args);
    if (!job || (job.status !== "created" && job.status !== "waiting")) return;
    job.status = "processing";
    job.startedAtMs = ctx.now();
    job.startTime = colonTime(job.startedAtMs);
  });

  ctx.onDeferred("queue.job.finish", (args) => {
    const job = jobOf(args);
    if (!job || job.status === "success" || job.status === "error") return;
    if (job.startedAtMs === null) {
      job.startedAtMs = ctx.now();
      job.startTime = colonTime(job.startedAtMs);
    }
    // A flow job runs its phases' task jobs (flow.ts) and ends when they have.
    if (runsFlow(job)) {
      if (!job.flow && !(taskShouldFail(ctx.faults(), job.id, "queue.job") || taskShouldFail(ctx.faults(), job.id, job.component))) {
        startFlow(ctx, job, createQueueJob);
        return;
      }
      if (job.flow) return;
    }
    const end = ctx.now();
    job.endTime = colonTime(end);
    job.durationSeconds = Math.round((end - job.startedAtMs) / 1000);
    try {
      const faults = ctx.faults();
      if (taskShouldFail(faults, job.id, "queue.job") || taskShouldFail(faults, job.id, job.component)) {
        throw new JobError(APPLICATION_ERROR_MESSAGE, "application");
      }
      const configVersion = run(ctx, job);
      job.status = "success";
      job.result = {
        message: "Component processing finished.",
        configVersion,
        images: [],
        input: { tables: [] },
        output: { tables: [] },
      };
    } catch (err) {
      if (!(err instanceof JobError) && !(err instanceof VariablesError)) throw err;
      job.status = "error";
      const type = err instanceof JobError ? err.type : "user";
      job.result = { message: err.message, error: { type, exceptionId: exceptionId(ctx) } };
    }
    taskJobFinished(ctx, job, createQueueJob);
  });
}
