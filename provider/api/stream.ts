import type { HttpClient, RetryPolicy } from "./http";
import { notFoundAsUndefined as orUndefined } from "./errors";
import { waitUntilFinished, type PollTiming } from "./tasks";
import type { SettingPatch, SinkEntry, StreamSetting, StreamSignal, StreamSink, StreamSource, StreamTask, StreamTestResult } from "../../keboola/stream";

export { sinkDisabledDirectly } from "../../keboola/stream";
export type { SettingPatch, SinkEntry, StreamColumn, StreamSetting, StreamSink, StreamSource, StreamTask, StreamTestResult } from "../../keboola/stream";

// Typed calls of the Stream API (`/v1`). Every write answers 202 with a task; `runTask` waits
// for it and returns the finished task.

const key = (branch: string, sourceId: string, sinkId?: string) => JSON.stringify([branch, sourceId, sinkId ?? null]);

export class StreamApi {
  /**
   * The sinks of a source as this process knows them: a complete listing the service gave, with
   * the sinks this process has created since added to it (from the moment the create was
   * accepted). Any other write to the source or its sinks by this process, and any create whose
   * outcome is not a success, drops the source's roster, so it never hides a change this process
   * made; the next reader lists again. Only the preflight of a new sink's id reads it (the create
   * itself is guarded by the service's 409 and the owner markers, see stream-create.ts).
   */
  private readonly rosters = new Map<string, Map<string, SinkEntry>>();
  /** Writes to a source or its sinks begun by this process, per source: a listing answered meanwhile is not kept. */
  private readonly writes = new Map<string, number>();
  /** Tasks of writes to sources and sinks in flight: task id -> the object, and whether it is a create. */
  private readonly tasks = new Map<string, { branch: string; sourceId: string; sinkId?: string; create: boolean }>();
  /** Sources and sinks whose create this process sent and whose create task succeeded. */
  private readonly created = new Set<string>();

  constructor(
    private readonly http: HttpClient,
    private readonly baseUrl: string,
    private readonly taskDeadlineSeconds: number,
    private readonly polls: PollTiming = {},
  ) {}

  /** A write to the source or one of its sinks begins: what this process knew of its sinks may change. */
  private writing(branch: string, sourceId: string, keepRoster = false): void {
    const k = key(branch, sourceId);
    this.writes.set(k, (this.writes.get(k) ?? 0) + 1);
    if (!keepRoster) this.rosters.delete(k);
  }

  /**
   * The sinks of a source for the preflight of a new sink: the roster when this process has one,
   * else the service's first page (kept as the roster when complete and no write of this process
   * to the source ran meanwhile). Undefined when the source does not exist.
   */
  async sinkRoster(branch: string, sourceId: string): Promise<{ sinks: SinkEntry[]; totalCount: number } | undefined> {
    const k = key(branch, sourceId);
    const known = this.rosters.get(k);
    if (known) return { sinks: [...known.values()], totalCount: known.size };
    const before = this.writes.get(k) ?? 0;
    const list = await orUndefined(this.listSinks(branch, sourceId, undefined, 100));
    if (!list) return undefined;
    const sinks = list.sinks.map((s) => ({ sinkId: s.sinkId, description: s.description }));
    if (list.page.totalCount <= sinks.length && (this.writes.get(k) ?? 0) === before && !this.rosters.has(k)) {
      this.rosters.set(k, new Map(sinks.map((s) => [s.sinkId, s])));
    }
    return { sinks, totalCount: list.page.totalCount };
  }

  /**
   * Whether this process created the source (or sink) itself in this run (its create was accepted
   * and its task succeeded) and has not written its settings since.
   */
  createdHere(branch: string, sourceId: string, sinkId?: string): boolean {
    return this.created.has(key(branch, sourceId, sinkId));
  }

  private forget(branch: string, sourceId: string, sinkId?: string): void {
    if (sinkId !== undefined) return void this.created.delete(key(branch, sourceId, sinkId));
    // A source deleted (or replaced) takes its sinks with it.
    const prefix = key(branch, sourceId).slice(0, -"null]".length);
    for (const k of this.created) if (k.startsWith(prefix)) this.created.delete(k);
  }

  private call<T>(method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE", path: string, json?: unknown, retry?: RetryPolicy, query?: Record<string, string | number | undefined>) {
    return this.http.request<T>({ service: "stream", baseUrl: this.baseUrl, method, path, json, retry, query }).then((r) => r.body);
  }

