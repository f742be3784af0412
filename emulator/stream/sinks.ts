import type { Context } from "hono";
import type { EmulatorContext } from "../core/context";
import { isOneOf } from "../../keboola/json";
import { STREAM_COLUMN_TYPES } from "../../keboola/stream";
import { alreadyExists, applicationError, badRequest, GoaErrors, notFound } from "./errors";
import { isoTime, normalizeName } from "./ids";
import { templateCompileError } from "../../keboola/stream-mapping";
import { decode, endpoint, inBranch } from "./request";
import { jsonResponse } from "./respond";
import { checkSettingsPatch, dumpSettings, effectiveSettingsValid, mergeSettings } from "./settings";
import { ensureSinkTable, sinkActivated, sinkDeactivated, tableIdError, type SinkSave } from "./sinkstorage";
import { mustGetSource, pageParams, settingsPatchBody } from "./sources";
import { activeSink, activeSource, findSink, MAX_SINKS_PER_SOURCE, nextVersion, sinkKey, sinksOf } from "./store";
import { streamState, type ColumnRecord, type SinkPatch, type SinkRecord, type TaskRecord } from "./state";
import { accepted, registerTaskExecutor, startTask, TaskFailure, TaskLockError, UNKNOWN_ERROR, type TaskSuccess } from "./tasks";
import { decodeBody, throwIf, validateCreateSink, validateIdParam, validateUpdateSink, type MappingBody } from "./validation";
import { paginate, sinkView } from "./views";

// Sink endpoints and the operations of their tasks.

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

export function idParams(c: Context, errs: GoaErrors, withSink = true): { sourceId: string; sinkId: string } {
  const sourceId = c.req.param("sourceId") ?? "";
  validateIdParam(errs, "sourceId", sourceId);
  const sinkId = withSink ? (c.req.param("sinkId") ?? "") : "";
  if (withSink) validateIdParam(errs, "sinkId", sinkId);
  return { sourceId, sinkId };
}

/** The source must exist, then the sink (the real "sink must exist" check). */
export function mustExistSink(ctx: EmulatorContext, branchId: number, sourceId: string, sinkId: string): SinkRecord {
  mustGetSource(ctx, branchId, sourceId);
  return mustGetSinkOnly(ctx, branchId, sourceId, sinkId);
}

/** Only the sink is looked up (a missing source reads as a missing sink). */
function mustGetSinkOnly(ctx: EmulatorContext, branchId: number, sourceId: string, sinkId: string): SinkRecord {
  const sink = activeSink(ctx, branchId, sourceId, sinkId);
  if (!sink) throw notFound("sink", sinkId, "source");
  return sink;
}

/**
 * The mapping of a request: the real service's checks of path and template columns (400), in
 * the order of keboola/keboola-as-code `internal/pkg/service/stream/api/mapper/sink_request.go`
 * (newTableSinkMappingEntity).
 */
function mappingColumns(ctx: EmulatorContext, mapping: MappingBody | null | undefined): ColumnRecord[] {
  const columns = mapping?.columns ?? [];
  return columns.map((c) => {
    // Goa does not validate a null column, and the service's mapper reads its type: a panic.
    if (!c) throw applicationError(ctx, "panicError");
    const name = str(c.name) ?? "";
    // Decoding checked that the type is given and one of the enum.
    if (!isOneOf(STREAM_COLUMN_TYPES, c.type)) throw applicationError(ctx);
    const col: ColumnRecord = { type: c.type, name };
    if (c.primaryKey === true) col.primaryKey = true;
    if (col.type === "path") {
      if (str(c.path) === undefined) throw badRequest(`column "${name}" is missing path`);
      col.path = str(c.path);
      col.rawString = c.rawString === true;
      if (str(c.defaultValue) !== undefined) col.defaultValue = str(c.defaultValue);
    }
    if (col.type === "template") {
      const t = c.template;
      if (!t) throw badRequest(`column "${name}" is missing template`);
      const content = str(t.content) ?? "";
      const error = templateCompileError(content);
      if (error !== undefined) throw badRequest(`column "${name}" template is invalid: ${error}`);
      col.template = { language: str(t.language) ?? "jsonnet", content };
      col.rawString = c.rawString === true;
    }
    return col;
  });
}

function checkTableId(tableId: string): string {
  const error = tableIdError(tableId);
  if (error !== undefined) throw badRequest(`invalid "tableId" value "${tableId}": ${error}`);
  return tableId;
}

