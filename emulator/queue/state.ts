// The queue service's part of the emulator state: plain JSON, so it can be saved to a file.

import type { JsonValue } from "../../keboola/json";

export type QueueJobStatus =
  | "created"
  | "waiting"
  | "processing"
  | "success"
  | "error"
  | "warning"
  | "terminating"
  | "cancelled"
  | "terminated";

/** A queue job, in the fields of the public Job Queue API's job JSON. */
export interface QueueJobRecord {
  id: string;
  runId: string;
  branchId: string;
  projectId: number;
  projectName: string;
  tokenId: string;
  tokenDescription: string;
  status: QueueJobStatus;
  desiredStatus: "processing" | "terminating";
  mode: string;
  component: string;
  config: string | null;
  configData: { [key: string]: JsonValue } | null;
  configRowIds: string[];
  tag: string | null;
  createdTime: string;
  startTime: string | null;
  endTime: string | null;
  durationSeconds: number;
  result: { [key: string]: JsonValue } | null;
  variableValuesId: string | null;
  variableValuesData: { values: Array<{ name: string; value: string }> } | null;
  createdAtMs: number;
  startedAtMs: number | null;
  /** A flow task's job: its flow job's runId (absent: a job started on its own, answered as ""). */
  parentRunId?: string;
  /** A flow task's job: the flow job's id and the task's id. */
  orchestrationJobId?: string;
  orchestrationTaskId?: string;
  /** A flow job's progress through its phases (emulator only, see flow.ts). */
  flow?: FlowProgress;
}

/** Where a flow job is: its phases in run order, the current one, and the task jobs started so far. */
export interface FlowProgress {
  phases: Array<{ id: string; name: string }>;
  phaseIndex: number;
  tasks: Array<{
    taskId: string;
    name: string;
    phaseId: string;
    continueOnFailure: boolean;
    /** What the task runs, as the flow said when it started. */
    componentId: string;
    configId: string | null;
    configData: { [key: string]: JsonValue } | null;
    jobId: string | null;
    failure: string | null;
  }>;
}

/**
 * What a job ran with (emulator only, never answered by the API): the configuration and its
 * rows after variable substitution, so tests can check it.
 */
export interface ResolvedJobConfiguration {
  configuration: { [key: string]: JsonValue };
  rows: Array<{ id: string; configuration: { [key: string]: JsonValue } }>;
  variables: Record<string, string>;
}

export interface QueueState {
  jobs: Record<string, QueueJobRecord>;
  resolved: Record<string, ResolvedJobConfiguration>;
}

export function initialQueueState(): QueueState {
  return { jobs: {}, resolved: {} };
}
