// Exactly once through the provider plugin (the reliability cases of the dynamic resources, in
// test/e2e/recovery.e2e.test.ts and fleet-faults.e2e.test.ts, for the second front door): a YAML
// program whose creates lose their answers, and a `pulumi up` killed while the sink's create task
// runs, each converge on the next `up` with one object per resource, none orphaned.
import { afterEach, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator/server";
import { initEmulatorStack, makePulumiWorkspace, ok, type PulumiWorkspace } from "./helpers/pulumi";
import { pulumiKilledWhen } from "./helpers/kill";
import { inventory } from "./helpers/inventory";

const TOKEN = "plugin-reliability-token-3a7f";

const PROGRAM = `resources:
  events:
    type: keboola:index:Source
    properties:
      name: Events
  raw:
    type: keboola:index:Sink
    properties:
      sourceId: \${events.sourceId}
      name: Raw
      tableId: in.c-recovery.raw
      columns:
        - { type: uuid, name: id }
        - { type: body, name: body }
  vars:
    type: keboola:index:VariableConfig
    properties:
      name: Vars
      variables: [{ name: limit }]
      defaultValues: { limit: "10" }
  extractor:
    type: keboola:index:ComponentConfig
    properties:
      componentId: keboola.ex-generic-v2
      name: Extractor
      variables:
        configId: \${vars.configId}
        valuesRowId: \${vars.valuesRowId}
      configuration:
        parameters:
          api: { baseUrl: "https://example.com/" }
          config: { jobs: [{ endpoint: items, params: { limit: "{{limit}}" } }] }
      rows: [{ name: first }, { name: second }, { name: third }]
`;

const CONVERGED = { sources: ["events"], sinks: ["raw"], configs: ["keboola.ex-generic-v2:first,second,third", "keboola.variables:Default values"], trash: 0 };

let emu: Emulator | undefined;
let ws: PulumiWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  await emu?.close();
});

async function deployment(taskDurationMs: number): Promise<{ emu: Emulator; ws: PulumiWorkspace }> {
  emu = await startEmulator({ token: TOKEN, taskDurationMs });
  ws = await makePulumiWorkspace({ project: "recovery", plugin: true });
  ws.writeProgram({}, { runtime: "yaml", extraYaml: PROGRAM });
  await initEmulatorStack(ws, emu.url, TOKEN);
  return { emu, ws };
}

describe("e2e: exactly once through the provider plugin", () => {
  it("creates whose answers are lost make one object each, in one up", async () => {
    const d = await deployment(10);
    const lost = () => d.emu.faultCounts().byMethod.POST?.lost ?? 0;
    // Every create the service acts on, its answer lost: the client cannot tell whether it happened.
    d.emu.setFaults({ seed: 7, rateLostResponse: 1, limit: 6, methods: ["POST"], pathPrefixes: ["/v2/storage/branch/", "/stream/v1/branches/"] });
    const up = ok(await d.ws.up());
    expect(up.stdout + up.stderr).not.toMatch(/already exists|belongs to/);
    expect(lost(), "lost answers injected into POSTs").toBe(6);
    d.emu.setFaults({});
    ok(await d.ws.previewExpectNoChanges());
    expect(inventory(d.emu)).toEqual(CONVERGED);
    ok(await d.ws.destroy());
    expect(inventory(d.emu)).toMatchObject({ sources: [], sinks: [], configs: [] });
  }, 180_000);

  it("a pulumi up killed while the sink's create task runs, without checkpoints, converges on the next up", async () => {
    const d = await deployment(400);
    const SKIP = { PULUMI_SKIP_CHECKPOINTS: "true" };
    const before = await pulumiKilledWhen(d.ws, ["up", "--yes", "--skip-preview"], d.ws.programDir, d.emu, (w) => w.some((x) => x.startsWith("POST") && x.endsWith("/sinks")), SKIP);
    expect(before.some((x) => x.startsWith("POST") && x.endsWith("/sinks"))).toBe(true);
    ok(await d.ws.pulumi(["cancel", "--yes"]));
    // Nothing recorded: the next run creates everything again, taking over what the killed run made.
    expect((await d.ws.stackResources()).filter((r) => r.type.startsWith("keboola:"))).toEqual([]);
    const up = ok(await d.ws.up([], { env: SKIP }));
    expect(up.stdout + up.stderr).not.toMatch(/already exists|belongs to/);
    ok(await d.ws.previewExpectNoChanges());
    expect(inventory(d.emu)).toEqual(CONVERGED);
    ok(await d.ws.destroy([], { env: SKIP }));
    expect(inventory(d.emu)).toMatchObject({ sources: [], sinks: [], configs: [] });
  }, 240_000);
});
