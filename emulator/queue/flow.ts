import { isJsonObject, type JsonObject } from "../../keboola/json";
import type { EmulatorContext } from "../core/context";
import type { TokenRecord } from "../core/tokens";
import { findConfig } from "../storage/configurations";
import { exceptionId } from "../storage/errors";
import { colonTime } from "../storage/format";
import { QueueHttpError } from "./errors";
import type { FlowProgress, QueueJobRecord } from "./state";
import {
  FLOW_COMPONENT_IDS,
  FLOW_SUCCESS_MESSAGE,
  flowConfigurationSchema,
  flowProblems,
  flowTaskFailedMessage,
  invalidFlowMessage,
  phaseOrder,
  phaseTasks,
} from "../../keboola/flow";

// Flow jobs: a job of `keboola.flow` or `keboola.orchestrator` with a configuration runs that
// configuration's phases (shape and rules in keboola/flow.ts) instead of a component. When the
// job would finish, it reads its configuration: if the flow breaks a rule the job fails with the
// problems; otherwise its first phase starts. A phase starts a job in the Queue for each of its
// enabled tasks at once (tasks of a phase run in parallel, keboola/connection-docs
// orchestrator/running/index.md), mode `run`, with the flow job's token and branch; each task
// job records its flow as the real Queue does: `parentRunId` the flow's runId, `runId`
// `<flow runId>.<task job id>`, `orchestrationJobId` the flow job's id, `orchestrationTaskId`
// the task's id. When every job of a phase has finished the next phase (by dependsOn, see
// `phaseOrder`) starts; a failed task whose `continueOnFailure` is false fails the flow after its
// phase ends, and no later phase starts (the same docs: "the orchestration did not continue to
// the second phase ... because the first phase had failed"). A task whose job cannot be created
// (configuration missing or disabled) fails as its job would. When the last phase ends without
// such a failure the flow job succeeds, with status `warning` when a task that may fail did (the
// Queue's JobStatus has `warning`, and a job in it counts as successful: isSuccess).

/**
 * How a flow creates its tasks' jobs: jobs.ts createQueueJob, which jobs.ts hands to startFlow
 * and taskJobFinished. jobs.ts runs flow jobs (it calls this module), so this module gets the
 * function passed in rather than importing jobs.ts back. `parentRunId` makes it a child job of
 * that run.
 */
export type CreateTaskJob = (ctx: EmulatorContext, token: TokenRecord, req: TaskJobRequest, parentRunId: string) => QueueJobRecord;

/** The request of a task's job, as a job creation request of the API (jobs.ts JobRequest). */
export interface TaskJobRequest {
  component: string;
  config?: string;
  configData?: JsonObject;
  mode: "run";
  branchId: string;
}

export function runsFlow(job: QueueJobRecord): boolean {
  return job.config !== null && FLOW_COMPONENT_IDS.includes(job.component);
}

function endJob(ctx: EmulatorContext, job: QueueJobRecord, status: "success" | "warning" | "error", result: JsonObject): void {
  const end = ctx.now();
  job.endTime = colonTime(end);
  job.durationSeconds = Math.round((end - (job.startedAtMs ?? end)) / 1000);
  job.status = status;
  job.result = job.flow ? { ...result, ...flowSummary(ctx, job.flow) } : result;
}

/**
 * A flow job's `result.tasks` and `result.phases`, in the fields keboola/keboola-sdk-go reads
 * (pkg/keboola/queue_job.go `JobResultExtended`, `JobTask`, `JobPhase`): each task with its job
 * and that job's status ("skipped" when its phase never ran, "error" when it could not start).
 */
function flowSummary(ctx: EmulatorContext, progress: FlowProgress): JsonObject {
  const statusOf = (t: FlowProgress["tasks"][number]): string =>
    t.jobId ? (ctx.state.queue.jobs[t.jobId]?.status ?? "error") : t.failure !== null ? "error" : "skipped";
  const tasks = progress.tasks.map((t) => ({
    id: t.taskId,
    name: t.name,
    type: "job",
    phase: t.phaseId,
    component: t.componentId,
    status: statusOf(t),
    ...(t.jobId ? { jobId: t.jobId } : {}),
  }));
  const phases = progress.phases.map((p, i) => {
    const failed = progress.tasks.filter((t, k) => t.phaseId === p.id && tasks[k]!.status === "error");
    const status =
      i > progress.phaseIndex ? "skipped" : failed.some((t) => !t.continueOnFailure) ? "error" : failed.length ? "warning" : "success";
    return { id: p.id, name: p.name, status };
  });
  return { tasks, phases };
}

const failedResult = (ctx: EmulatorContext, message: string): JsonObject => ({ message, error: { type: "user", exceptionId: exceptionId(ctx) } });

/** The token a flow's task jobs run with: the flow job's own (a schedule's token is not listed). */
function tokenOf(ctx: EmulatorContext, job: QueueJobRecord): TokenRecord {
  return (
    ctx.state.tokens.find((t) => t.id === job.tokenId) ?? {
      id: job.tokenId,
      token: "",
      description: job.tokenDescription,
      isMasterToken: true,
      canManageBuckets: true,
      canManageTokens: false,
      canReadAllFileUploads: true,
      created: "",
    }
  );
}

