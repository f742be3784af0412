import type * as dynamic from "@pulumi/pulumi/dynamic";
import type { KeboolaClient } from "../api/client";

// What the dynamic provider host hands over (plain JSON records) and what every handler gets.
// Each resource types its own inputs and state: see define.ts.

export type Props = Record<string, unknown>;

export interface ResourceContext {
  /** The client, created on first use from the stack config (so `check` works offline when it needs no API). */
  client(): KeboolaClient;
}

export type Method = "check" | "diff" | "create" | "read" | "update" | "delete";

/** What each method answers the dynamic provider host. */
export interface Results {
  check: dynamic.CheckResult;
  diff: dynamic.DiffResult;
  create: dynamic.CreateResult;
  read: dynamic.ReadResult;
  update: dynamic.UpdateResult;
  delete: void;
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