function signals(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : [];
}

// ---- Endpoints ----------------------------------------------------------------------------------

/** Decodes the sourceId and sinkId path parameters only. */
const sinkIdInput = decode((c, errs) => idParams(c, errs));

export const createSink = (ctx: EmulatorContext) =>
  endpoint.createHandlers(
    decode(async (c, errs) => {
      const body = await decodeBody(c, "CreateSinkRequestBody");
      throwIf(validateCreateSink(body));
      return { body, sourceId: idParams(c, errs, false).sourceId };
    }),
    inBranch(ctx, "write"),
    (c) => {
      const { input, scope } = c.var;
      const { body, sourceId } = input;
      // Decoding checked that the name is given.
      const name = body.name ?? "";
      const requested = str(body.sinkId);
      const sinkId = normalizeName(requested ? requested : name);
      if (sinkId === "") throw badRequest(`"sinkId" must not be empty`);
      const table = body.table;
      if (!table) throw badRequest(`"table" must be configured for the "table" sink type`);
      const columns = mappingColumns(ctx, table.mapping);
      const tableId = checkTableId(str(table.tableId) ?? "");
      mustGetSource(ctx, scope.branchId, sourceId);
      if (activeSink(ctx, scope.branchId, sourceId, sinkId)) throw alreadyExists("sink", sinkId, "source");
      const sink: SinkRecord = {
        projectId: scope.projectId,
        branchId: scope.branchId,
        sourceId,
        sinkId,
        type: "table",
        name,
        description: str(body.description) ?? "",
        allowedSignals: signals(body.allowedSignals),
        table: { type: "keboola", tableId, mapping: { columns } },
        config: [],
        created: { at: "", by: scope.auth.by },
        version: { number: 0, hash: "", description: "", at: "", by: scope.auth.by },
      };
      try {
        const task = startTask(ctx, {
          type: "create.sink",
          branchId: scope.branchId,
          sourceId,
          sinkId,
          by: scope.auth.by,
          operation: { kind: "createSink", sink },
        });
        return accepted(ctx, task);
      } catch (e) {
        // Only sink creation turns a running task on the same sink into a conflict (with the full key).
        if (e instanceof TaskLockError) throw alreadyExists("sink", `${scope.projectId}/${scope.branchId}/${sourceId}/${sinkId}`, "source");
        throw e;
      }
    },
  );

export const listSinks = (ctx: EmulatorContext) =>
  endpoint.createHandlers(
    decode((c, errs) => ({ sourceId: idParams(c, errs, false).sourceId, ...pageParams(c, errs) })),
    inBranch(ctx, "read"),
    (c) => {
      const { input, scope } = c.var;
      const { sourceId, afterId, limit } = input;
      mustGetSource(ctx, scope.branchId, sourceId);
      const { page, items } = paginate(sinksOf(ctx, scope.branchId, sourceId), (s) => s.sinkId, afterId, limit);
      return jsonResponse(200, {
        projectId: scope.projectId,
        branchId: scope.branchId,
        sourceId,
        page,
        sinks: items.map(sinkView),
      });
    },
  );

export const getSink = (ctx: EmulatorContext) =>
  endpoint.createHandlers(sinkIdInput, inBranch(ctx, "read"), (c) => {
    const { input, scope } = c.var;
    return jsonResponse(200, sinkView(mustExistSink(ctx, scope.branchId, input.sourceId, input.sinkId)));
  });

export const updateSink = (ctx: EmulatorContext) =>
  endpoint.createHandlers(
    decode(async (c, errs) => {
      const body = await decodeBody(c, "UpdateSinkRequestBody");
      throwIf(validateUpdateSink(body));
      return { body, ...idParams(c, errs) };
    }),
    inBranch(ctx, "write"),
    (c) => {
      const { input, scope } = c.var;
      const { body, sourceId, sinkId } = input;
      mustGetSinkOnly(ctx, scope.branchId, sourceId, sinkId);
      const patch: SinkPatch = {};
      if (str(body.name) !== undefined) patch.name = str(body.name);
      if (str(body.description) !== undefined) patch.description = str(body.description);
      // Absent: unchanged; [] clears the filter.
      if (Array.isArray(body.allowedSignals)) patch.allowedSignals = signals(body.allowedSignals);
      const table = body.table;
      if (table) {
        patch.table = {};
        if (table.mapping !== undefined && table.mapping !== null) patch.table.columns = mappingColumns(ctx, table.mapping);
        if (typeof table.tableId === "string") patch.table.tableId = checkTableId(table.tableId);
      }
      const task = startTask(ctx, {
        type: "update.sink",
        branchId: scope.branchId,
        sourceId,
        sinkId,
        by: scope.auth.by,
        operation: { kind: "updateSink", patch, changeDescription: str(body.changeDescription) ?? "Updated." },
      });
      return accepted(ctx, task);
    },
  );

