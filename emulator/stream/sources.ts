import type { Context } from "hono";
import type { EmulatorContext } from "../core/context";
import { isOneOf } from "../../keboola/json";
import { AUTO_DISABLED_WITH_SOURCE, STREAM_SOURCE_TYPES } from "../../keboola/stream";
import { deleteBucket, deleteTable, listTables, parseTableId } from "../storage/tables";
import { alreadyExists, applicationError, badRequest, GoaErrors, notFound } from "./errors";
import { isoTime, newSourceSecret, normalizeName } from "./ids";
import { decode, endpoint, inBranch } from "./request";
import { jsonResponse } from "./respond";
import { checkSettingsPatch, dumpSettings, effectiveSettingsValid, mergeSettings } from "./settings";
import { ensureSinkTable, sinkActivated, sinkDeactivated } from "./sinkstorage";
import {
  activeSource,
  activeSources,
  findSource,
  MAX_SOURCES_PER_BRANCH,
  nextVersion,
  purgeVersions,
  saveVersions,
  sinkKey,
  sinksOf,
  sourceKey,
} from "./store";
import { streamState, type SettingPatchKV, type SourcePatch, type SourceRecord, type TaskRecord } from "./state";
import { accepted, registerTaskExecutor, startTask, TaskFailure, UNKNOWN_ERROR, type TaskSuccess } from "./tasks";
import { decodeBody, throwIf, validateCreateSource, validateIdParam, validateSettingsPatch, validateUpdateSource } from "./validation";
import { paginate, sourceView } from "./views";

// Source endpoints and the operations of their tasks.

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** Path parameter sourceId: validated while decoding (1..48 characters). */
export function sourceIdParam(c: Context, errs: GoaErrors): string {
  const id = c.req.param("sourceId") ?? "";
  validateIdParam(errs, "sourceId", id);
  return id;
}

export function mustGetSource(ctx: EmulatorContext, branchId: number, sourceId: string): SourceRecord {
  const source = activeSource(ctx, branchId, sourceId);
  if (!source) throw notFound("source", sourceId, "branch");
  return source;
}

// ---- Endpoints ----------------------------------------------------------------------------------

/** Decodes the sourceId path parameter only. */
const sourceIdInput = decode((c, errs) => ({ sourceId: sourceIdParam(c, errs) }));

export const createSource = (ctx: EmulatorContext) =>
  endpoint.createHandlers(
    decode(async (c) => {
      const body = await decodeBody(c, "CreateSourceRequestBody");
      throwIf(validateCreateSource(body));
      return body;
    }),
    inBranch(ctx, "write"),
    (c) => {
      const { input: body, scope } = c.var;
      // Decoding checked that the name and the type are given, the type one of the enum.
      const name = body.name ?? "";
      const type = body.type;
      if (!isOneOf(STREAM_SOURCE_TYPES, type)) throw applicationError(ctx);
      const requested = str(body.sourceId);
      const sourceId = normalizeName(requested ? requested : name);
      if (sourceId === "") throw badRequest(`"sourceId" must not be empty`);
      if (activeSource(ctx, scope.branchId, sourceId)) throw alreadyExists("source", sourceId, "branch");
      const source: SourceRecord = {
        projectId: scope.projectId,
        branchId: scope.branchId,
        sourceId,
        type,
        name,
        description: str(body.description) ?? "",
        secret: newSourceSecret(ctx),
        config: [],
        // Filled when the task completes.
        created: { at: "", by: scope.auth.by },
        version: { number: 0, hash: "", description: "", at: "", by: scope.auth.by },
      };
      const task = startTask(ctx, {
        type: "create.source",
        branchId: scope.branchId,
        sourceId,
        by: scope.auth.by,
        operation: { kind: "createSource", source },
      });
      return accepted(ctx, task);
    },
  );

function limitParam(c: Context, errs: GoaErrors): number {
  const raw = c.req.query("limit") ?? "";
  let limit = 100;
  if (raw !== "") {
    limit = /^[+-]?\d+$/.test(raw) ? Number(raw) : 0;
    if (!/^[+-]?\d+$/.test(raw)) errs.invalidFieldType("limit", raw, "integer");
  }
  if (limit < 1) errs.invalidRange("limit", limit, 1, true);
  if (limit > 100) errs.invalidRange("limit", limit, 100, false);
  return limit;
}

export function pageParams(c: Context, errs: GoaErrors): { afterId: string; limit: number } {
  return { afterId: c.req.query("afterId") ?? "", limit: limitParam(c, errs) };
}

