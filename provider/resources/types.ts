import type * as dynamic from "@pulumi/pulumi/dynamic";
import type { KeboolaClient } from "../api/client";

// What each resource module implements. Inputs and outputs are plain JSON records as the
// dynamic provider host hands them over; each resource parses them with its zod schema.

export type Props = Record<string, unknown>;

export interface ResourceContext {
  /** The client, created on first use from the stack config (so `check` works offline when it needs no API). */
  client(): KeboolaClient;
}

export interface ResourceHandler {
  check(ctx: ResourceContext, olds: Props, news: Props): Promise<dynamic.CheckResult>;
  diff(ctx: ResourceContext, id: string, olds: Props, news: Props): Promise<dynamic.DiffResult>;
  create(ctx: ResourceContext, inputs: Props): Promise<dynamic.CreateResult>;
  read(ctx: ResourceContext, id: string, props: Props): Promise<dynamic.ReadResult>;
  update(ctx: ResourceContext, id: string, olds: Props, news: Props): Promise<dynamic.UpdateResult>;
  delete(ctx: ResourceContext, id: string, props: Props): Promise<void>;
}

export type ResourceKind = "source" | "sink" | "sourceSettings" | "sinkSettings" | "componentConfig" | "variableConfig" | "jobRun";
export type Method = keyof ResourceHandler;

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
