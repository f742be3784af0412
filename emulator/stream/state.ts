// The stream service's part of the emulator state: plain JSON, so it can be saved to a file.
//
// Sources and sinks are kept by key, soft-deleted ones included (`deleted` is set), exactly as
// the real service keeps them in its "active" and "deleted" prefixes. Tasks are kept after they
// finish, so their url keeps answering.
import type { STREAM_SOURCE_TYPES, StreamSink, StreamSinkFile } from "../../keboola/stream";
import type { MappingColumn } from "../../keboola/stream-mapping";

/** Who did an operation: `{type: "user", tokenId, tokenDesc, userId, userName}`. */
export interface ByRecord {
  type: "user" | "system";
  tokenId?: string;
  tokenDesc?: string;
  userId?: string;
  userName?: string;
}

export interface AtBy {
  at: string;
  by: ByRecord;
}

export interface VersionRecord {
  number: number;
  /** 16 hex characters. */
  hash: string;
  description: string;
  at: string;
  by: ByRecord;
}

export interface DisabledRecord extends AtBy {
  reason: string;
  /** False when disabled together with the parent source. */
  directly: boolean;
}

export interface DeletedRecord extends AtBy {
  /** False when deleted together with the parent source. */
  directly: boolean;
}

/** One `{key, value}` override, as sent by the client (re-parsed whenever it is read). */
export interface SettingPatchKV {
  key: string;
  value: unknown;
}

export type SourceType = (typeof STREAM_SOURCE_TYPES)[number];

export interface SourceRecord {
  projectId: number;
  branchId: number;
  sourceId: string;
  type: SourceType;
  name: string;
  description: string;
  /** The 48-character secret of the ingestion URL (HTTP and OTLP alike). */
  secret: string;
  config: SettingPatchKV[];
  created: AtBy;
  version: VersionRecord;
  disabled?: DisabledRecord;
  deleted?: DeletedRecord;
}

/** A column as the emulator stores it: the mapping rules' view (keboola/stream-mapping.ts) and its key flag. */
export interface ColumnRecord extends MappingColumn {
  /** Part of the destination table's primary key. */
  primaryKey?: boolean;
}

/** A sink as the emulator keeps it: the service's identity fields (keboola/stream.ts) and its own records. */
export interface SinkRecord extends Pick<StreamSink, "projectId" | "branchId" | "sourceId" | "sinkId" | "type" | "name" | "description"> {
  /** Empty: every signal. */
  allowedSignals: string[];
  table: { type: "keboola"; tableId: string; mapping: { columns: ColumnRecord[] } };
  config: SettingPatchKV[];
  created: AtBy;
  version: VersionRecord;
  disabled?: DisabledRecord;
  deleted?: DeletedRecord;
}

/**
 * The Storage token the real service creates for each active sink
 * (`[_internal] Stream Sink <source-id>/<sink-id>`, write access to the table's bucket).
 * The emulator keeps it here only (it is not a token of the Storage API emulation);
 * it is observable through `GET /_emulator/state`.
 */
export interface SinkTokenRecord {
  tokenId: string;
  token: string;
  description: string;
  bucketId: string;
  created: string;
}

/** What a task does when it completes (arguments captured at request time). */
export type TaskOperation =
  | { kind: "createSource"; source: SourceRecord }
  | { kind: "updateSource"; patch: SourcePatch; changeDescription: string }
  | { kind: "deleteSource"; cascade: boolean }
  | { kind: "disableSource" }
  | { kind: "enableSource" }
  | { kind: "updateSourceSettings"; patch: SettingPatchKV[]; changeDescription: string }
  | { kind: "createSink"; sink: SinkRecord }
  | { kind: "updateSink"; patch: SinkPatch; changeDescription: string }
  | { kind: "deleteSink" }
  | { kind: "disableSink" }
  | { kind: "enableSink" }
  | { kind: "updateSinkSettings"; patch: SettingPatchKV[]; changeDescription: string }
  | { kind: "rollbackSource"; number: number }
  | { kind: "rollbackSink"; number: number }
  | { kind: "undeleteSource" }
  | { kind: "undeleteSink" };

export interface SourcePatch {
  name?: string;
  description?: string;
  type?: SourceType;
}

export interface SinkPatch {
  name?: string;
  description?: string;
  allowedSignals?: string[];
  /** Present when the request had `table`: the real service then rebuilds the table part. */
  table?: { tableId?: string; columns?: ColumnRecord[] };
}

