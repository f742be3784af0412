import type { Context } from "hono";
import type { EmulatorContext } from "../core/context";
import { GoaErrors, notFound } from "./errors";
import { isoTime } from "./ids";
import { decode, endpoint, inBranch } from "./request";
import { jsonResponse } from "./respond";
import { activate, idParams, mustExistSink, taskSink } from "./sinks";
import { mustGetSource, pageParams, sourceIdParam, taskSource } from "./sources";
import { nextVersion, sinkKey, sinkVersions, sourceKey, sourceVersions } from "./store";
import { streamState, type SinkRecord, type SourceRecord, type TaskRecord } from "./state";
import { accepted, registerTaskExecutor, startTask, TaskFailure, type TaskSuccess } from "./tasks";
import { afterOffset, versionView } from "./views";

// The versions of sources and sinks: their list, one version's detail and the rollback to one
// (keboola-as-code internal/pkg/service/stream/api/service/{source,sink}.go: List*Versions,
// *VersionDetail, Rollback*Version; the repositories' `*_version.go`). Every save of an object
// keeps its state under its version number (store.ts saveVersions).

/** VersionNumber.String(): ten digits, zero-padded; the version's key in the service's etcd. */
export const paddedVersion = (n: number): string => String(n).padStart(10, "0");

/** `formatAfterID`: an afterId is padded the same way (Go's `%010s`), an empty one stays empty. */
const paddedAfterId = (afterId: string): string => (afterId === "" ? "" : afterId.padStart(10, "0"));

/**
 * The `versionNumber` path parameter as Goa decodes it: strconv.ParseInt (a failure reads as 0),
 * then the minimum 1; both problems are reported together.
 */
function versionNumberParam(c: Context, errs: GoaErrors): number {
  const raw = c.req.param("versionNumber") ?? "";
  const valid = /^[+-]?\d+$/.test(raw);
  if (!valid) errs.invalidFieldType("versionNumber", raw, "integer");
  const value = valid ? Number(raw) : 0;
  if (value < 1) errs.invalidRange("versionNumber", value, 1, true);
  return value;
}

/**
 * The page of versions: those after the padded afterId, ascending. Unlike the other lists, the
 * total counts the versions after afterId, since the service counts with the offset it lists with.
 */
function versionsPage<T extends SourceRecord | SinkRecord>(all: T[], afterId: string, shownAfterId: string, limit: number) {
  const after = all.filter((v) => afterOffset(paddedVersion(v.version.number), paddedAfterId(afterId)));
  const items = after.slice(0, limit);
  const last = items[items.length - 1];
  return {
    versions: items.map((v) => versionView(v.version)),
    page: { limit, totalCount: after.length, afterId: shownAfterId, lastId: last ? paddedVersion(last.version.number) : "" },
  };
}

function sourceVersion(ctx: EmulatorContext, branchId: number, sourceId: string, n: number): SourceRecord {
  const found = sourceVersions(ctx, branchId, sourceId).find((v) => v.version.number === n);
  if (!found) throw notFound("source version", `${sourceId}/${paddedVersion(n)}`, "branch");
  return found;
}

function sinkVersion(ctx: EmulatorContext, branchId: number, sourceId: string, sinkId: string, n: number): SinkRecord {
  const found = sinkVersions(ctx, branchId, sourceId, sinkId).find((v) => v.version.number === n);
  if (!found) throw notFound("sink version", `${sinkId}/${paddedVersion(n)}`, "source");
  return found;
}

// ---- Endpoints ----------------------------------------------------------------------------------

/** `GET .../sources/{sourceId}/versions`: the page shows afterId as it was given. */
export const listSourceVersions = (ctx: EmulatorContext) =>
  endpoint.createHandlers(
    decode((c, errs) => ({ sourceId: sourceIdParam(c, errs), ...pageParams(c, errs) })),
    inBranch(ctx, "read"),
    (c) => {
      const { input, scope } = c.var;
      mustGetSource(ctx, scope.branchId, input.sourceId);
      const all = sourceVersions(ctx, scope.branchId, input.sourceId);
      return jsonResponse(200, versionsPage(all, input.afterId, input.afterId, input.limit));
    },
  );

/** `GET .../sinks/{sinkId}/versions`: the page shows afterId padded (the service passes it so). */
export const listSinkVersions = (ctx: EmulatorContext) =>
  endpoint.createHandlers(
    decode((c, errs) => ({ ...idParams(c, errs), ...pageParams(c, errs) })),
    inBranch(ctx, "read"),
    (c) => {
      const { input, scope } = c.var;
      mustExistSink(ctx, scope.branchId, input.sourceId, input.sinkId);
      const all = sinkVersions(ctx, scope.branchId, input.sourceId, input.sinkId);
      return jsonResponse(200, versionsPage(all, input.afterId, paddedAfterId(input.afterId), input.limit));
    },
  );

