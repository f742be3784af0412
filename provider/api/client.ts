import { HttpClient, type HttpOptions } from "./http";
import { StorageApi } from "./storage";
import { StreamApi } from "./stream";
import { QueueApi } from "./queue";

// The client for one stack: Storage at the configured host, Stream and Queue discovered from
// the Storage index (as the official clients do) unless overridden.

export interface ClientSettings {
  host: string;
  token: string;
  streamUrl?: string;
  queueUrl?: string;
  /** Deadline for one async task or job, in seconds. */
  taskTimeoutSeconds: number;
  http?: Omit<HttpOptions, "token">;
}

export class KeboolaClient {
  readonly http: HttpClient;
  readonly storage: StorageApi;
  private services?: Promise<{ stream: StreamApi; queue: QueueApi }>;

  constructor(private readonly settings: ClientSettings) {
    this.http = new HttpClient({ ...settings.http, token: settings.token });
    this.storage = new StorageApi(this.http, settings.host);
  }

  async stream(): Promise<StreamApi> {
    return (await this.discover()).stream;
  }

  async queue(): Promise<QueueApi> {
    return (await this.discover()).queue;
  }

  private discover(): Promise<{ stream: StreamApi; queue: QueueApi }> {
    this.services ??= (async () => {
      const s = this.settings;
      let { streamUrl, queueUrl } = s;
      if (!streamUrl || !queueUrl) {
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
      }
      if (!streamUrl) throw new Error(`The Storage index of ${s.host} lists no "stream" service; set keboola:streamUrl`);
      if (!queueUrl) throw new Error(`The Storage index of ${s.host} lists no "queue" service; set keboola:queueUrl`);
      return {
        stream: new StreamApi(this.http, streamUrl, s.taskTimeoutSeconds),
        queue: new QueueApi(this.http, queueUrl, s.taskTimeoutSeconds),
      };
    })();
    // A failed discovery is not cached: the next call tries again.
    this.services.catch(() => (this.services = undefined));
    return this.services;
  }
}
