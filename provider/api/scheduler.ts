import type { HttpClient } from "./http";
import type { ScheduleJson } from "../../keboola/scheduler";

// The Scheduler API: a schedule is a `keboola.scheduler` configuration (Storage) plus its
// activation here. Endpoints as keboola/keboola-sdk-go pkg/keboola/scheduler_api.go calls them
// (`POST /schedules {configurationId, configurationVersionId}`, `GET /schedules`,
// `DELETE /configurations/{configurationId}`); the service is `scheduler` in the Storage index.
// keboola-as-code activates on every save of a scheduler configuration and deletes by
// configuration (internal/pkg/mapper/scheduler/remote_activate.go, remote_delete.go).

/** An activated schedule (keboola/scheduler.ts ScheduleJson); what the provider relies on is required. */
export type ScheduleActivation = Pick<ScheduleJson, "id" | "configurationId" | "configurationVersionId"> & Partial<ScheduleJson>;

export class SchedulerApi {
  constructor(
    private readonly http: HttpClient,
    readonly baseUrl: string,
  ) {}

  /** Activates a version of a scheduler configuration (an earlier activation of it is replaced). */
  activate(configurationId: string, configurationVersionId: string): Promise<ScheduleActivation> {
    return this.http
      .request<ScheduleActivation>({
        service: "scheduler",
        baseUrl: this.baseUrl,
        method: "POST",
        path: "/schedules",
        json: { configurationId, configurationVersionId },
        retry: "rejected-only",
      })
      .then((r) => normalize(r.body));
  }

  list(): Promise<ScheduleActivation[]> {
    return this.http
      .request<ScheduleActivation[]>({ service: "scheduler", baseUrl: this.baseUrl, method: "GET", path: "/schedules" })
      .then((r) => (Array.isArray(r.body) ? r.body.map(normalize) : []));
  }

  /** The activation of a scheduler configuration, if any. */
  async ofConfiguration(configurationId: string): Promise<ScheduleActivation | undefined> {
    return (await this.list()).find((s) => s.configurationId === configurationId);
  }

  /** Removes every activation of a scheduler configuration; repeating it does no harm. */
  async deleteOfConfiguration(configurationId: string): Promise<void> {
    await this.http.request<unknown>({
      service: "scheduler",
      baseUrl: this.baseUrl,
      method: "DELETE",
      path: `/configurations/${encodeURIComponent(configurationId)}`,
      retry: "idempotent",
    });
  }
}

/** Ids may come as numbers. */
function normalize(s: ScheduleActivation): ScheduleActivation {
  return { ...s, id: String(s.id), configurationId: String(s.configurationId), configurationVersionId: String(s.configurationVersionId) };
}
