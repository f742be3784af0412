import type { EmulatorContext } from "../core/context";
import { notFound } from "./errors";
import { isoTime } from "./ids";
import { decode, endpoint, inBranch } from "./request";
import { jsonResponse } from "./respond";
import { effectiveSettingsValid } from "./settings";
import { activate, idParams } from "./sinks";
import { ensureSinkTable, sinkActivated } from "./sinkstorage";
import { mustGetSource, pageParams, sourceIdParam } from "./sources";
import { activeSource, activeSources, findSink, findSource, MAX_SINKS_PER_SOURCE, MAX_SOURCES_PER_BRANCH, nextVersion, sinkKey, sinksOf } from "./store";
import { streamState, type SinkRecord, type SourceRecord, type TaskRecord } from "./state";
import { accepted, registerTaskExecutor, startTask, TaskFailure, UNKNOWN_ERROR, type TaskSuccess } from "./tasks";
import { paginate, sinkView, sourceView } from "./views";

// Soft-deleted sources and sinks: their lists and their undelete (keboola-as-code
// internal/pkg/service/stream/api/service/{source,sink}.go: ListDeleted*, Undelete*; the
// repositories' `*_undelete.go`). An undeleted object gets a new version "Undeleted to version
// "<n>"." (n: its number when deleted); the sinks deleted together with an undeleted source come
// back with it, keeping their versions. An object that comes back active is activated again.

const deletedSource = (ctx: EmulatorContext, branchId: number, sourceId: string): SourceRecord | undefined => {
  const s = findSource(ctx, branchId, sourceId);
  return s?.deleted ? s : undefined;
};

const deletedSink = (ctx: EmulatorContext, branchId: number, sourceId: string, sinkId: string): SinkRecord | undefined => {
  const s = findSink(ctx, branchId, sourceId, sinkId);
  return s?.deleted ? s : undefined;
};

// ---- Endpoints ----------------------------------------------------------------------------------

/** `GET .../sources/deleted`: the soft-deleted sources, paginated as the active ones. */
export const listDeletedSources = (ctx: EmulatorContext) =>
  endpoint.createHandlers(decode(pageParams), inBranch(ctx, "read"), (c) => {
    const { input, scope } = c.var;
    const deleted = Object.values(streamState(ctx.state).sources).filter((s) => s.branchId === scope.branchId && s.deleted);
    const { page, items } = paginate(deleted, (s) => s.sourceId, input.afterId, input.limit);
    return jsonResponse(200, { projectId: scope.projectId, branchId: scope.branchId, page, sources: items.map((s) => sourceView(ctx, s)) });
  });

/** `GET .../sources/{sourceId}/sinks/deleted`: the source must exist. */
export const listDeletedSinks = (ctx: EmulatorContext) =>
  endpoint.createHandlers(
    decode((c, errs) => ({ sourceId: sourceIdParam(c, errs), ...pageParams(c, errs) })),
    inBranch(ctx, "read"),
    (c) => {
      const { input, scope } = c.var;
      mustGetSource(ctx, scope.branchId, input.sourceId);
      const deleted = sinksOf(ctx, scope.branchId, input.sourceId, true).filter((s) => s.deleted);
      const { page, items } = paginate(deleted, (s) => s.sinkId, input.afterId, input.limit);
      return jsonResponse(200, { projectId: scope.projectId, branchId: scope.branchId, sourceId: input.sourceId, page, sinks: items.map(sinkView) });
    },
  );

export const undeleteSource = (ctx: EmulatorContext) =>
  endpoint.createHandlers(decode((c, errs) => ({ sourceId: sourceIdParam(c, errs) })), inBranch(ctx, "write"), (c) => {
    const { input, scope } = c.var;
    if (!deletedSource(ctx, scope.branchId, input.sourceId)) throw notFound("deleted source", input.sourceId, "branch");
    const task = startTask(ctx, {
      type: "undelete.source",
      branchId: scope.branchId,
      sourceId: input.sourceId,
      by: scope.auth.by,
      operation: { kind: "undeleteSource" },
    });
    return accepted(ctx, task);
  });

