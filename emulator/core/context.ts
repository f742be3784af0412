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

/**
 * One project's part of the state: everything a request sees through its token. A real stack
 * hosts many projects behind one host and the token decides which (core/dispatch.ts); the
 * emulator keeps each project's data apart in one of these.
 */
export interface ProjectState {
  /** `features`: the project's features (storage/project-features.ts; absent in older state files: the defaults). */
  project: { id: number; name: string; defaultBranchId: number; features?: string[] };
  tokens: TokenRecord[];
  /** The project's operations still to complete (they run stack-wide in `at` order, core/stack.ts). */
  deferred: Deferred[];
  storage: StorageState;
  stream: StreamState;
  queue: QueueState;
  scheduler: SchedulerState;
  /**
   * The Notification service's project subscriptions (project-services/notification.ts); absent
   * until the first subscription is created, and in state files from before the service kept any.
   */
  notification?: NotificationState;
}

/**
 * The emulator's state: the first project's at the top level (as it was before the emulator
 * served more than one, so state files and tests that read `state.storage` keep working), the
 * stack's own parts, and the further projects of the stack.
 */
export interface EmulatorState extends ProjectState {
  version: 1;
  /**
   * Monotonic counters for generated numeric ids, by name: stack-wide, so a configuration, job,
   * file or token id is unique on the host whatever project it belongs to, as Keboola's are.
   */
  counters: Record<string, number>;
  /** The stack's key (see StackShared). */
  encryption: EncryptionState;
  /** How far the emulated clock is ahead of real time, in ms (see core/clock.ts); absent is 0. */
  clockOffsetMs?: number;
  /** The stack's further projects (EmulatorOptions.projects), each with its own data; absent with one project. */
  projects?: ProjectState[];
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
  /**
   * The id of the project the request was served in (core/dispatch.ts): its token's, or for a
   * request that carries none, the project its URL names; absent when it names none (no token or
   * an unknown one, e.g. the Storage index asked without a token).
   */
  projectId?: number;
}

/** A further project of the stack (EmulatorOptions.projects, the command line's `--project`). */
export interface ProjectOptions {
  /** Its numeric id, as tokens/verify answers it (`owner.id`); unique on the emulator. */
  id: number;
  /** Its name (`owner.name`). */
  name: string;
  /** Its master Storage API token; unique on the emulator. */
  token: string;
  /** Its features (`owner.features`); default: storage/project-features.ts. */
  features?: string[];
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
  /** The project's name (`owner.name` of tokens/verify); default "Emulated Project". */
  projectName?: string;
  /** The project's features (`owner.features` of tokens/verify); default: storage/project-features.ts. */
  projectFeatures?: string[];
  /**
   * Further projects on the same host, each with its own master token and data (Storage, Stream,
   * Queue, Scheduler, the project services); a request sees only its token's project. The first
   * project is the one `token`, `limitedToken`, `projectId`, `projectName` and `projectFeatures`
   * describe. Kept in the state file, each project's data under its id.
   */
  projects?: ProjectOptions[];
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

/**
 * What the projects of one emulator share besides the context's mechanisms: the stack's key, and
 * the identity under which stack-wide caches are kept (the object store's bytes, the Storage
 * services' generator: storage/blobs.ts, storage/format.ts).
 */
export interface StackShared {
  /**
   * The stack's encryption key: one a stack, as a real stack has one KMS key; a cipher is bound to
   * its project through its scope, not through a key of the project (encryption/cipher.ts).
   */
  readonly encryption: EncryptionState;
}

/**
 * What every route module gets: its project's state and the shared mechanisms. There is one
 * context a project; every project's services are built on their own (server.ts).
 */
export interface EmulatorContext {
  /** The project's state: a request served with this context sees nothing of another project. */
  readonly state: ProjectState;
  readonly stack: StackShared;
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
  /** Run every due deferred operation of every project now; true when any ran (the state changed). */
  settle(): boolean;
  /** The project's token record for the request's X-StorageApi-Token header, or undefined. */
  tokenOf(c: Context): TokenRecord | undefined;
  /** Persist the whole state, every project's (no-op without a state file). */
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
