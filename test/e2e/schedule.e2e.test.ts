// Issue 18 end to end with the real Pulumi CLI through the repository's root Pulumi project: a
// manifest with two configurations, a flow running them in two phases and a schedule of it.
// `up` writes the configurations, the flow, the scheduler configuration and its activation;
// advancing the emulator's clock 24h runs the flow, whose two jobs run in phase order; preview
// and refresh show no changes; a cron change updates the schedule in place (re-activated); a bad cron, an
// unknown timezone and a flow task of an undeclared configuration fail at preview with zero
// writes; destroy removes the activation and every configuration.
//
// The root project runs from this checkout (its dist/), and its program links
// node_modules/keboola-pulumi to this checkout, so the provider the CLI runs is this build: the
// Flow and Schedule types it reports exist in no other.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator/server";
import { describeResult } from "./helpers/pulumi";
import { makeRootProject, type RootProject } from "../../scripts/lib/root-project";
import { call, pollUntil } from "../emulator/helpers";

const config = (key: string, name: string) => `  ${key}:
    componentId: keboola.ex-generic-v2
    name: ${name}
    configuration:
      parameters:
        api: { baseUrl: "https://api.example.com/" }
        config: { outputBucket: in.c-${key}, jobs: [{ endpoint: ${key} }] }
`;

// The manifest of issue 18, with its two configurations.
const MANIFEST = `configurations:
${config("users", "Users")}${config("orders", "Orders")}flows:
  nightly:
    name: Nightly
    phases:
      - { name: extract, tasks: [{ configuration: users }] }
      - { name: load, dependsOn: [extract], tasks: [{ configuration: orders }] }
schedules:
  nightly:
    flow: nightly
    cron: "0 3 * * *"
    timezone: Europe/Prague
`;


