import type { Context } from "hono";
import type { FaultKind, FaultOptions } from "./faults";
import type { Random } from "./random";
import type { TokenRecord } from "./tokens";
import type { StorageState } from "../storage/state";
import type { ComponentSpec } from "../storage/components";
import type { StreamState } from "../stream/state";
import type { QueueState } from "../queue/state";
import type { EncryptionState } from "../encryption/state";
import type { SchedulerState } from "../scheduler/state";
import type { NotificationState } from "../project-services/state";
import type { JsonValue } from "../../keboola/json";

/** An operation that completes later (a stream task, a storage job, a queue job). */
export interface Deferred {
  id: string;
  /** Epoch milliseconds at which it completes. */
  at: number;
  /** Name of the handler registered with `ctx.onDeferred`. */
  op: string;
  args: JsonValue;
}

export interface EmulatorState {
  version: 1;
  /** `features`: the project's features (storage/project-features.ts; absent in older state files: the defaults). */
  project: { id: number; name: string; defaultBranchId: number; features?: string[] };
  tokens: TokenRecord[];
  deferred: Deferred[];
  /** Monotonic counters for generated numeric ids, by name. */
  counters: Record<string, number>;
  storage: StorageState;
  stream: StreamState;
  queue: QueueState;
  encryption: EncryptionState;
  scheduler: SchedulerState;
  /**
   * The Notification service's project subscriptions (project-services/notification.ts); absent
   * until the first subscription is created, and in state files from before the service kept any.
   */
  notification?: NotificationState;
  /** How far the emulated clock is ahead of real time, in ms (see core/clock.ts); absent is 0. */
  clockOffsetMs?: number;
}

/** Whether a request of this method could change something (anything but GET, HEAD and OPTIONS). */
export const isWriteMethod = (method: string): boolean => !["GET", "HEAD", "OPTIONS"].includes(method);

export interface RequestLogEntry {
  method: string;
  /** Path including the query string, as received. */
  path: string;
  /** HTTP status, or 0 when fault injection closed the connection without an answer. */
  status: number;
  at: string;
  /** The fault injected into this request, if any. */
  fault?: FaultKind;
  /** For a lost response: the status of the answer that was processed but never sent. */
  droppedStatus?: number;
}

export interface EmulatorOptions {
  /** Port to listen on; 0 picks a free port. */
  port?: number;
  host?: string;
  /** The master Storage API token. */
  token: string;
  /** Optional non-admin token: no stream writes, no configuration management. */
  limitedToken?: string;
  /** How long async tasks and jobs take, in milliseconds. */
  taskDurationMs?: number;
  /** Save state to this JSON file after every change and load it at start. */
  stateFile?: string;
  projectId?: number;
  /** The project's features (`owner.features` of tokens/verify); default: storage/project-features.ts. */
  projectFeatures?: string[];
  faults?: FaultOptions;
  /** Seed for generated secrets and ids (fault injection has its own seed). */
  seed?: number;
  /**
   * Components to add to the stack's catalog (or to replace there, by id): an id and any fields
   * of the index record, e.g. `{ id: "acme.ex-crm", type: "extractor", name: "CRM" }`. Kept in
   * the state, so a restart from the state file lists them without the option.
   */
  components?: ComponentSpec[];
  /**
   * The public URLs the Stream service writes into its answers (task and object urls, the
   * index's documentation link, sources' ingestion urls), as the real service's
   * STREAM_API_PUBLIC_URL and STREAM_SOURCE_HTTP_PUBLIC_URL settings; by default the emulator's
   * own `urls.stream` and `urls.streamIn`. Requests are still served at the emulator's address.
   */
  streamPublicUrls?: { api?: string; in?: string };
  /**
   * How many bytes of a table's loaded rows the emulator keeps (storage/table-routes.ts
   * MAX_KEPT_BYTES, 64 MB, by default); the rows past them are validated and counted only. Tests
   * lower it to load "more than is kept" without tens of megabytes.
   */
  maxKeptBytes?: number;
}

/** What every route module gets: the state and the shared mechanisms. */
export interface EmulatorContext {
  readonly state: EmulatorState;
  readonly options: Required<Pick<EmulatorOptions, "taskDurationMs">> & EmulatorOptions;
  /** Base URL of the emulator, e.g. http://127.0.0.1:1234 (no trailing slash). */
  readonly baseUrl: () => string;
  /** Public URLs of each service, as listed in the Storage index. */
  readonly urls: () => ServiceUrls;
  readonly random: Random;
  /** The emulated time in epoch ms: real time plus the clock's offset (core/clock.ts). */
  readonly now: () => number;
  /** Next value of a named counter (starts at `start`). */
  nextId(counter: string, start?: number): number;
  /** Schedule an operation; it runs (in `at` order) before the first request handled after `at`. */
  defer(op: string, args: JsonValue, delayMs?: number): Deferred;
  /** Register the handler for a deferred operation. */
  onDeferred(op: string, handler: (args: JsonValue, deferred: Deferred) => void): void;
  /** Run every due deferred operation now; true when any ran (the state changed). */
  settle(): boolean;
  /** The token record for the request's X-StorageApi-Token header, or undefined. */
  tokenOf(c: Context): TokenRecord | undefined;
  /** Persist state (no-op without a state file). */
  save(): void;
  readonly faults: () => FaultOptions;
}

export interface ServiceUrls {
  storage: string;
  stream: string;
  streamIn: string;
  queue: string;
  encryption: string;
  scheduler: string;
  import: string;
  /** Object store emulation for file uploads and downloads. */
  files: string;
  /** Services of the project besides the above (project-services/routes.ts). */
  notification: string;
  dataScience: string;
  editor: string;
}