export const listSources = (ctx: EmulatorContext) =>
  endpoint.createHandlers(decode(pageParams), inBranch(ctx, "read"), (c) => {
    const { input, scope } = c.var;
    const { page, items } = paginate(activeSources(ctx, scope.branchId), (s) => s.sourceId, input.afterId, input.limit);
    return jsonResponse(200, {
      projectId: scope.projectId,
      branchId: scope.branchId,
      page,
      sources: items.map((s) => sourceView(ctx, s)),
    });
  });

export const getSource = (ctx: EmulatorContext) =>
  endpoint.createHandlers(sourceIdInput, inBranch(ctx, "read"), (c) =>
    jsonResponse(200, sourceView(ctx, mustGetSource(ctx, c.var.scope.branchId, c.var.input.sourceId))),
  );

export const updateSource = (ctx: EmulatorContext) =>
  endpoint.createHandlers(
    decode(async (c, errs) => {
      const body = await decodeBody(c, "UpdateSourceRequestBody");
      throwIf(validateUpdateSource(body));
      return { body, sourceId: sourceIdParam(c, errs) };
    }),
    inBranch(ctx, "write"),
    (c) => {
      const { input, scope } = c.var;
      const { body, sourceId } = input;
      mustGetSource(ctx, scope.branchId, sourceId);
      const patch: SourcePatch = {};
      if (str(body.name) !== undefined) patch.name = str(body.name);
      if (str(body.description) !== undefined) patch.description = str(body.description);
      // Decoding checked that a given type is one of the enum.
      if (isOneOf(STREAM_SOURCE_TYPES, body.type)) patch.type = body.type;
      const task = startTask(ctx, {
        type: "update.source",
        branchId: scope.branchId,
        sourceId,
        by: scope.auth.by,
        operation: { kind: "updateSource", patch, changeDescription: str(body.changeDescription) ?? "Updated." },
      });
      return accepted(ctx, task);
    },
  );

export const deleteSource = (ctx: EmulatorContext) =>
  endpoint.createHandlers(
    decode((c, errs) => {
      const sourceId = sourceIdParam(c, errs);
      const rawCascade = c.req.query("cascade") ?? "";
      let cascade = false;
      if (rawCascade !== "") {
        const parsed = parseGoBool(rawCascade);
        if (parsed === undefined) errs.invalidFieldType("cascade", rawCascade, "boolean");
        else cascade = parsed;
      }
      return { sourceId, cascade };
    }),
    inBranch(ctx, "write"),
    (c) => {
      const { input, scope } = c.var;
      mustGetSource(ctx, scope.branchId, input.sourceId);
      const task = startTask(ctx, {
        type: "delete.source",
        branchId: scope.branchId,
        sourceId: input.sourceId,
        by: scope.auth.by,
        operation: { kind: "deleteSource", cascade: input.cascade },
      });
      return accepted(ctx, task);
    },
  );

/**
 * `POST .../sources/{s}/rotate-secret`: synchronous (no task), 200 with the source. A new 48-character
 * secret for HTTP and OTLP sources; the old one stops working at once; the version description is
 * "Rotated secret." (keboola-as-code `internal/pkg/service/stream/api/service/source.go`
 * RotateSourceSecret, recorded case `test/stream/api/source/rotate-secret-ok`).
 */
export const rotateSourceSecret = (ctx: EmulatorContext) =>
  endpoint.createHandlers(sourceIdInput, inBranch(ctx, "write"), (c) => {
    const { input, scope } = c.var;
    const source = mustGetSource(ctx, scope.branchId, input.sourceId);
    source.secret = newSourceSecret(ctx);
    source.version = nextVersion(source, isoTime(ctx.now()), scope.auth.by, "Rotated secret.");
    saveVersions(ctx, scope.branchId, source.sourceId);
    return jsonResponse(200, sourceView(ctx, source));
  });

/** Go's strconv.ParseBool. */
export function parseGoBool(s: string): boolean | undefined {
  if (["1", "t", "T", "TRUE", "true", "True"].includes(s)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(s)) return false;
  return undefined;
}