/** Called when a flow job would finish: checks its configuration and starts its first phase. */
export function startFlow(ctx: EmulatorContext, job: QueueJobRecord, createJob: CreateTaskJob): void {
  const cfg = findConfig(ctx, Number(job.branchId), job.component, job.config ?? "");
  if (!cfg) return endJob(ctx, job, "error", failedResult(ctx, `Configuration "${job.config}" not found`));
  const parsed = flowConfigurationSchema.safeParse(cfg.configuration);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join(".") || "configuration"}: ${i.message}`).join("; ");
    return endJob(ctx, job, "error", failedResult(ctx, `Invalid flow configuration: ${detail}`));
  }
  const flow = parsed.data;
  const problems = flowProblems(flow);
  if (problems.length) return endJob(ctx, job, "error", failedResult(ctx, invalidFlowMessage(problems)));
  const phases = phaseOrder(flow);
  job.flow = {
    phases: phases.map((p) => ({ id: p.id, name: p.name })),
    phaseIndex: -1,
    tasks: phases.flatMap((p) =>
      phaseTasks(flow, p.id).map((t) => ({
        taskId: t.id,
        name: t.name,
        phaseId: p.id,
        continueOnFailure: t.continueOnFailure,
        componentId: t.task.componentId,
        configId: t.task.configId ?? null,
        // Read from a stored configuration, so JSON (the schema checks only that it is an object).
        configData: isJsonObject(t.task.configData) ? t.task.configData : null,
        jobId: null,
        failure: null,
      })),
    ),
  };
  nextPhase(ctx, job, job.flow, createJob);
}

/** Starts the next phase with tasks, or ends the flow after the last one (`progress` is the job's flow). */
function nextPhase(ctx: EmulatorContext, job: QueueJobRecord, progress: FlowProgress, createJob: CreateTaskJob): void {
  for (;;) {
    progress.phaseIndex++;
    const phase = progress.phases[progress.phaseIndex];
    if (!phase) {
      // Tasks that failed with continueOnFailure leave the flow successful, with a warning.
      const warned = progress.tasks.some((t) => t.failure !== null);
      return endJob(ctx, job, warned ? "warning" : "success", { message: FLOW_SUCCESS_MESSAGE });
    }
    const tasks = progress.tasks.filter((t) => t.phaseId === phase.id);
    if (tasks.length === 0) continue;
    for (const t of tasks) {
      try {
        const child = createJob(
          ctx,
          tokenOf(ctx, job),
          { component: t.componentId, config: t.configId ?? undefined, configData: t.configData ?? undefined, mode: "run", branchId: job.branchId },
          job.runId,
        );
        child.orchestrationJobId = job.id;
        child.orchestrationTaskId = t.taskId;
        t.jobId = child.id;
      } catch (err) {
        if (!(err instanceof QueueHttpError)) throw err;
        t.failure = err.message;
      }
    }
    if (tasks.some((t) => t.jobId !== null)) return;
    // No task of the phase could start: the phase has ended.
    if (phaseEnded(ctx, job, progress)) return;
  }
}

/** After the current phase's jobs have all finished: fails the flow or returns false to go on. */
function phaseEnded(ctx: EmulatorContext, job: QueueJobRecord, progress: FlowProgress): boolean {
  const phase = progress.phases[progress.phaseIndex]!;
  const failed = progress.tasks.find((t) => t.phaseId === phase.id && t.failure !== null && !t.continueOnFailure);
  if (!failed) return false;
  endJob(ctx, job, "error", failedResult(ctx, flowTaskFailedMessage(failed.name, phase.name, failed.jobId, failed.failure ?? "")));
  return true;
}

/** Called when any job finishes: a flow task's job moves its flow on when its phase is done. */
export function taskJobFinished(ctx: EmulatorContext, child: QueueJobRecord, createJob: CreateTaskJob): void {
  const parent = child.orchestrationJobId ? ctx.state.queue.jobs[child.orchestrationJobId] : undefined;
  if (!parent?.flow || parent.status !== "processing") return;
  const progress = parent.flow;
  const task = progress.tasks.find((t) => t.jobId === child.id);
  if (!task) return;
  if (child.status === "error") {
    const message = child.result && typeof child.result.message === "string" ? child.result.message : "The job failed.";
    task.failure = message;
  }
  const phase = progress.phases[progress.phaseIndex];
  const pending = progress.tasks.some((t) => t.phaseId === phase?.id && t.jobId !== null && !isFinished(ctx.state.queue.jobs[t.jobId]));
  if (pending) return;
  if (!phaseEnded(ctx, parent, progress)) nextPhase(ctx, parent, progress, createJob);
}

function isFinished(job: QueueJobRecord | undefined): boolean {
  return !job || ["success", "error", "warning", "cancelled", "terminated"].includes(job.status);
}