/** The source must exist (active), then the deleted sink. */
export const undeleteSink = (ctx: EmulatorContext) =>
  endpoint.createHandlers(decode((c, errs) => idParams(c, errs)), inBranch(ctx, "write"), (c) => {
    const { input, scope } = c.var;
    mustGetSource(ctx, scope.branchId, input.sourceId);
    if (!deletedSink(ctx, scope.branchId, input.sourceId, input.sinkId)) throw notFound("deleted sink", input.sinkId, "source");
    const task = startTask(ctx, {
      type: "undelete.sink",
      branchId: scope.branchId,
      sourceId: input.sourceId,
      sinkId: input.sinkId,
      by: scope.auth.by,
      operation: { kind: "undeleteSink" },
    });
    return accepted(ctx, task);
  });

// ---- Task operations ----------------------------------------------------------------------------

function undeleteSourceOp(ctx: EmulatorContext, task: TaskRecord, now: number): TaskSuccess {
  const source = deletedSource(ctx, task.branchId, task.sourceId);
  if (!source) throw new TaskFailure(`Deleted source "${task.sourceId}" not found in the branch.`);
  if (activeSources(ctx, task.branchId).length + 1 > MAX_SOURCES_PER_BRANCH) {
    throw new TaskFailure(`Source count limit reached in the branch, the maximum is ${MAX_SOURCES_PER_BRANCH}.`);
  }
  // Sinks deleted with the source come back; those enabled are activated (checked first: a sink
  // that cannot be activated fails the whole task).
  const sinks = sinksOf(ctx, task.branchId, task.sourceId, true).filter((s) => s.deleted && !s.deleted.directly);
  const toActivate = source.disabled ? [] : sinks.filter((s) => !s.disabled);
  for (const sink of toActivate) {
    if (!effectiveSettingsValid(source.config, sink.config)) throw new TaskFailure(UNKNOWN_ERROR);
    ensureSinkTable(ctx, sink);
  }
  const at = isoTime(now);
  const number = source.version.number;
  delete source.deleted;
  source.version = nextVersion(source, at, task.by, `Undeleted to version "${number}".`);
  for (const sink of sinks) delete sink.deleted;
  for (const sink of toActivate) sinkActivated(ctx, sink, now, "activation");
  return { result: "Source has been undeleted successfully." };
}

function undeleteSinkOp(ctx: EmulatorContext, task: TaskRecord, now: number): TaskSuccess {
  const sinkId = task.sinkId ?? "";
  const source = activeSource(ctx, task.branchId, task.sourceId);
  if (!source) throw new TaskFailure(`Source "${task.sourceId}" not found in the branch.`);
  const sink = deletedSink(ctx, task.branchId, task.sourceId, sinkId);
  if (!sink) throw new TaskFailure(`Deleted sink "${sinkId}" not found in the source.`);
  if (sinksOf(ctx, task.branchId, task.sourceId).length + 1 > MAX_SINKS_PER_SOURCE) {
    throw new TaskFailure(`Sink count limit reached in the source, the maximum is ${MAX_SINKS_PER_SOURCE}.`);
  }
  // Only a sink deleted by itself is undeleted so; one deleted with its source stays deleted.
  if (!sink.deleted?.directly) return { result: "Sink has been undeleted successfully." };
  const updated = structuredClone(sink);
  delete updated.deleted;
  updated.version = nextVersion(updated, isoTime(now), task.by, `Undeleted to version "${sink.version.number}".`);
  if (!updated.disabled && !source.disabled) activate(ctx, updated, now, "activation");
  streamState(ctx.state).sinks[sinkKey(task.branchId, task.sourceId, sinkId)] = updated;
  return { result: "Sink has been undeleted successfully." };
}

export function registerUndeleteTasks(): void {
  registerTaskExecutor("undeleteSource", undeleteSourceOp);
  registerTaskExecutor("undeleteSink", undeleteSinkOp);
}
