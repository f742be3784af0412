// The Job Queue API's answers, as the emulator gives them and clients read them (keys in the order
// of the real answers: keboola/job-queue-api-php-client, keboola/keboola-sdk-go
// `pkg/keboola/queue_job.go`). The provider's client reads a part of a job (provider/api/queue.ts).
// This layer imports neither the provider nor the emulator.

import type { JsonObject } from "./json";

/** `GET /jobs/{id}` (and each job of a list, and the 201 of `POST /jobs`). PHP serializes an empty map as a list. */
export interface QueueJobDetail {
  id: string;
  runId: string;
  parentRunId: string;
  project: { id: string; name: string };
  token: { id: string; description: string };
  status: string;
  desiredStatus: string;
  mode: string;
  component: string;
  config: string | null;
  configData: JsonObject | [];
  configRowIds: string[] | null;
  tag: string | null;
  createdTime: string;
  startTime: string | null;
  endTime: string | null;
  durationSeconds: number;
  /** `message`, and for a failed job `error` with its type and exception id; a job that has not finished: []. */
  result: JsonObject | [];
  usageData: JsonObject | [];
  isFinished: boolean;
  /** null while the job runs. */
  isSuccess: boolean | null;
  url: string;
  branchId: string;
  variableValuesId: string | null;
  variableValuesData: { values: Array<{ name: string; value: string }> } | [];
  backend: JsonObject | [];
  executor: string;
  metrics: JsonObject | [];
  behavior: { onError: string | null };
  parallelism: string | null;
  type: string;
  orchestrationJobId: string | null;
  orchestrationTaskId: string | null;
  onlyOrchestrationTaskIds: string[] | null;
  previousJobId: string | null;
}
