import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import * as pulumi from "@pulumi/pulumi";
import * as keboola from "../../provider/index";
import { hasSdkStackTracing, quietStacks, sdkStackTracing } from "../../provider/program/registration";

// Registering a resource captures no stack traces beyond the one the SDK records for the
// resource's source position (provider/registration.ts), unless the SDK's promise-leak debugging
// asks for them; the limit is always put back, also when the registration throws.

beforeAll(async () => {
  await pulumi.runtime.setMocks({ newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }), call: () => ({}) }, "project", "stack", false);
});

const previous = { prepare: Error.prepareStackTrace, debug: process.env.PULUMI_DEBUG_PROMISE_LEAKS };
afterEach(() => {
  Error.prepareStackTrace = previous.prepare;
  if (previous.debug === undefined) delete process.env.PULUMI_DEBUG_PROMISE_LEAKS;
  else process.env.PULUMI_DEBUG_PROMISE_LEAKS = previous.debug;
});

/** How many stack traces with frames were formatted while constructing a Source, a Sink and its settings. */
function tracesWhileConstructing(suffix: string): number {
  let traces = 0;
  Error.prepareStackTrace = (err, frames) => {
    if (frames.length > 0) traces++;
    return `${String(err)}\n${frames.map((f) => `    at ${String(f)}`).join("\n")}`;
  };
  const limit = Error.stackTraceLimit;
  const src = new keboola.Source(`src-${suffix}`, { name: `Src ${suffix}` });
  const snk = new keboola.Sink(`snk-${suffix}`, { sourceId: src.sourceId, name: "Out", tableId: `in.c-reg.t${suffix}`, columns: [{ type: "uuid", name: "id" }] });
  new keboola.SinkSettings(`set-${suffix}`, { sourceId: src.sourceId, sinkId: snk.sinkId, stagingUploadTrigger: { count: 1000 } });
  Error.prepareStackTrace = previous.prepare;
  expect(Error.stackTraceLimit).toBe(limit);
  return traces;
}

describe("registration", () => {
  it("formats only the SDK's source-position traces: one per resource", () => {
    expect(tracesWhileConstructing("a")).toBe(3);
  });

  it("keeps every trace when PULUMI_DEBUG_PROMISE_LEAKS asks for them", () => {
    process.env.PULUMI_DEBUG_PROMISE_LEAKS = "true";
    expect(tracesWhileConstructing("b")).toBeGreaterThan(30);
  });

  it("puts the limit back and gives a thrown error the frames of the construction", () => {
    const limit = Error.stackTraceLimit;
    const stacks = quietStacks();
    expect(Error.stackTraceLimit).toBe(0);
    const err = stacks.explain(new Error("refused")) as Error;
    stacks.restore();
    expect(Error.stackTraceLimit).toBe(limit);
    expect(err.stack).toMatch(/^Error: refused\n\s+at /);
    expect(err.stack).toContain("registration.test.ts");
  });

  // provider/registration.ts replaces private statics of the SDK's Resource class; these fail the
  // day an SDK upgrade renames or drops them, instead of the registration silently keeping the traces.
  it("recognises the installed SDK's Resource: it has its own stackTrace and callsites", () => {
    expect(hasSdkStackTracing(pulumi.Resource)).toBe(true);
    expect(sdkStackTracing()).toBe(pulumi.Resource);
    expect(hasSdkStackTracing(class {})).toBe(false);
    expect(hasSdkStackTracing({ stackTrace: () => [], callsites: () => [] })).toBe(false);
    expect(hasSdkStackTracing(Object.assign(function resource() {}, { stackTrace: () => [] }))).toBe(false);
    expect(hasSdkStackTracing(Object.assign(function resource() {}, { stackTrace: () => [], callsites: "no" }))).toBe(false);
    expect(hasSdkStackTracing(Object.assign(function resource() {}, { stackTrace: () => [], callsites: () => [] }))).toBe(true);
  });

  it("sends the registration without the package's stack frames, and puts the SDK's stackTrace back", async () => {
    const original = Reflect.get(pulumi.Resource, "stackTrace");
    const quiet = await registeredFrames("c");
    expect(quiet).toEqual({ frames: 0, sourcePosition: false });
    expect(Reflect.get(pulumi.Resource, "stackTrace")).toBe(original);
    // The same registration without the replacement (the promise-leak debugging keeps the SDK's own) carries them.
    process.env.PULUMI_DEBUG_PROMISE_LEAKS = "true";
    const full = await registeredFrames("d");
    expect(full.frames).toBeGreaterThan(0);
    expect(full.sourcePosition).toBe(true);
  });
});

/** The stack frames and source position of the registration request a Source sends to the (mock) monitor. */
async function registeredFrames(suffix: string): Promise<{ frames: number; sourcePosition: boolean }> {
  const monitor = pulumi.runtime.getMonitor();
  if (!monitor) throw new Error("no monitor: setMocks did not run");
  const spy = vi.spyOn(monitor, "registerResource");
  try {
    const src = new keboola.Source(`src-frames-${suffix}`, { name: `Src ${suffix}` });
    await new Promise((resolve) => src.urn.apply(resolve));
    const requests = spy.mock.calls.map(([req]) => req).filter((req) => req.getName() === `src-frames-${suffix}`);
    expect(requests).toHaveLength(1);
    return { frames: requests[0].getStacktrace()?.getFramesList().length ?? 0, sourcePosition: requests[0].getSourceposition() !== undefined };
  } finally {
    spy.mockRestore();
  }
}