export const sourceVersionDetail = (ctx: EmulatorContext) =>
  endpoint.createHandlers(
    decode((c, errs) => ({ sourceId: sourceIdParam(c, errs), number: versionNumberParam(c, errs) })),
    inBranch(ctx, "read"),
    (c) => {
      const { input, scope } = c.var;
      mustGetSource(ctx, scope.branchId, input.sourceId);
      return jsonResponse(200, versionView(sourceVersion(ctx, scope.branchId, input.sourceId, input.number).version));
    },
  );

export const sinkVersionDetail = (ctx: EmulatorContext) =>
  endpoint.createHandlers(
    decode((c, errs) => ({ ...idParams(c, errs), number: versionNumberParam(c, errs) })),
    inBranch(ctx, "read"),
    (c) => {
      const { input, scope } = c.var;
      mustExistSink(ctx, scope.branchId, input.sourceId, input.sinkId);
      return jsonResponse(200, versionView(sinkVersion(ctx, scope.branchId, input.sourceId, input.sinkId, input.number).version));
    },
  );

/** `PUT .../versions/{n}/rollback`: the source and the version must exist, then a task. */
export const rollbackSourceVersion = (ctx: EmulatorContext) =>
  endpoint.createHandlers(
    decode((c, errs) => ({ sourceId: sourceIdParam(c, errs), number: versionNumberParam(c, errs) })),
    inBranch(ctx, "write"),
    (c) => {
      const { input, scope } = c.var;
      mustGetSource(ctx, scope.branchId, input.sourceId);
      sourceVersion(ctx, scope.branchId, input.sourceId, input.number);
      const task = startTask(ctx, {
        type: "rollback.sourceVersion",
        branchId: scope.branchId,
        sourceId: input.sourceId,
        by: scope.auth.by,
        operation: { kind: "rollbackSource", number: input.number },
      });
      return accepted(ctx, task);
    },
  );

export const rollbackSinkVersion = (ctx: EmulatorContext) =>
  endpoint.createHandlers(
    decode((c, errs) => ({ ...idParams(c, errs), number: versionNumberParam(c, errs) })),
    inBranch(ctx, "write"),
    (c) => {
      const { input, scope } = c.var;
      mustExistSink(ctx, scope.branchId, input.sourceId, input.sinkId);
      sinkVersion(ctx, scope.branchId, input.sourceId, input.sinkId, input.number);
      const task = startTask(ctx, {
        type: "rollback.sinkVersion",
        branchId: scope.branchId,
        sourceId: input.sourceId,
        sinkId: input.sinkId,
        by: scope.auth.by,
        operation: { kind: "rollbackSink", number: input.number },
      });
      return accepted(ctx, task);
    },
  );

// ---- Task operations ----------------------------------------------------------------------------
// RollbackVersion: the target version's state, with the switch and deletion state of the latest
// one, as a new version "Rollback to version "<n>".".

function rolledBack<T extends SourceRecord | SinkRecord>(latest: T, target: T, at: string, by: TaskRecord["by"]): T {
  const updated = structuredClone(target);
  delete updated.disabled;
  delete updated.deleted;
  if (latest.disabled) updated.disabled = structuredClone(latest.disabled);
  updated.version = latest.version;
  updated.version = nextVersion(updated, at, by, `Rollback to version "${target.version.number}".`);
  return updated;
}

function rollbackSourceOp(ctx: EmulatorContext, task: TaskRecord, now: number): TaskSuccess {
  if (task.operation.kind !== "rollbackSource") throw new Error("unexpected operation");
  const n = task.operation.number;
  const latest = taskSource(ctx, task);
  const target = sourceVersions(ctx, task.branchId, task.sourceId).find((v) => v.version.number === n);
  if (!target) throw new TaskFailure(`Source version "${task.sourceId}/${paddedVersion(n)}" not found in the branch.`);
  streamState(ctx.state).sources[sourceKey(task.branchId, task.sourceId)] = rolledBack(latest, target, isoTime(now), task.by);
  return { result: "Source version was rolled back successfully." };
}

function rollbackSinkOp(ctx: EmulatorContext, task: TaskRecord, now: number): TaskSuccess {
  if (task.operation.kind !== "rollbackSink") throw new Error("unexpected operation");
  const n = task.operation.number;
  const latest = taskSink(ctx, task);
  const target = sinkVersions(ctx, task.branchId, task.sourceId, latest.sinkId).find((v) => v.version.number === n);
  if (!target) throw new TaskFailure(`Sink version "${latest.sinkId}/${paddedVersion(n)}" not found in the source.`);
  const updated = rolledBack(latest, target, isoTime(now), task.by);
  // A change of an active sink: its table must fit, it gets a new token and a new file.
  if (!updated.disabled) activate(ctx, updated, now, "modification");
  streamState(ctx.state).sinks[sinkKey(task.branchId, task.sourceId, latest.sinkId)] = updated;
  return { result: "Sink version was rolled back successfully." };
}

export function registerVersionTasks(): void {
  registerTaskExecutor("rollbackSource", rollbackSourceOp);
  registerTaskExecutor("rollbackSink", rollbackSinkOp);
}