export interface TaskRecord {
  taskId: string;
  type: string;
  createdAt: string;
  finishedAt?: string;
  durationMs?: number;
  result?: string;
  /** User-facing message of a failed task. */
  error?: string;
  outputs?: TaskOutputs;
  /** Key of the object the task works on (`<project>/<branch>/<source>[/<sink>]`): one task at a time. */
  lock: string;
  branchId: number;
  sourceId: string;
  sinkId?: string;
  by: ByRecord;
  operation: TaskOperation;
}

export interface TaskOutputs {
  url: string;
  projectId: number;
  branchId: number;
  sourceId: string;
  sinkId?: string;
}

/** The storage levels of the real service: a record is written locally, uploaded to staging, imported into the table. */
export type StorageLevel = "local" | "staging" | "target";

/**
 * A file of a sink, as the real service's storage keeps it (`storage/file/all/...`): one file at
 * a time is "writing"; it is closed when the sink is deactivated or changed, then imported.
 */
export interface FileRecord extends Omit<StreamSinkFile, "statistics"> {
  branchId: number;
  sourceId: string;
  sinkId: string;
}

/** A statistics value (`statistics.Value`), sizes in bytes. */
export interface StatsValue {
  slicesCount?: number;
  firstRecordAt?: string;
  lastRecordAt?: string;
  recordsCount: number;
  uncompressedSize: number;
  compressedSize: number;
  stagingSize?: number;
}

/** The statistics of one slice of a file at one level (`storage/stats/<level>/.../<file>/<slice>`). */
export interface StatsRecord {
  level: StorageLevel;
  branchId: number;
  sourceId: string;
  sinkId: string;
  /** The file (its openedAt) the slice belongs to. */
  fileOpenedAt: string;
  /** The rest of the key: the volume, the slice and the node. */
  slice: string;
  value: StatsValue;
}

/** The last statistics reset of a sink: what its target level held then (`.../~reset`). */
export interface StatsResetRecord {
  resetAt: string;
  value: StatsValue;
}

export interface StreamState {
  /** Keyed by `<branchId>/<sourceId>`. */
  sources: Record<string, SourceRecord>;
  /** Keyed by `<branchId>/<sourceId>/<sinkId>`. */
  sinks: Record<string, SinkRecord>;
  /**
   * Every saved version of each source, keyed by `<branchId>/<sourceId>`, then by number: the state
   * of its last save with that number (the real service writes the version key on every save of
   * an entity that is not deleted).
   */
  sourceVersions: Record<string, Record<string, SourceRecord>>;
  /** Likewise for sinks, keyed by `<branchId>/<sourceId>/<sinkId>`. */
  sinkVersions: Record<string, Record<string, SinkRecord>>;
  /** Keyed by `<branchId>/<sourceId>/<sinkId>`; absent while the sink is disabled or deleted. */
  sinkTokens: Record<string, SinkTokenRecord>;
  /** Keyed by `<branchId>/<sourceId>/<sinkId>/<openedAt>`. */
  files: Record<string, FileRecord>;
  /** Keyed by `<level>/<branchId>/<sourceId>/<sinkId>/<fileOpenedAt>/<slice>`. */
  stats: Record<string, StatsRecord>;
  /** Keyed by `<branchId>/<sourceId>/<sinkId>`. */
  statsResets: Record<string, StatsResetRecord>;
  /** Keyed by task id. */
  tasks: Record<string, TaskRecord>;
}

export function initialStreamState(): StreamState {
  return {
    sources: {},
    sinks: {},
    sourceVersions: {},
    sinkVersions: {},
    sinkTokens: {},
    files: {},
    stats: {},
    statsResets: {},
    tasks: {},
  };
}

/** Older state files may miss collections added later: they are added, empty. */
export function streamState(state: { stream: Partial<StreamState> }): StreamState {
  const s = state.stream;
  return {
    sources: (s.sources ??= {}),
    sinks: (s.sinks ??= {}),
    sourceVersions: (s.sourceVersions ??= {}),
    sinkVersions: (s.sinkVersions ??= {}),
    sinkTokens: (s.sinkTokens ??= {}),
    files: (s.files ??= {}),
    stats: (s.stats ??= {}),
    statsResets: (s.statsResets ??= {}),
    tasks: (s.tasks ??= {}),
  };
}