  /** Waits for a task returned by a write; throws KeboolaTaskError when it fails. */
  async runTask(task: StreamTask, what: string): Promise<StreamTask> {
    const of = this.tasks.get(task.taskId);
    let ok = false;
    try {
      const finished = await waitUntilFinished(
        task,
        (t) => ({ id: t.taskId, finished: t.isFinished, ok: t.status === "success", message: t.error }),
        (t) => this.call<StreamTask>("GET", `/v1/tasks/${t.taskId}`),
        { ...this.polls, what, deadlineSeconds: this.taskDeadlineSeconds },
      );
      ok = true;
      return finished;
    } finally {
      this.tasks.delete(task.taskId);
      if (of?.create && ok) this.created.add(key(of.branch, of.sourceId, of.sinkId));
      // Another write has now changed what a listing answers (a listing during its task still showed
      // the object as it was); a create that failed, timed out or could not be followed leaves it
      // unknown whether the object exists. Either way the next reader lists again.
      else if (of) this.writing(of.branch, of.sourceId);
    }
  }

  /** A create: its accepted task is remembered (see runTask); any failure drops what was known of the source. */
  private async create(branch: string, sourceId: string, sinkId: string | undefined, send: () => Promise<StreamTask>, entry?: SinkEntry): Promise<StreamTask> {
    this.writing(branch, sourceId, entry !== undefined);
    let task: StreamTask;
    try {
      task = await send();
    } catch (err) {
      this.writing(branch, sourceId);
      throw err;
    }
    this.tasks.set(task.taskId, { branch, sourceId, sinkId, create: true });
    // Accepted: the id is taken from now on (a second create answers 409), so the roster lists it.
    if (entry) this.rosters.get(key(branch, sourceId))?.set(entry.sinkId, entry);
    return task;
  }

  /**
   * Any other write to a source or sink: drops what this process knew of the source's sinks (and,
   * for a delete, that it created them), when it is sent, when it is answered and when its task ends.
   */
  private async other(branch: string, sourceId: string, sinkId: string | undefined, write: () => Promise<StreamTask>, deletes = false): Promise<StreamTask> {
    this.writing(branch, sourceId);
    if (deletes) this.forget(branch, sourceId, sinkId);
    try {
      const task = await write();
      // An answer without a body has no task to follow.
      if (task?.taskId) this.tasks.set(task.taskId, { branch, sourceId, sinkId, create: false });
      return task;
    } finally {
      this.writing(branch, sourceId);
    }
  }

  // Sources
  createSource(branch: string, body: { sourceId: string; type: string; name: string; description?: string }) {
    return this.create(branch, body.sourceId, undefined, () => this.call<StreamTask>("POST", `/v1/branches/${enc(branch)}/sources`, body, "rejected-only"));
  }
  getSource(branch: string, sourceId: string) {
    return this.call<StreamSource>("GET", `/v1/branches/${enc(branch)}/sources/${enc(sourceId)}`);
  }
  findSource(branch: string, sourceId: string) {
    return orUndefined(this.getSource(branch, sourceId));
  }
  listSources(branch: string, afterId?: string, limit = 100) {
    return this.call<{ sources: StreamSource[]; page: { lastId?: string; totalCount: number } }>(
      "GET", `/v1/branches/${enc(branch)}/sources`, undefined, undefined, { afterId, limit });
  }
  updateSource(branch: string, sourceId: string, body: Record<string, unknown>) {
    return this.other(branch, sourceId, undefined, () => this.call<StreamTask>("PATCH", `/v1/branches/${enc(branch)}/sources/${enc(sourceId)}`, body, "idempotent"));
  }
  /**
   * A new ingestion secret for the source, answered synchronously with the source (no task); the
   * old URL stops working at once. Not idempotent: sent once, and an ambiguous failure is settled
   * by the caller reading the source back (keboola-as-code `api/stream/design.go` RotateSourceSecret).
   */
  rotateSourceSecret(branch: string, sourceId: string) {
    return this.call<StreamSource>("POST", `/v1/branches/${enc(branch)}/sources/${enc(sourceId)}/rotate-secret`, undefined, "rejected-only");
  }
  disableSource(branch: string, sourceId: string) {
    return this.other(branch, sourceId, undefined, () => this.call<StreamTask>("PUT", `/v1/branches/${enc(branch)}/sources/${enc(sourceId)}/disable`, undefined, "idempotent"));
  }
  enableSource(branch: string, sourceId: string) {
    return this.other(branch, sourceId, undefined, () => this.call<StreamTask>("PUT", `/v1/branches/${enc(branch)}/sources/${enc(sourceId)}/enable`, undefined, "idempotent"));
  }
  deleteSource(branch: string, sourceId: string) {
    return this.other(branch, sourceId, undefined, () => this.call<StreamTask>("DELETE", `/v1/branches/${enc(branch)}/sources/${enc(sourceId)}`, undefined, "idempotent"), true);
  }

