import { expect } from "vitest";
import { startEmulator, type Emulator } from "../../emulator/server";
import type { EmulatorOptions } from "../../emulator/core/context";
import type { FaultKind, FaultOptions } from "../../emulator/core/faults";
import { KeboolaClient } from "../../provider/api/client";
import type { Props, ResourceContext } from "../../provider/lifecycle/types";
import type { HostedHandler as ResourceHandler } from "./hosted";

// Calls resource handlers as the dynamic provider host does, against an in-process emulator.

export interface Harness {
  emu: Emulator;
  ctx: ResourceContext;
  contextFor(token: string): ResourceContext;
  /** Write requests since the last clear, as "METHOD path" without the query. */
  writes(): string[];
  close(): Promise<void>;
}

/** The emulator's tasks here end after 10 ms: poll every 5 ms rather than the real stack's 150 ms. */
export const HARNESS_POLLS = { fastPollMs: 5, maxPollMs: 20 } as const;

export const MASTER_TOKEN = "harness-master-token-7f3c9a";
export const LIMITED_TOKEN = "harness-limited-token-2b8e41";

export async function startHarness(options: Partial<EmulatorOptions> = {}): Promise<Harness> {
  // Token values no message may contain: errors are redacted of the token as the host shows them.
  const emu = await startEmulator({ token: MASTER_TOKEN, limitedToken: LIMITED_TOKEN, taskDurationMs: 10, ...options });
  const contextFor = (token: string): ResourceContext => {
    const client = new KeboolaClient({ host: emu.url, token, taskTimeoutSeconds: 20, http: { retryBaseMs: 5, retryMaxMs: 40 }, polls: HARNESS_POLLS });
    return { client: () => client };
  };
  return {
    emu,
    ctx: contextFor(MASTER_TOKEN),
    contextFor,
    writes: () => emu.writes().map((w) => `${w.method} ${w.path.replace(/\?.*$/, "")}`),
    close: () => emu.close(),
  };
}

/** The owner URN the resource classes set (`__owner`), for a resource of this name in a test stack. */
/**
 * Runs `step` with `fault` injected into the first `method` request under `prefix`, then asserts
 * that exactly one fault of `kind` was injected (a fault test must prove its fault happened).
 */
export async function withOneFault<T>(h: Harness, kind: FaultKind, fault: FaultOptions, method: string, prefix: string, step: () => Promise<T>): Promise<T> {
  const before = h.emu.faultCounts().byMethod[method]?.[kind] ?? 0;
  h.emu.setFaults({ ...fault, limit: 1, methods: [method], pathPrefixes: [prefix] });
  try {
    return await step();
  } finally {
    h.emu.setFaults({});
    const after = h.emu.faultCounts().byMethod[method]?.[kind] ?? 0;
    expect(after - before, `one ${kind} injected into ${method} ${prefix}`).toBe(1);
  }
}

/**
 * Runs `step` while every `method` request under `prefix` is answered 429 (with no wait asked),
 * so it fails once the client's retries run out; returns what it threw (or its value), and asserts
 * that 429s were injected. A 429 is certainly not acted on: the tests of what a failed write
 * leaves behind use it.
 */
export async function throttled(h: Harness, method: string, prefix: string, step: () => Promise<unknown>): Promise<unknown> {
  const before = h.emu.faultCounts().byMethod[method]?.["429"] ?? 0;
  h.emu.setFaults({ rate429: 1, retryAfterSeconds: 0, methods: [method], pathPrefixes: [prefix] });
  try {
    return await step().catch((e: unknown) => e);
  } finally {
    h.emu.setFaults({});
    expect((h.emu.faultCounts().byMethod[method]?.["429"] ?? 0) - before, `429s injected into ${method} ${prefix}`).toBeGreaterThan(0);
  }
}

export const ownerUrn = (name: string, stack = "test") => `urn:pulumi:${stack}::harness::pulumi-nodejs:dynamic/keboola:Resource::${name}`;

/** check -> create; fails the test on check failures. */
export async function createVia(h: ResourceHandler, ctx: ResourceContext, name: string, news: Props) {
  const checked = await h.check(ctx, {}, { __resourceName: name, __owner: ownerUrn(name), ...news });
  expect(checked.failures).toEqual([]);
  const inputs = checked.inputs as Props;
  const result = await h.create(ctx, inputs);
  return { id: result.id, outs: result.outs as Props, inputs };
}

/** check -> diff -> update with the old outputs; returns the new outputs, or the old ones when nothing changed. */
export async function updateVia(h: ResourceHandler, ctx: ResourceContext, name: string, id: string, olds: Props, oldInputs: Props, news: Props) {
  const checked = await h.check(ctx, oldInputs, { __resourceName: name, __owner: ownerUrn(name), ...news });
  expect(checked.failures).toEqual([]);
  const inputs = checked.inputs as Props;
  const diff = await h.diff(ctx, id, olds, inputs);
  if (!diff.changes) return { outs: olds, inputs, diff };
  expect(diff.replaces).toEqual([]);
  const result = await h.update(ctx, id, olds, inputs);
  return { outs: result.outs as Props, inputs, diff };
}