describe("e2e: a flow of two configurations, scheduled nightly, through the root Pulumi project", () => {
  let emu: Emulator;
  let root: RootProject;
  let manifest: string;

  beforeAll(async () => {
    emu = await startEmulator({ token: "master", taskDurationMs: 20 });
    manifest = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "schedule-e2e-")), "keboola.yaml");
    root = await makeRootProject({ prefix: "schedule-e2e", host: emu.url, token: "master", manifest });
  }, 30 * 60 * 1000);

  afterAll(async () => {
    if (manifest) fs.rmSync(path.dirname(manifest), { recursive: true, force: true });
    await root?.cleanup();
    await emu?.close();
  });

  const writes = () => emu.writes().map((w) => `${w.method} ${w.path}`);
  const liveConfigs = () => Object.values(emu.state.storage.configs).filter((c) => !c.isDeleted);
  const activations = () => Object.values(emu.state.scheduler.schedules);

  it("refuses a bad cron, an unknown timezone and a task of an undeclared configuration at preview, writing nothing", async () => {
    const refused = async (text: string, expected: RegExp) => {
      fs.writeFileSync(manifest, text);
      emu.clearRequests();
      const res = await root.pulumi(["preview"], { timeoutMs: 300_000 });
      expect(res.code, describeResult(res)).not.toBe(0);
      expect(res.stdout + res.stderr).toMatch(expected);
      expect(writes()).toEqual([]);
    };
    await refused(MANIFEST.replace('"0 3 * * *"', '"0 3 * *"'), /schedules\.nightly\.cron: "0 3 \* \*" has 4 fields, the Scheduler takes exactly 5/);
    await refused(MANIFEST.replace("Europe/Prague", "Europe/Prag"), /schedules\.nightly\.timezone: "Europe\/Prag" is not an IANA timezone name/);
    await refused(MANIFEST.replace("configuration: orders }", "configuration: invoices }"), /flows\.nightly\.phases\[1\]\.tasks\[0\]\.configuration: "invoices" is not a key under configurations/);
    // Named by id instead of key: the provider's preview asks the stack, which has no such configuration.
    await refused(
      MANIFEST.replace("configuration: orders }", "componentId: keboola.ex-generic-v2, configId: invoices }"),
      /phases\[1\]\.tasks\[0\]\.configId: configuration "invoices" of keboola\.ex-generic-v2 does not exist in branch default .*no ComponentConfig of this program declares it/,
    );
    expect(liveConfigs()).toEqual([]);
  }, 900_000);

  it("deploys, runs the flow when the clock passes 03:00, previews no changes, updates the cron in place, and destroys everything", async () => {
    fs.writeFileSync(manifest, MANIFEST);
    const up = await root.pulumi(["up", "--yes", "--skip-preview"], { timeoutMs: 300_000 });
    expect(up.code, describeResult(up)).toBe(0);
    expect(up.stdout).toMatch(/\+ 5 created/); // 2 configurations, the flow, the schedule and the stack
    for (const type of ["ComponentConfig", "Flow", "Schedule"]) expect(up.stdout).toContain(`pulumi-nodejs:dynamic/keboola:${type} `);
    const flowConfig = liveConfigs().find((c) => c.componentId === "keboola.flow")!;
    const schedulerConfig = liveConfigs().find((c) => c.componentId === "keboola.scheduler")!;
    expect(activations()).toMatchObject([
      { configurationId: schedulerConfig.id, schedule: { cronTab: "0 3 * * *", timezone: "Europe/Prague", state: "enabled" }, target: { componentId: "keboola.flow", configurationId: flowConfig.id, mode: "run" } },
    ]);
    const outputs = JSON.parse((await root.pulumi(["stack", "output", "--json"])).stdout) as { schedules: Record<string, { nextRuns: string[] }> };
    expect(outputs.schedules.nightly.nextRuns).toHaveLength(3);

    // The clock passes the schedule's time: the flow runs, its phases' jobs one after the other.
    const moved = await call(emu.url, "POST", "/_emulator/clock", { json: { advance: "24h" } });
    expect(moved.status).toBe(200);
    const [execution] = activations()[0]!.executions;
    expect(execution).toBeDefined();
    const queue = (p: string) => call(emu.urls.queue, "GET", p, { token: "master" });
    const flowJob = (await pollUntil(() => queue(`/jobs/${execution!.jobId}`), (r) => r.body.isFinished, 30_000)).body;
    expect(flowJob).toMatchObject({ component: "keboola.flow", config: flowConfig.id, status: "success" });
    const tasks = ((await queue(`/jobs?parentRunId=${flowJob.runId}`)).body as Array<{ id: string; config: string; status: string; createdTime: string; endTime: string }>).sort((a, b) => Number(a.id) - Number(b.id));
    const idOf = (name: string) => liveConfigs().find((c) => c.name === name)!.id;
    expect(tasks.map((t) => [t.config, t.status])).toEqual([[idOf("Users"), "success"], [idOf("Orders"), "success"]]);
    expect(Date.parse(tasks[1]!.createdTime)).toBeGreaterThanOrEqual(Date.parse(tasks[0]!.endTime));

    const same = await root.pulumi(["preview", "--expect-no-changes"], { timeoutMs: 300_000 });
    expect(same.code, describeResult(same)).toBe(0);
    const refreshed = await root.pulumi(["refresh", "--yes", "--expect-no-changes"], { timeoutMs: 300_000 });
    expect(refreshed.code, describeResult(refreshed)).toBe(0);

    // A new cron: the schedule is updated in place and activated again; nothing else changes.
    fs.writeFileSync(manifest, MANIFEST.replace('"0 3 * * *"', '"30 4 * * 1-5"'));
    emu.clearRequests();
    const changed = await root.pulumi(["up", "--yes", "--skip-preview"], { timeoutMs: 300_000 });
    expect(changed.code, describeResult(changed)).toBe(0);
    expect(changed.stdout).toMatch(/~ 1 updated/);
    expect(changed.stdout).not.toMatch(/replaced|created|deleted/);
    expect(writes()).toEqual([`PUT /v2/storage/branch/default/components/keboola.scheduler/configs/${schedulerConfig.id}`, "POST /scheduler/schedules"]);
    expect(activations()).toMatchObject([{ configurationId: schedulerConfig.id, schedule: { cronTab: "30 4 * * 1-5" } }]);

    const destroy = await root.pulumi(["destroy", "--yes", "--skip-preview"], { timeoutMs: 300_000 });
    expect(destroy.code, describeResult(destroy)).toBe(0);
    expect(activations()).toEqual([]);
    expect(liveConfigs()).toEqual([]);
  }, 900_000);
});
