// The Scheduler service's part of the emulator state: plain JSON, so it can be saved to a file.
import type { ScheduleJson } from "../../keboola/scheduler";

/**
 * An activated schedule, in the fields of the Scheduler API's schedule JSON
 * (keboola/keboola-sdk-go pkg/keboola/scheduler_model.go `Schedule`).
 */
export interface ScheduleRecord extends ScheduleJson {
  /** The token the schedule's jobs run with: a copy of the activating token's rights. */
  tokenDescription: string;
  /**
   * When the schedule's token was created and last refreshed (ISO); Storage shows the token at
   * `GET /v2/storage/tokens/{tokenId}` (storage/tokens.ts). Absent in older state files.
   */
  tokenCreated?: string;
  tokenRefreshed?: string;
  /** The token was deleted through the Storage API (the schedule itself stays). */
  tokenDeleted?: boolean;
  /** Emulator only: the emulated time up to which the schedule's fire times were handled. */
  handledUntilMs: number;
}

export interface SchedulerState {
  schedules: Record<string, ScheduleRecord>;
}

export function initialSchedulerState(): SchedulerState {
  return { schedules: {} };
}