  // Sinks
  createSink(branch: string, sourceId: string, body: Record<string, unknown> & { sinkId: string; description?: string }) {
    return this.create(branch, sourceId, body.sinkId, () => this.call<StreamTask>("POST", `/v1/branches/${enc(branch)}/sources/${enc(sourceId)}/sinks`, body, "rejected-only"), {
      sinkId: body.sinkId,
      description: body.description ?? "",
    });
  }
  getSink(branch: string, sourceId: string, sinkId: string) {
    return this.call<StreamSink>("GET", sinkPath(branch, sourceId, sinkId));
  }
  listSinks(branch: string, sourceId: string, afterId?: string, limit = 100) {
    return this.call<{ sinks: StreamSink[]; page: { lastId?: string; totalCount: number } }>(
      "GET", `/v1/branches/${enc(branch)}/sources/${enc(sourceId)}/sinks`, undefined, undefined, { afterId, limit });
  }
  findSink(branch: string, sourceId: string, sinkId: string) {
    return orUndefined(this.getSink(branch, sourceId, sinkId));
  }
  updateSink(branch: string, sourceId: string, sinkId: string, body: Record<string, unknown>) {
    return this.other(branch, sourceId, sinkId, () => this.call<StreamTask>("PATCH", sinkPath(branch, sourceId, sinkId), body, "idempotent"));
  }
  deleteSink(branch: string, sourceId: string, sinkId: string) {
    return this.other(branch, sourceId, sinkId, () => this.call<StreamTask>("DELETE", sinkPath(branch, sourceId, sinkId), undefined, "idempotent"), true);
  }
  disableSink(branch: string, sourceId: string, sinkId: string) {
    return this.other(branch, sourceId, sinkId, () => this.call<StreamTask>("PUT", `${sinkPath(branch, sourceId, sinkId)}/disable`, undefined, "idempotent"));
  }
  enableSink(branch: string, sourceId: string, sinkId: string) {
    return this.other(branch, sourceId, sinkId, () => this.call<StreamTask>("PUT", `${sinkPath(branch, sourceId, sinkId)}/enable`, undefined, "idempotent"));
  }

  /**
   * One record through every sink of the source, nothing stored (the source's test endpoint): the
   * body as it is with the given headers, and for an OTLP source the record's signal. A record a
   * sink cannot map is refused with 422 (KeboolaApiError). It writes nothing, so it is retried as
   * a read is.
   */
  async testSource(branch: string, sourceId: string, request: { body: string; headers: Record<string, string>; signal?: StreamSignal }): Promise<StreamTestResult> {
    const res = await this.http.request<StreamTestResult>({
      service: "stream",
      baseUrl: this.baseUrl,
      method: "POST",
      path: `/v1/branches/${enc(branch)}/sources/${enc(sourceId)}/test`,
      body: request.body,
      headers: request.headers,
      retry: "idempotent",
      ...(request.signal ? { query: { signal: request.signal } } : {}),
    });
    return res.body;
  }

  // Settings (same keys for a source and a sink)
  getSettings(branch: string, sourceId: string, sinkId?: string) {
    return this.call<{ settings: StreamSetting[] }>("GET", `${settingsOwner(branch, sourceId, sinkId)}/settings`);
  }
  patchSettings(branch: string, sourceId: string, sinkId: string | undefined, settings: SettingPatch[], changeDescription?: string) {
    // Its settings are no longer those of a just created object (see createdHere).
    this.created.delete(key(branch, sourceId, sinkId));
    return this.call<StreamTask>("PATCH", `${settingsOwner(branch, sourceId, sinkId)}/settings`, { changeDescription, settings }, "idempotent");
  }
}

const enc = encodeURIComponent;
const sinkPath = (b: string, s: string, k: string) => `/v1/branches/${enc(b)}/sources/${enc(s)}/sinks/${enc(k)}`;
const settingsOwner = (b: string, s: string, k?: string) =>
  k === undefined ? `/v1/branches/${enc(b)}/sources/${enc(s)}` : sinkPath(b, s, k);
