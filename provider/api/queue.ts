import type { HttpClient } from "./http";
import { waitUntilFinished, type PollTiming } from "./tasks";

// Typed calls of the Job Queue API.

export interface QueueJob {
  id: string;
  status: string;
  /** The job's component and configuration (a job's detail has both; keboola/queue.ts QueueJobDetail). */
  component?: string;
  config?: string | null;
  /** The branch's numeric id, as text. */
  branchId?: string | null;
  isFinished: boolean;
  url?: string;
  result?: { message?: string };
  createdTime?: string;
  startTime?: string | null;
  endTime?: string | null;
  durationSeconds?: number | null;
}

export interface JobRequest {
  component: string;
  config: string;
  mode: "run";
  branchId?: string;
  variableValuesId?: string;
  variableValuesData?: { values: Array<{ name: string; value: string }> };
}

export class QueueApi {
  constructor(
    private readonly http: HttpClient,
    private readonly baseUrl: string,
    private readonly deadlineSeconds: number,
    private readonly polls: PollTiming = {},
  ) {}

  createJob(body: JobRequest) {
    return this.http
      .request<QueueJob>({ service: "queue", baseUrl: this.baseUrl, method: "POST", path: "/jobs", json: body, retry: "rejected-only" })
      .then((r) => r.body);
  }

  /** Newest jobs of a configuration first (`GET /search/jobs`). */
  listJobs(component: string, config: string, limit = 50) {
    return this.http
      .request<QueueJob[]>({ service: "queue", baseUrl: this.baseUrl, method: "GET", path: "/search/jobs", query: { component, config, limit, sortOrder: "desc" } })
      .then((r) => r.body);
  }

  getJob(id: string) {
    return this.http
      .request<QueueJob>({ service: "queue", baseUrl: this.baseUrl, method: "GET", path: `/jobs/${encodeURIComponent(id)}` })
      .then((r) => r.body);
  }

  /** Waits until the job finishes, whatever its final status (the caller inspects it). */
  waitForJobEnd(job: QueueJob, what: string, deadlineSeconds = this.deadlineSeconds): Promise<QueueJob> {
    return waitUntilFinished(
      job,
      (j) => ({ id: j.id, finished: j.isFinished, ok: true }),
      (j) => this.getJob(j.id),
      { ...this.polls, what, deadlineSeconds },
    );
  }
}