export const switchSource = (ctx: EmulatorContext, enable: boolean) =>
  endpoint.createHandlers(sourceIdInput, inBranch(ctx, "write"), (c) => {
    const { input, scope } = c.var;
    mustGetSource(ctx, scope.branchId, input.sourceId);
    const task = startTask(ctx, {
      type: enable ? "enable.source" : "disable.source",
      branchId: scope.branchId,
      sourceId: input.sourceId,
      by: scope.auth.by,
      operation: { kind: enable ? "enableSource" : "disableSource" },
    });
    return accepted(ctx, task);
  });

export const getSourceSettings = (ctx: EmulatorContext) =>
  endpoint.createHandlers(sourceIdInput, inBranch(ctx, "read"), (c) => {
    const source = mustGetSource(ctx, c.var.scope.branchId, c.var.input.sourceId);
    return jsonResponse(200, { settings: dumpSettings(source.config) });
  });

/** Reads a source's or a sink's settings PATCH body: `{changeDescription?, settings?: [{key, value}]}`. */
export async function settingsPatchBody(
  c: Context,
  bodyName: "UpdateSourceSettingsRequestBody" | "UpdateSinkSettingsRequestBody",
): Promise<{ patch: SettingPatchKV[]; changeDescription?: string }> {
  const body = await decodeBody(c, bodyName);
  throwIf(validateSettingsPatch(body));
  const patch = (body.settings ?? []).flatMap((kv) => (kv ? [{ key: String(kv.key), value: kv.value ?? null }] : []));
  return { patch, changeDescription: str(body.changeDescription) };
}

export const updateSourceSettings = (ctx: EmulatorContext) =>
  endpoint.createHandlers(
    decode(async (c, errs) => ({ ...(await settingsPatchBody(c, "UpdateSourceSettingsRequestBody")), sourceId: sourceIdParam(c, errs) })),
    inBranch(ctx, "write"),
    (c) => {
      const { input, scope } = c.var;
      const { patch, changeDescription, sourceId } = input;
      mustGetSource(ctx, scope.branchId, sourceId);
      const invalid = checkSettingsPatch(patch);
      if (invalid) throw invalid;
      const task = startTask(ctx, {
        type: "update.sourceSettings",
        branchId: scope.branchId,
        sourceId,
        by: scope.auth.by,
        operation: { kind: "updateSourceSettings", patch, changeDescription: changeDescription ?? "Updated settings." },
      });
      return accepted(ctx, task);
    },
  );

// ---- Task operations ----------------------------------------------------------------------------

export function taskSource(ctx: EmulatorContext, task: TaskRecord): SourceRecord {
  const source = activeSource(ctx, task.branchId, task.sourceId);
  if (!source) throw new TaskFailure(`Source "${task.sourceId}" not found in the branch.`);
  return source;
}

function createSourceOp(ctx: EmulatorContext, task: TaskRecord, now: number): TaskSuccess {
  if (task.operation.kind !== "createSource") throw new Error("unexpected operation");
  const at = isoTime(now);
  const input = task.operation.source;
  if (activeSource(ctx, task.branchId, input.sourceId)) {
    throw new TaskFailure(`Source "${input.sourceId}" already exists in the branch.`);
  }
  if (activeSources(ctx, task.branchId).length + 1 > MAX_SOURCES_PER_BRANCH) {
    throw new TaskFailure(`Source count limit reached in the branch, the maximum is ${MAX_SOURCES_PER_BRANCH}.`);
  }
  const created: SourceRecord = { ...input, config: [...input.config], created: { at, by: task.by } };
  // Creating the id of a soft-deleted source brings it back: its creation and version history
  // continue, the rest (a new secret included) comes from the request; its sinks stay deleted.
  const deleted = findSource(ctx, task.branchId, input.sourceId);
  if (deleted?.deleted) {
    created.created = deleted.created;
    created.version = deleted.version;
  } else {
    created.version = { number: 0, hash: "", description: "", at, by: task.by };
  }
  delete created.deleted;
  created.version = nextVersion(created, at, task.by, "New source.");
  streamState(ctx.state).sources[sourceKey(task.branchId, input.sourceId)] = created;
  return { result: "Source has been created successfully." };
}

function updateSourceOp(ctx: EmulatorContext, task: TaskRecord, now: number): TaskSuccess {
  if (task.operation.kind !== "updateSource") throw new Error("unexpected operation");
  const source = taskSource(ctx, task);
  const { patch, changeDescription } = task.operation;
  if (patch.name !== undefined) source.name = patch.name;
  if (patch.description !== undefined) source.description = patch.description;
  if (patch.type !== undefined && patch.type !== source.type) {
    // The other type's block (and its secret) is dropped, the new one gets a new secret.
    source.type = patch.type;
    source.secret = newSourceSecret(ctx);
  }
  source.version = nextVersion(source, isoTime(now), task.by, changeDescription);
  return { result: "Source has been updated successfully." };
}

