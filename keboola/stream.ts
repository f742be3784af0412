// The Stream service's contract, as the provider's client and the emulator both rely on it: the
// shapes of its answers (keboola/keboola-as-code `api/stream/design.go`, recorded cases under
// `test/stream/api`), its limits, and how it derives ids. This layer imports neither the provider
// nor the emulator; both stand on it.

// Stream object ids, derived exactly as the Stream service does (keboola-as-code
// strhelper.NormalizeName), so the id of a source or sink is known at preview.

export const MAX_ID_LENGTH = 48;
export const MAX_NAME_LENGTH = 40;
export const MAX_DESCRIPTION_LENGTH = 4096;
// keboola/keboola-as-code internal/pkg/service/stream/definition/repository/{source,sink}:
// MaxSourcesPerBranch and MaxSinksPerSource (the create task fails past them).
export const MAX_SOURCES_PER_BRANCH = 100;
export const MAX_SINKS_PER_SOURCE = 100;

/** "My Source" -> "my-source", "HTTPEvents" -> "httpevents", "!!weird||id##" -> "weird-id". */
export function normalizeId(input: string): string {
  return input
    .replace(/([A-Z]+)/g, "-$1")
    .replace(/[^a-zA-Z\u00e1-\u017e\u00c1-\u017d0-9]+/g, "-")
    .normalize("NFD")
    .replace(/\p{Mn}/gu, "")
    .normalize("NFC")
    .replace(/^-+|-+$/g, "")
    .toLowerCase();
}

/** Storage table ids: `in|out.c-<bucket>.<table>`. */
export const TABLE_ID_PATTERN = /^(in|out)\.c-[a-zA-Z0-9_-]+\.[a-zA-Z0-9_-]+$/;

export interface StreamTask {
  taskId: string;
  type: string;
  url: string;
  status: "processing" | "success" | "error";
  isFinished: boolean;
  createdAt: string;
  finishedAt?: string;
  duration?: number;
  result?: string;
  error?: string;
  outputs?: { url?: string; projectId?: number; branchId?: number; sourceId?: string; sinkId?: string };
}

/** The body of every error answer; `exceptionId` with 5xx answers and with errors passed on from Storage. */
export interface StreamErrorBody {
  statusCode: number;
  error: string;
  message: string;
  exceptionId?: string;
}

/** Who made a change: `by` of versions, creation, deletion and disabling (design.go `By`). */
export interface StreamBy {
  type: "user" | "system";
  tokenId?: string;
  tokenDesc?: string;
  userId?: string;
  userName?: string;
}

export interface StreamVersion {
  number: number;
  hash: string;
  description: string;
  at: string;
  by: StreamBy;
}

export interface StreamAtBy {
  at: string;
  by: StreamBy;
}

export interface StreamDisabled extends StreamAtBy {
  reason: string;
}

/** The source types (design.go `SourceType` enum). */
export const STREAM_SOURCE_TYPES = ["http", "otlp"] as const;

export interface StreamSource {
  projectId: number;
  branchId: number;
  sourceId: string;
  type: (typeof STREAM_SOURCE_TYPES)[number];
  name: string;
  description: string;
  http?: { url: string };
  otlp?: { url: string; baseUrl: string; secret: string };
  version: StreamVersion;
  created: StreamAtBy;
  deleted?: StreamAtBy;
  disabled?: StreamDisabled;
}

/**
 * The reason the service gives a sink it disabled together with its source
 * (keboola-as-code `internal/pkg/service/stream/definition/repository/sink/sink_disable.go`).
 * Such a sink is not disabled by its own declaration: enabling the source enables it again.
 */
export const AUTO_DISABLED_WITH_SOURCE = "Auto-disabled with the parent source.";

/** Whether a sink is disabled by itself (not only because its source is). */
export const sinkDisabledDirectly = (s: Pick<StreamSink, "disabled">): boolean => !!s.disabled && s.disabled.reason !== AUTO_DISABLED_WITH_SOURCE;

/** The column types of a sink's mapping (design.go `TableColumn.type` enum). */
export const STREAM_COLUMN_TYPES = ["uuid", "datetime", "ip", "body", "headers", "path", "template"] as const;

export type StreamColumn =
  | { type: "uuid" | "datetime" | "ip" | "body" | "headers"; name: string; primaryKey?: boolean }
  | { type: "path"; name: string; path: string; defaultValue?: string; rawString?: boolean; primaryKey?: boolean }
  | { type: "template"; name: string; rawString?: boolean; template: { language: "jsonnet"; content: string }; primaryKey?: boolean };

