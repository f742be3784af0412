import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type * as dynamic from "@pulumi/pulumi/dynamic";
import * as runtime from "../../provider/dynamic/runtime";
import { providerText, RUNTIME_MODULE, type ProviderReference } from "../../provider/program/reference";
import { splitMarker } from "../../provider/lifecycle/ownership";
import { UNKNOWN } from "../../provider/validation/check";
import type { Props } from "../../provider/lifecycle/types";
import { MASTER_TOKEN, startHarness, type Harness } from "./harness";

// The dynamic resources' door as the dynamic provider host runs it (@pulumi/pulumi
// cmd/dynamic-provider): a resource's `__provider` text evaluated to its provider object, configured
// with the stack config, its methods called with the properties the host passes (the reference
// among them, as the host keeps it in inputs and outputs). The resource's identity comes from its
// reference alone; no hidden key of ours goes in or out.

let h: Harness;
// The stack config below is the provider's only source: no KBC_* of the environment (which fills
// in what stack config leaves out, provider/config.ts) may point it elsewhere.
const savedEnv = Object.entries(process.env).filter(([k]) => k.startsWith("KBC_"));
beforeAll(async () => {
  for (const [k] of savedEnv) delete process.env[k];
  h = await startHarness({ taskDurationMs: 5 });
});
afterAll(async () => {
  for (const [k, v] of savedEnv) process.env[k] = v;
  await h?.close();
});

const urnOf = (type: string, name: string) => `urn:pulumi:test::door::pulumi-nodejs:dynamic/keboola:${type}::${name}`;

/** The provider object a reference evaluates to, as the host's getProvider makes it (`requireFromString(text).handler()`). */
async function providerOf(ref: ProviderReference): Promise<{ text: string; provider: dynamic.ResourceProvider }> {
  const text = providerText(ref);
  const mod: { exports: { handler?: () => dynamic.ResourceProvider } } = { exports: {} };
  const requireRuntime = (id: string) => {
    if (id !== RUNTIME_MODULE) throw new Error(`the reference required ${id}`);
    return runtime;
  };
  new Function("exports", "require", "module", text)(mod.exports, requireRuntime, mod);
  const provider = mod.exports.handler!();
  const config: Record<string, string> = { "keboola:host": h.emu.url, "keboola:token": MASTER_TOKEN, "keboola:taskTimeout": "20" };
  await provider.configure!({ config: { get: (key: string) => config[key], require: (key: string) => config[key] } });
  return { text, provider };
}

const hiddenKeys = (props: Props | undefined) => Object.keys(props ?? {}).filter((k) => k.startsWith("__"));

describe("the dynamic door", () => {
  it("runs a resource's methods as the resource its reference names, and answers no hidden key", async () => {
    const urn = urnOf("Source", "door-events");
    const { text, provider } = await providerOf({ type: "Source", urn, root: "/nowhere" });
    const checked = await provider.check!({}, { __provider: text, __program: {}, name: "Door events" });
    expect(checked.failures ?? []).toEqual([]);
    expect(hiddenKeys(checked.inputs)).toEqual([]);
    const made = await provider.create({ ...checked.inputs, __provider: text });
    expect(hiddenKeys(made.outs)).toEqual([]);
    // The owner marker is the URN the reference names.
    const remote = await (await h.ctx.client().stream()).getSource("default", "door-events");
    expect(splitMarker(remote.description).owner).toBe(urn);
    const read = await provider.read!(made.id, { ...made.outs, __provider: text });
    expect(read.id).toBe(made.id);
    expect(hiddenKeys(read.props)).toEqual([]);
    expect(hiddenKeys(read.inputs)).toEqual([]);
    await provider.delete!(made.id, { ...made.outs, __provider: text });
    expect(await (await h.ctx.client().stream()).findSource("default", "door-events")).toBeUndefined();
  });

  it("names the resource by its reference in a failure, whatever the properties say", async () => {
    const { text, provider } = await providerOf({ type: "Source", urn: urnOf("Source", "door-named") });
    // An update of a source that does not exist: the message names the resource of the reference.
    const failed = provider.update!("default/door-nothing", { __provider: text, sourceId: "door-nothing" }, { __provider: text, name: "Nothing", sourceId: "door-nothing", __resourceName: "someone-else" });
    await expect(failed).rejects.toThrow(/resource "door-named"/);
  });

  it("takes the program facts from the check's hidden input to the same resource's diff, and to no other resource", async () => {
    const checkedUrn = urnOf("Sink", "door-moved");
    const { text, provider } = await providerOf({ type: "Sink", urn: checkedUrn });
    const olds = { branchId: "default", sourceId: "events", sinkId: "raw", name: "Raw", tableId: "in.c-door.raw", columns: [{ type: "body", name: "body" }] };
    // At preview the sink's source is being replaced: its sourceId is unknown, and the program says
    // what it will be.
    const news = { ...olds, sourceId: UNKNOWN };
    const checked = await provider.check!(olds, { ...news, __provider: text, __program: { declared: true, sourceId: "moved" } });
    expect(hiddenKeys(checked.inputs)).toEqual([]);
    expect((await provider.diff!("default/events/raw", olds, { ...news, __provider: text })).replaces).toEqual(["sourceId"]);
    // Another resource, never checked in this process, knows no facts: an unknown counts as unchanged.
    const other = await providerOf({ type: "Sink", urn: urnOf("Sink", "door-unchecked") });
    expect((await other.provider.diff!("default/events/raw", olds, { ...news, __provider: other.text })).replaces ?? []).toEqual([]);
  });
});