export const deleteSink = (ctx: EmulatorContext) => simpleSinkTask(ctx, "delete.sink", { kind: "deleteSink" });

export const switchSink = (ctx: EmulatorContext, enable: boolean) =>
  simpleSinkTask(ctx, enable ? "enable.sink" : "disable.sink", { kind: enable ? "enableSink" : "disableSink" });

/** A write on an existing sink whose whole effect is its task (delete, disable, enable). */
function simpleSinkTask(
  ctx: EmulatorContext,
  type: "delete.sink" | "enable.sink" | "disable.sink",
  operation: { kind: "deleteSink" | "enableSink" | "disableSink" },
) {
  return endpoint.createHandlers(sinkIdInput, inBranch(ctx, "write"), (c) => {
    const { input, scope } = c.var;
    const { sourceId, sinkId } = input;
    mustExistSink(ctx, scope.branchId, sourceId, sinkId);
    const task = startTask(ctx, { type, branchId: scope.branchId, sourceId, sinkId, by: scope.auth.by, operation });
    return accepted(ctx, task);
  });
}

export const getSinkSettings = (ctx: EmulatorContext) =>
  endpoint.createHandlers(sinkIdInput, inBranch(ctx, "read"), (c) => {
    const { input, scope } = c.var;
    const sink = mustGetSinkOnly(ctx, scope.branchId, input.sourceId, input.sinkId);
    return jsonResponse(200, { settings: dumpSettings(sink.config) });
  });

export const updateSinkSettings = (ctx: EmulatorContext) =>
  endpoint.createHandlers(
    decode(async (c, errs) => ({ ...(await settingsPatchBody(c, "UpdateSinkSettingsRequestBody")), ...idParams(c, errs) })),
    inBranch(ctx, "write"),
    (c) => {
      const { input, scope } = c.var;
      const { patch, changeDescription, sourceId, sinkId } = input;
      mustExistSink(ctx, scope.branchId, sourceId, sinkId);
      const invalid = checkSettingsPatch(patch);
      if (invalid) throw invalid;
      const task = startTask(ctx, {
        type: "update.sinkSettings",
        branchId: scope.branchId,
        sourceId,
        sinkId,
        by: scope.auth.by,
        operation: { kind: "updateSinkSettings", patch, changeDescription: changeDescription ?? "Updated settings." },
      });
      return accepted(ctx, task);
    },
  );

// ---- Task operations ----------------------------------------------------------------------------

export function taskSink(ctx: EmulatorContext, task: TaskRecord): SinkRecord {
  const sink = activeSink(ctx, task.branchId, task.sourceId, task.sinkId ?? "");
  if (!sink) throw new TaskFailure(`Sink "${task.sinkId}" not found in the source.`);
  return sink;
}

/**
 * A sink becomes active or an active one changes: the effective settings must be valid (the real
 * service fails with an error without a user message), the table must fit the mapping; then it
 * gets a new token and a new file (sinkstorage.ts sinkActivated).
 */
export function activate(ctx: EmulatorContext, sink: SinkRecord, now: number, save: SinkSave): void {
  const source = activeSource(ctx, sink.branchId, sink.sourceId);
  if (!effectiveSettingsValid(source?.config ?? [], sink.config)) throw new TaskFailure(UNKNOWN_ERROR);
  ensureSinkTable(ctx, sink);
  sinkActivated(ctx, sink, now, save);
}

