// Crash recovery with the real Pulumi CLI: `pulumi up` is killed with SIGKILL (its whole process
// group: the CLI, the language host and the provider) at three moments, and the README's steps
// alone ("Recovering from an interrupted deployment": `pulumi cancel`, then `pulumi up`) must
// converge with no duplicate, no orphan and no manual edit, because every object carries its
// owner's marker and every create is create-once.
import { afterEach, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator/server";
import { type PulumiWorkspace, initEmulatorStack, makePulumiWorkspace, ok, type RunResult } from "./helpers/pulumi";
import { pulumiKilledWhen } from "./helpers/kill";
import { inventory } from "./helpers/inventory";

const TOKEN = "e2e-recovery-token-0123456789";

const PROGRAM = `"use strict";
const keboola = require("keboola-pulumi");
const events = new keboola.Source("events", { name: "Events" });
new keboola.Sink("raw", { sourceId: events.sourceId, name: "Raw", tableId: "in.c-recovery.raw", columns: [{ type: "uuid", name: "id" }, { type: "body", name: "body" }] });
const vars = new keboola.VariableConfig("vars", { name: "Vars", variables: [{ name: "limit" }], defaultValues: { limit: "10" } });
new keboola.ComponentConfig("extractor", {
  componentId: "keboola.ex-generic-v2",
  name: "Extractor",
  variables: vars.binding(),
  configuration: { parameters: { api: { baseUrl: "https://example.com/" }, config: { jobs: [{ endpoint: "items", params: { limit: "{{limit}}" } }] } } },
  rows: [{ name: "first" }, { name: "second" }, { name: "third" }],
});
`;

let emu: Emulator | undefined;
let ws: PulumiWorkspace | undefined;

afterEach(async () => {
  await ws?.cleanup();
  await emu?.close();
});


/** `pulumi up` killed (its whole process group) once `when` holds. */
const upKilledWhen = (w: PulumiWorkspace, e: Emulator, when: (writes: string[]) => boolean, env?: NodeJS.ProcessEnv): Promise<string[]> =>
  pulumiKilledWhen(w, ["up", "--yes", "--skip-preview"], w.programDir, e, when, env);

const creates = (writes: string[]) => writes.filter((w) => w.startsWith("POST") && !w.includes("/restore"));

const MOMENTS: Array<[string, (writes: string[]) => boolean]> = [
  ["after the first create was sent", (w) => creates(w).length >= 1],
  ["in the middle of the configuration rows", (w) => w.filter((x) => x.endsWith("/rows")).length >= 2],
  ["while the sink's create task runs", (w) => w.some((x) => x.startsWith("POST") && x.endsWith("/sinks"))],
];

describe("e2e: recovering from a killed pulumi up", () => {
  it.each(MOMENTS)("converges with the README's steps after a kill %s", async (_moment, when) => {
    emu = await startEmulator({ token: TOKEN, taskDurationMs: 400 });
    ws = await makePulumiWorkspace({ project: "recovery" });
    ws.writeProgram({ "index.js": PROGRAM }, { linkProjectPackage: true });
    await initEmulatorStack(ws, emu.url, TOKEN);

    const before = await upKilledWhen(ws, emu, when);
    expect(creates(before).length).toBeGreaterThan(0);

    // README, "Recovering from an interrupted deployment": the file backend keeps the killed
    // run's lock; cancel it, then run up again. When the kill hit the write of the state file
    // itself, put back the previous checkpoint the backend keeps beside it first.
    const w = ws;
    const afterTornCheckpoint = async (run: () => Promise<RunResult>): Promise<RunResult> => {
      const first = await run();
      if (first.code === 0 || !/failed to load checkpoint/.test(first.stderr + first.stdout)) return first;
      const stackFile = path.join(w.stateDir, ".pulumi", "stacks", "recovery", `${w.stack}.json`);
      fs.copyFileSync(`${stackFile}.bak`, stackFile);
      fs.copyFileSync(`${stackFile}.bak.attrs`, `${stackFile}.attrs`);
      return run();
    };
    ok(await afterTornCheckpoint(() => w.pulumi(["cancel", "--yes"])));
    const up = ok(await afterTornCheckpoint(() => w.up()));
    expect(up.stdout + up.stderr).not.toMatch(/already exists|belongs to/);
    ok(await ws.previewExpectNoChanges());

    expect(inventory(emu)).toEqual({
      sources: ["events"],
      sinks: ["raw"],
      configs: ["keboola.ex-generic-v2:first,second,third", "keboola.variables:Default values"],
      trash: 0,
    });

    ok(await ws.destroy());
    expect(inventory(emu)).toMatchObject({ sources: [], sinks: [], configs: [] });
  }, 180_000);

  // Without checkpoints (README, "Large stacks"): Pulumi writes the state once, at the end, so a
  // killed run leaves the state as it was before it: nothing it created is recorded. The next run
  // (the same program) creates everything again, and each create finds the object the killed run
  // made by its owner marker and takes it over; a deployed stack's interrupted change is made again.
  const SKIP = { PULUMI_SKIP_CHECKPOINTS: "true" };
  it.each(MOMENTS.slice(2))("without checkpoints: a kill %s leaves nothing recorded, and the next up converges with no duplicate and no orphan", async (_moment, when) => {
    emu = await startEmulator({ token: TOKEN, taskDurationMs: 400 });
    ws = await makePulumiWorkspace({ project: "recovery" });
    ws.writeProgram({ "index.js": PROGRAM }, { linkProjectPackage: true });
    await initEmulatorStack(ws, emu.url, TOKEN);

    const before = await upKilledWhen(ws, emu, when, SKIP);
    expect(creates(before).length).toBeGreaterThan(0);
    ok(await ws.pulumi(["cancel", "--yes"]));
    expect((await ws.stackResources()).filter((r) => r.type.includes("keboola:"))).toEqual([]);
    const up = ok(await ws.up([], { env: SKIP }));
    expect(up.stdout + up.stderr).not.toMatch(/already exists|belongs to/);
    ok(await ws.previewExpectNoChanges());
    expect(inventory(emu)).toEqual({
      sources: ["events"],
      sinks: ["raw"],
      configs: ["keboola.ex-generic-v2:first,second,third", "keboola.variables:Default values"],
      trash: 0,
    });

    // A change killed halfway (a replacement: the source gets a new id), then run again.
    ws.writeProgram({ "index.js": PROGRAM.replace('{ name: "Events" }', '{ name: "Events", sourceId: "events-2" }') }, { linkProjectPackage: true });
    await upKilledWhen(ws, emu, (w) => w.some((x) => x.startsWith("POST") && x.endsWith("/sources")), SKIP);
    ok(await ws.pulumi(["cancel", "--yes"]));
    ok(await ws.up([], { env: SKIP }));
    ok(await ws.previewExpectNoChanges());
    expect(inventory(emu)).toMatchObject({ sources: ["events-2"], sinks: ["raw"] });

    ok(await ws.destroy([], { env: SKIP }));
    expect(inventory(emu)).toMatchObject({ sources: [], sinks: [], configs: [] });
  }, 240_000);
});