function deleteSourceOp(ctx: EmulatorContext, task: TaskRecord, now: number): TaskSuccess {
  if (task.operation.kind !== "deleteSource") throw new Error("unexpected operation");
  const source = taskSource(ctx, task);
  const at = isoTime(now);
  const state = streamState(ctx.state);
  if (!task.operation.cascade) {
    source.deleted = { at, by: task.by, directly: true };
    for (const sink of sinksOf(ctx, source.branchId, source.sourceId)) {
      sink.deleted = { at, by: task.by, directly: false };
      sinkDeactivated(ctx, sink, now);
    }
    return { result: "Source has been deleted successfully." };
  }
  // Cascade: the source and all its sinks are purged (the id can be reused as new), and the
  // destination tables and their buckets are deleted (a bucket with all its tables).
  const sinks = sinksOf(ctx, source.branchId, source.sourceId, true);
  const buckets = new Set<string>();
  for (const sink of sinks) {
    sinkDeactivated(ctx, sink, now);
    delete state.sinks[sinkKey(sink.branchId, sink.sourceId, sink.sinkId)];
    const parsed = parseTableId(sink.table.tableId);
    deleteTable(ctx, sink.branchId, sink.table.tableId);
    if (parsed) buckets.add(parsed.bucketId);
  }
  for (const bucketId of buckets) {
    for (const table of listTables(ctx, source.branchId, bucketId)) deleteTable(ctx, source.branchId, table.id);
    deleteBucket(ctx, source.branchId, bucketId);
  }
  delete state.sources[sourceKey(source.branchId, source.sourceId)];
  purgeVersions(ctx, source.branchId, source.sourceId);
  return { result: "Source and its destination tables and bucket have been deleted." };
}

function disableSourceOp(ctx: EmulatorContext, task: TaskRecord, now: number): TaskSuccess {
  const source = taskSource(ctx, task);
  if (!source.disabled) {
    const at = isoTime(now);
    source.disabled = { at, by: task.by, reason: "API", directly: true };
    source.version = nextVersion(source, at, task.by, "Disabled.");
    for (const sink of sinksOf(ctx, source.branchId, source.sourceId)) {
      if (sink.disabled) continue;
      sink.disabled = { at, by: task.by, reason: AUTO_DISABLED_WITH_SOURCE, directly: false };
      sinkDeactivated(ctx, sink, now);
    }
  }
  return { result: "Source has been disabled successfully." };
}

function enableSourceOp(ctx: EmulatorContext, task: TaskRecord, now: number): TaskSuccess {
  const source = taskSource(ctx, task);
  if (source.disabled?.directly) {
    const at = isoTime(now);
    // Sinks disabled together with the source are activated again: each needs its table and a token.
    const sinks = sinksOf(ctx, source.branchId, source.sourceId).filter((s) => s.disabled && !s.disabled.directly);
    for (const sink of sinks) {
      if (!effectiveSettingsValid(source.config, sink.config)) throw new TaskFailure(UNKNOWN_ERROR);
      ensureSinkTable(ctx, sink);
    }
    delete source.disabled;
    source.version = nextVersion(source, at, task.by, "Enabled.");
    for (const sink of sinks) {
      delete sink.disabled;
      sinkActivated(ctx, sink, now, "activation");
    }
  }
  return { result: "Source has been enabled successfully." };
}

function updateSourceSettingsOp(ctx: EmulatorContext, task: TaskRecord, now: number): TaskSuccess {
  if (task.operation.kind !== "updateSourceSettings") throw new Error("unexpected operation");
  const source = taskSource(ctx, task);
  source.config = mergeSettings(source.config, task.operation.patch);
  source.version = nextVersion(source, isoTime(now), task.by, task.operation.changeDescription);
  return { result: "Source settings have been updated successfully." };
}

export function registerSourceTasks(): void {
  registerTaskExecutor("createSource", createSourceOp);
  registerTaskExecutor("updateSource", updateSourceOp);
  registerTaskExecutor("deleteSource", deleteSourceOp);
  registerTaskExecutor("disableSource", disableSourceOp);
  registerTaskExecutor("enableSource", enableSourceOp);
  registerTaskExecutor("updateSourceSettings", updateSourceSettingsOp);
}
