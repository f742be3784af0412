import { HttpClient, type HttpOptions } from "./http";
import { StorageApi } from "./storage";
import { StreamApi } from "./stream";
import { QueueApi } from "./queue";
import { EncryptionApi } from "./encryption";
import { SchedulerApi } from "./scheduler";
import type { PollTiming } from "./tasks";
import type { TokenInfo } from "./storage";
import { ProjectGuardError } from "./errors";

// The client for one stack: Storage at the configured host, Stream and Queue discovered from
// the Storage index (as the official clients do) unless overridden.

export interface ClientSettings {
  host: string;
  token: string;
  streamUrl?: string;
  queueUrl?: string;
  encryptionUrl?: string;
  schedulerUrl?: string;
  /** Deadline for one async task or job, in seconds. */
  taskTimeoutSeconds: number;
  http?: Omit<HttpOptions, "token">;
  /** Poll timing of tasks and jobs (tests against the emulator poll sooner); defaults suit a real stack. */
  polls?: PollTiming;
  /** The project the token must belong to (keboola:projectId): verified before any other request. */
  projectId?: number;
}

export class KeboolaClient {
  readonly http: HttpClient;
  readonly storage: StorageApi;
  private services?: Promise<{ stream: StreamApi; queue: QueueApi; encryption?: EncryptionApi; scheduler?: SchedulerApi }>;

  constructor(private readonly settings: ClientSettings) {
    // A guarded client's every request waits for the verdict, whoever sends it: no path of any
    // kind, lookup or command can read or write before the token's project is verified.
    this.http = new HttpClient({ ...settings.http, token: settings.token }, settings.projectId === undefined ? undefined : () => this.verifyProject());
    this.storage = new StorageApi(this.http, settings.host, settings.taskTimeoutSeconds, settings.polls);
  }

  /**
   * The project guard (keboola:projectId): resolves when the token belongs to the project the
   * settings name (at once when they name none), and fails with both projects when it does not.
   * Asked once per process per settings (the verdict is kept beside the clients, below); a refused
   * token or a network failure is no verdict, and the next call asks again.
   */
  verifyProject(): Promise<void> {
    const expected = this.settings.projectId;
    if (expected === undefined) return Promise.resolve();
    const key = keyOf(this.settings);
    let verdict = verdicts.get(key);
    if (!verdict) {
      verdict = (async () => {
        const { body } = await this.http.request<TokenInfo>({ service: "storage", baseUrl: this.settings.host, method: "GET", path: "/v2/storage/tokens/verify", unguarded: true });
        const owner = { id: Number(body.owner.id), name: String(body.owner.name) };
        if (owner.id !== expected) throw new ProjectGuardError(expected, owner);
      })();
      verdicts.set(key, verdict);
      verdict.catch((err: unknown) => {
        if (!(err instanceof ProjectGuardError)) verdicts.delete(key);
      });
    }
    return verdict;
  }

  async stream(): Promise<StreamApi> {
    return (await this.discover()).stream;
  }

  async queue(): Promise<QueueApi> {
    return (await this.discover()).queue;
  }

  /** The Encryption API (needed only to write configurations holding `#` values). */
  async encryption(): Promise<EncryptionApi> {
    const found = (await this.discover()).encryption;
    if (!found) throw new Error(`The Storage index of ${this.settings.host} lists no "encryption" service; set keboola:encryptionUrl`);
    return found;
  }

  /** The Scheduler API (needed only for schedules). */
  async scheduler(): Promise<SchedulerApi> {
    const found = (await this.discover()).scheduler;
    if (!found) throw new Error(`The Storage index of ${this.settings.host} lists no "scheduler" service; set keboola:schedulerUrl`);
    return found;
  }

  private discover(): Promise<{ stream: StreamApi; queue: QueueApi; encryption?: EncryptionApi; scheduler?: SchedulerApi }> {
    this.services ??= (async () => {
      const s = this.settings;
      let { streamUrl, queueUrl, encryptionUrl, schedulerUrl } = s;
      if (!streamUrl || !queueUrl || !encryptionUrl || !schedulerUrl) {
        const index = await this.storage.index();
        if (!index || typeof index !== "object" || !Array.isArray(index.services)) {
          throw new Error(
            `${s.host} answered GET /v2/storage without a "services" list: it is not a Keboola Storage API. ` +
              "Set keboola:host to the stack's connection URL, e.g. https://connection.keboola.com",
          );
        }
        const find = (id: string) => index.services.find((x) => x && x.id === id)?.url;
        streamUrl ??= find("stream");
        queueUrl ??= find("queue");
        encryptionUrl ??= find("encryption");
        schedulerUrl ??= find("scheduler");
      }
      if (!streamUrl) throw new Error(`The Storage index of ${s.host} lists no "stream" service; set keboola:streamUrl`);
      if (!queueUrl) throw new Error(`The Storage index of ${s.host} lists no "queue" service; set keboola:queueUrl`);
      return {
        stream: new StreamApi(this.http, streamUrl, s.taskTimeoutSeconds, s.polls),
        queue: new QueueApi(this.http, queueUrl, s.taskTimeoutSeconds, s.polls),
        encryption: encryptionUrl ? new EncryptionApi(this.http, encryptionUrl) : undefined,
        scheduler: schedulerUrl ? new SchedulerApi(this.http, schedulerUrl) : undefined,
      };
    })();
    // A failed discovery is not cached: the next call tries again.
    this.services.catch(() => (this.services = undefined));
    return this.services;
  }
}

// One client per distinct settings, whoever asks: the dynamic provider process (one provider
// object per resource, each configured with the same stack config), the plugin (configured again
// with the same settings on every run of the engine) and drift (a client per explicit provider).
// A client keeps its service discovery, its connection pool and what it learnt of the stack (the
// token's permissions, the branches) for as long as the settings are the same.
const clients = new Map<string, KeboolaClient>();

/**
 * The project guard's verdict per distinct settings (KeboolaClient.verifyProject): kept beside the
 * clients and by the same key, so that one process verifies a token's project once, however many
 * resources, lookups or clients of the same settings ask.
 */
const verdicts = new Map<string, Promise<void>>();

/** What tells settings apart: all of them (kept in this process's memory only). */
const keyOf = (settings: ClientSettings): string => JSON.stringify(settings);

/** The client of these settings (made on first use). */
export function clientFor(settings: ClientSettings): KeboolaClient {
  const key = keyOf(settings);
  let client = clients.get(key);
  if (!client) clients.set(key, (client = new KeboolaClient(settings)));
  return client;
}
