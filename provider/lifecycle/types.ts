import type { KeboolaClient } from "../api/client";
import type { CheckFailure } from "../validation/messages";

// The plain records calls carry (each kind types its own inputs and state: define.ts, call.ts),
// the client every helper reaches the stack with, and the failure that leaves an object behind.

export type Props = Record<string, unknown>;

export interface ResourceContext {
  /** The client, created on first use from the stack config (so `check` works offline when it needs no API). */
  client(): KeboolaClient;
  /**
   * The project guard (keboola:projectId): resolves when the settings name no project or the
   * token belongs to the one they name, fails naming both projects otherwise. Every method runs it
   * first (dispatch.ts runMethod), so a guarded stack's first call of any command verifies the
   * token's project before anything else, even a call that needs no API. Absent: no guard.
   */
  guard?(): Promise<void>;
}

export type Method = "check" | "diff" | "create" | "read" | "update" | "delete";

/** What a check answers (call.ts): the inputs to record and the properties it refuses. */
export interface CheckResponse {
  /** The inputs to record: parsed, defaults applied (absent: as given). */
  inputs?: Props;
  failures?: CheckFailure[];
}
/** What a diff answers (call.ts). */
export interface DiffResponse {
  /** Undefined: not known (the engine decides). */
  changes?: boolean;
  replaces?: string[];
  stables?: string[];
  deleteBeforeReplace?: boolean;
}
/**
 * Thrown when the remote object exists but did not reach the declared state: the dynamic
 * provider host turns it into "created but failed to initialize", so Pulumi keeps tracking the
 * object (no orphan) and the next `up` updates it.
 */
export class PartialFailure extends Error {
  constructor(
    message: string,
    readonly id: string,
    readonly properties: Props,
    readonly reasons: string[] = [message],
  ) {
    super(message);
  }
}
