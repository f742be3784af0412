import type { HttpClient, RetryPolicy } from "./http";
import { notFoundAsUndefined as orUndefined } from "./errors";
import { waitUntilFinished } from "./tasks";

// Typed calls of the Stream API (`/v1`). Every write answers 202 with a task; `runTask` waits
// for it and returns the finished task.

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

export interface StreamSource {
  projectId: number;
  branchId: number;
  sourceId: string;
  type: "http" | "otlp";
  name: string;
  description: string;
  http?: { url: string };
  otlp?: { url: string; baseUrl?: string; secret?: string };
  version: { number: number; hash: string; description: string; at: string };
  disabled?: { at: string; reason: string };
  deleted?: { at: string };
}

export type StreamColumn =
  | { type: "uuid" | "datetime" | "ip" | "body" | "headers"; name: string; primaryKey?: boolean }
  | { type: "path"; name: string; path: string; defaultValue?: string; rawString?: boolean; primaryKey?: boolean }
  | { type: "template"; name: string; rawString?: boolean; template: { language: "jsonnet"; content: string }; primaryKey?: boolean };

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
  version: { number: number; hash: string; description: string; at: string };
  disabled?: { at: string; reason: string };
  deleted?: { at: string };
}

export interface StreamSetting {
  key: string;
  type: string;
  description: string;
  value: unknown;
  defaultValue: unknown;
  overwritten: boolean;
  protected: boolean;
}

export interface SettingPatch {
  key: string;
  value: unknown;
}

export class StreamApi {
  constructor(
    private readonly http: HttpClient,
    private readonly baseUrl: string,
    private readonly taskDeadlineSeconds: number,
  ) {}

  private call<T>(method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE", path: string, json?: unknown, retry?: RetryPolicy, query?: Record<string, string | number | undefined>) {
    return this.http.request<T>({ service: "stream", baseUrl: this.baseUrl, method, path, json, retry, query }).then((r) => r.body);
  }

  /** Waits for a task returned by a write; throws KeboolaTaskError when it fails. */
  runTask(task: StreamTask, what: string): Promise<StreamTask> {
    return waitUntilFinished(
      task,
      (t) => ({ id: t.taskId, finished: t.isFinished, ok: t.status === "success", message: t.error }),
      (t) => this.call<StreamTask>("GET", `/v1/tasks/${t.taskId}`),
      { what, deadlineSeconds: this.taskDeadlineSeconds },
    );
  }

  // Sources
  createSource(branch: string, body: { sourceId: string; type: string; name: string; description?: string }) {
    return this.call<StreamTask>("POST", `/v1/branches/${enc(branch)}/sources`, body, "rejected-only");
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
    return this.call<StreamTask>("PATCH", `/v1/branches/${enc(branch)}/sources/${enc(sourceId)}`, body, "idempotent");
  }
  deleteSource(branch: string, sourceId: string) {
    return this.call<StreamTask>("DELETE", `/v1/branches/${enc(branch)}/sources/${enc(sourceId)}`, undefined, "idempotent");
  }

  // Sinks
  createSink(branch: string, sourceId: string, body: Record<string, unknown>) {
    return this.call<StreamTask>("POST", `/v1/branches/${enc(branch)}/sources/${enc(sourceId)}/sinks`, body, "rejected-only");
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
    return this.call<StreamTask>("PATCH", sinkPath(branch, sourceId, sinkId), body, "idempotent");
  }
  deleteSink(branch: string, sourceId: string, sinkId: string) {
    return this.call<StreamTask>("DELETE", sinkPath(branch, sourceId, sinkId), undefined, "idempotent");
  }
  disableSink(branch: string, sourceId: string, sinkId: string) {
    return this.call<StreamTask>("PUT", `${sinkPath(branch, sourceId, sinkId)}/disable`, undefined, "idempotent");
  }
  enableSink(branch: string, sourceId: string, sinkId: string) {
    return this.call<StreamTask>("PUT", `${sinkPath(branch, sourceId, sinkId)}/enable`, undefined, "idempotent");
  }

  // Settings (same keys for a source and a sink)
  getSettings(branch: string, sourceId: string, sinkId?: string) {
    return this.call<{ settings: StreamSetting[] }>("GET", `${settingsOwner(branch, sourceId, sinkId)}/settings`);
  }
  patchSettings(branch: string, sourceId: string, sinkId: string | undefined, settings: SettingPatch[], changeDescription?: string) {
    return this.call<StreamTask>("PATCH", `${settingsOwner(branch, sourceId, sinkId)}/settings`, { changeDescription, settings }, "idempotent");
  }
}

const enc = encodeURIComponent;
const sinkPath = (b: string, s: string, k: string) => `/v1/branches/${enc(b)}/sources/${enc(s)}/sinks/${enc(k)}`;
const settingsOwner = (b: string, s: string, k?: string) =>
  k === undefined ? `/v1/branches/${enc(b)}/sources/${enc(s)}` : sinkPath(b, s, k);