/**
 * The OTLP signals a sink's `allowedSignals` may name: the service's create and update refuse any
 * other value with goa's enum error (as emulator/stream/validation.ts `signalsCheck` answers it).
 */
export const STREAM_SIGNALS = ["logs", "metrics", "traces"] as const;
export type StreamSignal = (typeof STREAM_SIGNALS)[number];

/**
 * Whether a sink with `allowedSignals` takes a record of `signal`: a record of an HTTP source
 * (signal "") always, an OTLP record when the list is empty or names its signal
 * (keboola-as-code internal/pkg/service/stream/definition/sink_base.go `SignalAccepted`, the one
 * rule of the service's router and its test endpoint).
 */
export function signalAccepted(allowedSignals: readonly string[] | undefined, signal: string): boolean {
  return signal === "" || !allowedSignals || allowedSignals.length === 0 || allowedSignals.includes(signal);
}

export interface StreamSink {
  projectId: number;
  branchId: number;
  sourceId: string;
  sinkId: string;
  type: "table";
  name: string;
  description: string;
  allowedSignals?: string[];
  table?: { type: "keboola"; tableId: string; mapping: { columns: StreamColumn[] } };
  version: StreamVersion;
  created: StreamAtBy;
  deleted?: StreamAtBy;
  disabled?: StreamDisabled;
}

/**
 * The answer of a source's test endpoint (design.go `TestResult`, `TestResultTable`, `TestResultRow`,
 * `TestResultColumn`; recorded in test/stream/api/source/test-mapping/006-test-mapping): per sink
 * that takes the record, its table and the one row, each column's value as the table gets it.
 */
export interface StreamTestResult {
  projectId: number;
  branchId: number;
  sourceId: string;
  tables: Array<{ sinkId: string; tableId: string; rows: Array<{ columns: Array<{ name: string; value: string }> }> }>;
}

/** A page of a list answer (design.go `PaginatedResponse`). */
export interface StreamPage {
  limit: number;
  totalCount: number;
  afterId: string;
  lastId: string;
}

/** The versions of a source or a sink (design.go `EntityVersions`). */
export interface StreamVersions {
  versions: StreamVersion[];
  page: StreamPage;
}

/** The statistics of one storage level, or of all of them (design.go `Level`); sizes in bytes. */
export interface StreamStatisticsLevel {
  firstRecordAt?: string;
  lastRecordAt?: string;
  recordsCount: number;
  compressedSize: number;
  uncompressedSize: number;
}

/** Only the levels holding any record are shown (design.go `Levels`). */
export interface StreamStatisticsLevels {
  local?: StreamStatisticsLevel;
  staging?: StreamStatisticsLevel;
  target?: StreamStatisticsLevel;
}

/** `GET .../statistics/total` (design.go `SinkStatisticsTotalResult`). */
export interface StreamSinkStatisticsTotal {
  total: StreamStatisticsLevel;
  levels: StreamStatisticsLevels;
}

/** A file of a sink (design.go `SinkFile`); `total` is null while the file holds no record. */
export interface StreamSinkFile {
  state: "writing" | "closing" | "importing" | "imported";
  /** The file's id: when it was opened. */
  openedAt: string;
  closingAt?: string;
  importingAt?: string;
  importedAt?: string;
  retryAttempt?: number;
  retryReason?: string;
  retryAfter?: string;
  statistics?: { total: StreamStatisticsLevel | null; levels: StreamStatisticsLevels };
}

/** A sink in the aggregation answer: the sink with its statistics and files. */
export interface StreamAggregatedSink extends StreamSink {
  statistics?: StreamSinkStatisticsTotal & { files: StreamSinkFile[] };
}

/** A source in the aggregation answer (`GET .../aggregation/sources`): the source with its sinks. */
export interface StreamAggregatedSource extends StreamSource {
  sinks: StreamAggregatedSink[];
}

export interface StreamSetting {
  key: string;
  type: string;
  description: string;
  value: unknown;
  defaultValue: unknown;
  overwritten: boolean;
  protected: boolean;
  /** The setting's `validate` tag, where it has one (keboola/settings.ts). */
  validation?: string;
}

export interface SettingPatch {
  key: string;
  value: unknown;
}

/** A sink as the slot preflight needs it: its id and its description (which carries the owner marker). */
export interface SinkEntry {
  sinkId: string;
  description: string;
}
