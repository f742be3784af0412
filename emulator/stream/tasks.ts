import { z } from "zod";
import type { Deferred, EmulatorContext } from "../core/context";
import type { JsonValue } from "../../keboola/json";
import type { StreamTask } from "../../keboola/stream";
import { taskShouldFail } from "../core/faults";
import { isoTime, newTaskId } from "./ids";
import { streamPublicUrls } from "./public-urls";
import { saveVersions } from "./store";
import { jsonResponse } from "./respond";
import { streamState, type ByRecord, type TaskOperation, type TaskOutputs, type TaskRecord } from "./state";

// Asynchronous tasks. A write request validates what the real service validates up front, then
// starts a task that completes after `taskDurationMs` (a deferred operation of the emulator core);
// the change itself is applied only when the task completes, so a created object is not GETtable
// before that. One task at a time per object: a second task on the same object while the first
// runs is refused, like the real service's task lock.

const DEFERRED_OP = "stream.task";

/** Outcome of a task operation. */
export interface TaskSuccess {
  result: string;
  /** Defaults to the outputs of the task's object. */
  outputs?: TaskOutputs;
}

/** A task operation failed: the message is the task's `error` (user-facing message). */
export class TaskFailure extends Error {}

/** The task lock is taken by a running task on the same object. */
export class TaskLockError extends Error {}

export type TaskExecutor = (ctx: EmulatorContext, task: TaskRecord, nowMs: number) => TaskSuccess;

const executors = new Map<TaskOperation["kind"], TaskExecutor>();

export function registerTaskExecutor(kind: TaskOperation["kind"], executor: TaskExecutor): void {
  executors.set(kind, executor);
}

/** The message the real service shows for a failure without a user message (e.g. an internal error). */
export const UNKNOWN_ERROR = "Unknown error";

export function taskOutputs(ctx: EmulatorContext, task: Pick<TaskRecord, "branchId" | "sourceId" | "sinkId">): TaskOutputs {
  const projectId = ctx.state.project.id;
  let url = `${streamPublicUrls(ctx).api}/v1/branches/${task.branchId}/sources/${task.sourceId}`;
  const out: TaskOutputs = { url, projectId, branchId: task.branchId, sourceId: task.sourceId };
  if (task.sinkId !== undefined) {
    url += `/sinks/${task.sinkId}`;
    out.url = url;
    out.sinkId = task.sinkId;
  }
  return out;
}

/** The arguments of a task's deferred run (startTask). */
const taskArgs = z.object({ taskId: z.string() });

function runTask(ctx: EmulatorContext, args: JsonValue, deferred: Deferred): void {
  const { taskId } = taskArgs.parse(args);
  const task = streamState(ctx.state).tasks[taskId];
  if (!task || task.finishedAt) return;
  const now = deferred.at;
  try {
    if (taskShouldFail(ctx.faults(), task.taskId, task.type)) throw new TaskFailure(UNKNOWN_ERROR);
    const executor = executors.get(task.operation.kind);
    if (!executor) throw new Error(`emulator: no executor for stream task ${task.operation.kind}`);
    const outcome = executor(ctx, task, now);
    // What the operation changed is saved: each object's current version keeps its state.
    saveVersions(ctx, task.branchId, task.sourceId);
    task.result = outcome.result;
    task.outputs = outcome.outputs ?? taskOutputs(ctx, task);
  } catch (e) {
    if (!(e instanceof TaskFailure)) throw e;
    task.error = e.message;
  }
  task.finishedAt = isoTime(now);
  task.durationMs = Math.max(0, now - Date.parse(task.createdAt));
}

export function registerTaskRunner(ctx: EmulatorContext): void {
  ctx.onDeferred(DEFERRED_OP, (args, deferred) => runTask(ctx, args, deferred));
}

export interface StartTask {
  /** e.g. "create.source" */
  type: string;
  branchId: number;
  sourceId: string;
  sinkId?: string;
  by: ByRecord;
  operation: TaskOperation;
}

export function lockKey(ctx: EmulatorContext, branchId: number, sourceId: string, sinkId?: string): string {
  const base = `${ctx.state.project.id}/${branchId}/${sourceId}`;
  return sinkId === undefined ? base : `${base}/${sinkId}`;
}

/** Starts a task; throws TaskLockError when another task on the same object is running. */
export function startTask(ctx: EmulatorContext, spec: StartTask): TaskRecord {
  const state = streamState(ctx.state);
  const lock = lockKey(ctx, spec.branchId, spec.sourceId, spec.sinkId);
  if (Object.values(state.tasks).some((t) => t.lock === lock && !t.finishedAt)) {
    throw new TaskLockError(`task already running for "${lock}"`);
  }
  const type = `api.${spec.type}`;
  const createdAt = isoTime(ctx.now());
  const objectPath = [spec.branchId, spec.sourceId, ...(spec.sinkId === undefined ? [] : [spec.sinkId])].join("/");
  const task: TaskRecord = {
    taskId: newTaskId(ctx, type, objectPath, createdAt),
    type,
    createdAt,
    lock,
    branchId: spec.branchId,
    sourceId: spec.sourceId,
    by: spec.by,
    operation: spec.operation,
  };
  if (spec.sinkId !== undefined) task.sinkId = spec.sinkId;
  state.tasks[task.taskId] = task;
  ctx.defer(DEFERRED_OP, { taskId: task.taskId });
  return task;
}

/** The 202 answer of every write: the task just started. */
export function accepted(ctx: EmulatorContext, task: TaskRecord): Response {
  return jsonResponse(202, taskView(ctx, task));
}

export function taskView(ctx: EmulatorContext, task: TaskRecord): StreamTask {
  const view: StreamTask = {
    taskId: task.taskId,
    type: task.type,
    url: `${streamPublicUrls(ctx).api}/v1/tasks/${task.taskId}`,
    status: !task.finishedAt ? "processing" : task.error !== undefined ? "error" : "success",
    isFinished: !!task.finishedAt,
    createdAt: task.createdAt,
  };
  if (task.finishedAt) {
    view.finishedAt = task.finishedAt;
    view.duration = task.durationMs ?? 0;
    if (task.error !== undefined) view.error = task.error;
    else view.result = task.result;
    if (task.outputs) view.outputs = task.outputs;
  }
  return view;
}

export function getTask(ctx: EmulatorContext, taskId: string): TaskRecord | undefined {
  return streamState(ctx.state).tasks[taskId];
}