function createSinkOp(ctx: EmulatorContext, task: TaskRecord, now: number): TaskSuccess {
  if (task.operation.kind !== "createSink") throw new Error("unexpected operation");
  const input = task.operation.sink;
  const at = isoTime(now);
  if (!activeSource(ctx, task.branchId, task.sourceId)) throw new TaskFailure(`Source "${task.sourceId}" not found in the branch.`);
  if (activeSink(ctx, task.branchId, task.sourceId, input.sinkId)) {
    throw new TaskFailure(`Sink "${input.sinkId}" already exists in the source.`);
  }
  if (sinksOf(ctx, task.branchId, task.sourceId).length + 1 > MAX_SINKS_PER_SOURCE) {
    throw new TaskFailure(`Sink count limit reached in the source, the maximum is ${MAX_SINKS_PER_SOURCE}.`);
  }
  const created: SinkRecord = structuredClone(input);
  created.created = { at, by: task.by };
  // The id of a soft-deleted sink: its creation and version history continue.
  const deleted = findSink(ctx, task.branchId, task.sourceId, input.sinkId);
  if (deleted?.deleted) {
    created.created = deleted.created;
    created.version = deleted.version;
  } else {
    created.version = { number: 0, hash: "", description: "", at, by: task.by };
  }
  activate(ctx, created, now, "activation");
  created.version = nextVersion(created, at, task.by, "New sink.");
  streamState(ctx.state).sinks[sinkKey(task.branchId, task.sourceId, input.sinkId)] = created;
  return { result: "Sink has been created successfully." };
}

function updateSinkOp(ctx: EmulatorContext, task: TaskRecord, now: number): TaskSuccess {
  if (task.operation.kind !== "updateSink") throw new Error("unexpected operation");
  const sink = taskSink(ctx, task);
  const { patch, changeDescription } = task.operation;
  const updated = structuredClone(sink);
  if (patch.name !== undefined) updated.name = patch.name;
  if (patch.description !== undefined) updated.description = patch.description;
  if (patch.allowedSignals !== undefined) updated.allowedSignals = patch.allowedSignals;
  if (patch.table) {
    if (patch.table.columns) updated.table.mapping.columns = patch.table.columns;
    // The real service rebuilds the table part and keeps the table id only when it is given
    // again: an update with `table` but without `tableId` fails.
    if (patch.table.tableId === undefined) throw new TaskFailure(UNKNOWN_ERROR);
    updated.table.tableId = patch.table.tableId;
  }
  if (!updated.disabled) activate(ctx, updated, now, "modification");
  updated.version = nextVersion(updated, isoTime(now), task.by, changeDescription);
  Object.assign(sink, updated);
  return { result: "Sink has been updated successfully." };
}

function deleteSinkOp(ctx: EmulatorContext, task: TaskRecord, now: number): TaskSuccess {
  const sink = taskSink(ctx, task);
  sink.deleted = { at: isoTime(now), by: task.by, directly: true };
  sinkDeactivated(ctx, sink, now);
  return { result: "Sink has been deleted successfully." };
}

function disableSinkOp(ctx: EmulatorContext, task: TaskRecord, now: number): TaskSuccess {
  const sink = taskSink(ctx, task);
  if (!sink.disabled) {
    const at = isoTime(now);
    sink.disabled = { at, by: task.by, reason: "API", directly: true };
    sink.version = nextVersion(sink, at, task.by, "Disabled.");
    sinkDeactivated(ctx, sink, now);
  }
  return { result: "Sink has been disabled successfully." };
}

function enableSinkOp(ctx: EmulatorContext, task: TaskRecord, now: number): TaskSuccess {
  const sink = taskSink(ctx, task);
  // Only a sink disabled directly is enabled (one disabled with its source follows the source).
  if (sink.disabled?.directly) {
    activate(ctx, sink, now, "activation");
    delete sink.disabled;
    sink.version = nextVersion(sink, isoTime(now), task.by, "Enabled.");
  }
  return { result: "Sink has been enabled successfully." };
}

function updateSinkSettingsOp(ctx: EmulatorContext, task: TaskRecord, now: number): TaskSuccess {
  if (task.operation.kind !== "updateSinkSettings") throw new Error("unexpected operation");
  const sink = taskSink(ctx, task);
  const updated = structuredClone(sink);
  updated.config = mergeSettings(sink.config, task.operation.patch);
  if (!updated.disabled) activate(ctx, updated, now, "modification");
  updated.version = nextVersion(updated, isoTime(now), task.by, task.operation.changeDescription);
  Object.assign(sink, updated);
  return { result: "Sink settings have been updated successfully." };
}

export function registerSinkTasks(): void {
  registerTaskExecutor("createSink", createSinkOp);
  registerTaskExecutor("updateSink", updateSinkOp);
  registerTaskExecutor("deleteSink", deleteSinkOp);
  registerTaskExecutor("disableSink", disableSinkOp);
  registerTaskExecutor("enableSink", enableSinkOp);
  registerTaskExecutor("updateSinkSettings", updateSinkSettingsOp);
}
