import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator, type Emulator } from "../../emulator/server";
import { call, pollUntil } from "./helpers";

// The Scheduler API (emulator/scheduler/routes.ts) and the clock that fires schedules (core/clock.ts).

let emu: Emulator;
const storage = (method: string, path: string, opts: Parameters<typeof call>[3] = {}) => call(emu.url, method, path, { token: "master", ...opts });
const scheduler = (method: string, path: string, opts: Parameters<typeof call>[3] = {}) => call(emu.urls.scheduler, method, path, { token: "master", ...opts });
const queue = (method: string, path: string) => call(emu.urls.queue, method, path, { token: "master" });
const clock = (json?: unknown) => (json === undefined ? call(emu.url, "GET", "/_emulator/clock") : call(emu.url, "POST", "/_emulator/clock", { json }));
const cfgPath = (component: string) => `/v2/storage/branch/default/components/${component}/configs`;

async function schedulerConfig(id: string, schedule: Record<string, unknown>, target: Record<string, unknown> = { componentId: "keboola.ex-generic-v2", configurationId: "users", mode: "run" }) {
  const r = await storage("POST", cfgPath("keboola.scheduler"), { json: { name: `Schedule ${id}`, configurationId: id, configuration: { schedule, target } } });
  expect(r.status).toBe(201);
}

beforeAll(async () => {
  emu = await startEmulator({ token: "master", limitedToken: "limited", taskDurationMs: 20 });
  await storage("POST", cfgPath("keboola.ex-generic-v2"), { json: { name: "Users", configurationId: "users", configuration: { parameters: {} } } });
});
afterAll(() => emu.close());

describe("the Scheduler API", () => {
  it("is listed in the Storage index", async () => {
    const index = await storage("GET", "/v2/storage?exclude=components");
    expect(index.body.services).toContainEqual({ id: "scheduler", url: `${emu.url}/scheduler` });
  });

  it("activates a scheduler configuration, lists, gets, refreshes the token and deletes it", async () => {
    await schedulerConfig("s-basic", { cronTab: "*/2 * * * *", timezone: "UTC", state: "disabled" });
    const before = (await scheduler("GET", "/schedules")).body.length;
    const created = await scheduler("POST", "/schedules", { json: { configurationId: "s-basic" } });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: created.body.id,
      tokenId: created.body.tokenId,
      configurationId: "s-basic",
      configurationVersionId: "1",
      schedule: { cronTab: "*/2 * * * *", timezone: "UTC", state: "disabled" },
      target: { componentId: "keboola.ex-generic-v2", configurationId: "users", configurationRowIds: [], mode: "run", tag: "" },
      executions: [],
    });
    expect((await scheduler("GET", "/schedules")).body).toHaveLength(before + 1);
    expect((await scheduler("GET", `/schedules/${created.body.id}`)).body).toEqual(created.body);
    // Activating again (as keboola-as-code does on every save) replaces the schedule.
    const again = await scheduler("POST", "/schedules", { json: { configurationId: "s-basic" } });
    expect(again.body.id).not.toBe(created.body.id);
    expect((await scheduler("GET", "/schedules")).body).toHaveLength(before + 1);
    expect((await scheduler("GET", `/schedules/${created.body.id}`)).status).toBe(404);
    const refreshed = await scheduler("POST", `/schedules/${again.body.id}/refreshToken`);
    expect(refreshed.status).toBe(202);
    // The same token, refreshed: keboola-sdk-go scheduler_api_test.go TestSchedulerTokenRefresh reads the
    // schedule's tokenId from before the refresh back, and the Scheduler's API refreshes "the token
    // associated with the schedule" (storage-tokens-api.test.ts cites both).
    expect((await scheduler("GET", `/schedules/${again.body.id}`)).body.tokenId).toBe(again.body.tokenId);
    // Lists filter by the target.
    expect((await scheduler("GET", "/schedules?componentId=keboola.ex-generic-v2&configurationId=users")).body.map((x: { id: string }) => x.id)).toContain(again.body.id);
    expect((await scheduler("GET", "/schedules?componentId=keboola.ex-generic-v2&configurationId=other")).body).toEqual([]);
    expect((await scheduler("DELETE", `/schedules/${again.body.id}`)).status).toBe(204);
    const gone = await scheduler("GET", `/schedules/${again.body.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ error: `Schedule "${again.body.id}" not found`, code: 404, status: "error" });
  });

  it("deletes every schedule of a configuration", async () => {
    await schedulerConfig("s-bycfg", { cronTab: "0 3 * * *", timezone: "UTC", state: "disabled" });
    const s = await scheduler("POST", "/schedules", { json: { configurationId: "s-bycfg" } });
    expect((await scheduler("DELETE", "/configurations/s-bycfg")).status).toBe(204);
    expect((await scheduler("GET", `/schedules/${s.body.id}`)).status).toBe(404);
  });

  it("refuses a missing configuration (404), an invalid one (400, with the reason), and tokens that may not", async () => {
    const missing = await scheduler("POST", "/schedules", { json: { configurationId: "nope" } });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: 'Configuration "nope" of component "keboola.scheduler" not found', code: 404 });
    await schedulerConfig("s-badcron", { cronTab: "0 0 3 * * *", timezone: "UTC", state: "enabled" });
    const badCron = await scheduler("POST", "/schedules", { json: { configurationId: "s-badcron" } });
    expect(badCron.status).toBe(400);
    expect(badCron.body.error).toMatch(/^Invalid configuration: "schedule.cronTab": "0 0 3 \* \* \*" has 6 fields/);
    await schedulerConfig("s-badtz", { cronTab: "0 3 * * *", timezone: "Mars/Base", state: "enabled" });
    expect((await scheduler("POST", "/schedules", { json: { configurationId: "s-badtz" } })).body.error).toMatch(/"Mars\/Base" is not an IANA timezone name/);
    expect((await scheduler("POST", "/schedules", { json: {} })).status).toBe(400);
    expect((await call(emu.urls.scheduler, "GET", "/schedules", { token: null })).body).toMatchObject({ error: "Authentication token is missing", code: 401 });
    expect((await call(emu.urls.scheduler, "GET", "/schedules", { token: "wrong" })).status).toBe(401);
    const limited = await call(emu.urls.scheduler, "POST", "/schedules", { token: "limited", json: { configurationId: "s-basic" } });
    expect(limited.status).toBe(403);
  });
});

describe("the clock", () => {
  it("answers the emulated time and refuses to go back or a malformed body", async () => {
    const now = (await clock()).body.now as string;
    expect(Math.abs(Date.parse(now) - Date.now())).toBeLessThan(60_000 + (emu.state.clockOffsetMs ?? 0));
    const back = await clock({ now: "2000-01-01T00:00:00Z" });
    expect(back.status).toBe(400);
    expect(back.body.error).toMatch(/cannot go back/);
    expect((await clock({ advance: "soon" })).body.error).toMatch(/not a duration/);
    expect((await clock({})).status).toBe(400);
  });

  it("fires an enabled schedule once when it passes its time, running the target with the schedule's token", async () => {
    // A daily schedule; move to just before its fire time, then across it by 24h.
    const start = Date.parse((await clock()).body.now);
    const day = new Date(start + 2 * 86_400_000);
    const threeAm = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), 2, 0); // 03:00 in Prague (winter) or 04:00 (summer)
    await schedulerConfig("s-daily", { cronTab: "0 3 * * *", timezone: "Europe/Prague", state: "enabled" });
    const s = (await scheduler("POST", "/schedules", { json: { configurationId: "s-daily" } })).body;
    expect((await clock({ now: new Date(threeAm - 3 * 3_600_000).toISOString() })).status).toBe(200);
    const jobsOf = async () => (await queue("GET", "/jobs?component=keboola.ex-generic-v2&config=users")).body as Array<{ id: string; token: { id: string } }>;
    const ran = (await scheduler("GET", `/schedules/${s.id}`)).body.executions.length;
    const advanced = await clock({ advance: "24h" });
    expect(advanced.status).toBe(200);
    const after = (await scheduler("GET", `/schedules/${s.id}`)).body;
    expect(after.executions).toHaveLength(ran + 1);
    const execution = after.executions[0];
    // Fired at the tick: the emulated time just after the jump (real milliseconds pass meanwhile).
    expect(execution.executionTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(Date.parse(advanced.body.now) - Date.parse(execution.executionTime)).toBeGreaterThanOrEqual(0);
    expect(Date.parse(advanced.body.now) - Date.parse(execution.executionTime)).toBeLessThan(5000);
    const job = (await jobsOf()).find((j) => j.id === execution.jobId);
    expect(job).toMatchObject({ mode: "run", config: "users", token: { id: s.tokenId } });
    const done = await pollUntil(() => queue("GET", `/jobs/${execution.jobId}`), (r) => r.body.isFinished);
    expect(done.body.status).toBe("success");
    // A jump of 72h over a daily cron is one tick: one more run, not three.
    await clock({ advance: "72h" });
    expect((await scheduler("GET", `/schedules/${s.id}`)).body.executions).toHaveLength(ran + 2);
    // A disabled or deleted schedule does not fire.
    await scheduler("DELETE", `/schedules/${s.id}`);
    await schedulerConfig("s-off", { cronTab: "0 * * * *", timezone: "UTC", state: "disabled" });
    const off = (await scheduler("POST", "/schedules", { json: { configurationId: "s-off" } })).body;
    const count = (await jobsOf()).length;
    await clock({ advance: "48h" });
    expect((await jobsOf()).length).toBe(count);
    expect((await scheduler("GET", `/schedules/${off.id}`)).body.executions).toEqual([]);
  });
});

describe("a schedule running a flow (issue 18's scenario)", () => {
  it("advancing the clock 24h runs the nightly flow, and its two phases' jobs in order", async () => {
    await storage("POST", cfgPath("keboola.ex-generic-v2"), { json: { name: "Orders", configurationId: "orders", configuration: { parameters: {} } } });
    const task = (id: string, phase: string, configId: string) => ({ id, name: configId, phase, enabled: true, continueOnFailure: false, task: { componentId: "keboola.ex-generic-v2", configId, mode: "run" } });
    await storage("POST", cfgPath("keboola.flow"), {
      json: {
        name: "Nightly",
        configurationId: "nightly",
        configuration: {
          phases: [{ id: "extract", name: "extract", dependsOn: [] }, { id: "load", name: "load", dependsOn: ["extract"] }],
          tasks: [task("t1", "extract", "users"), task("t2", "load", "orders")],
        },
      },
    });
    await schedulerConfig("s-nightly", { cronTab: "0 3 * * *", timezone: "Europe/Prague", state: "enabled" }, { componentId: "keboola.flow", configurationId: "nightly", mode: "run" });
    const s = (await scheduler("POST", "/schedules", { json: { configurationId: "s-nightly" } })).body;
    await clock({ advance: "24h" });
    const [execution] = (await scheduler("GET", `/schedules/${s.id}`)).body.executions;
    expect(execution).toBeDefined();
    const flow = (await pollUntil(() => queue("GET", `/jobs/${execution.jobId}`), (r) => r.body.isFinished)).body;
    expect(flow).toMatchObject({ component: "keboola.flow", config: "nightly", status: "success" });
    const tasks = ((await queue("GET", `/jobs?parentRunId=${flow.runId}`)).body as Array<{ id: string; config: string; status: string; createdTime: string; endTime: string }>).sort(
      (a, b) => Number(a.id) - Number(b.id),
    );
    expect(tasks.map((t) => [t.config, t.status])).toEqual([["users", "success"], ["orders", "success"]]);
    expect(Date.parse(tasks[1]!.createdTime)).toBeGreaterThanOrEqual(Date.parse(tasks[0]!.endTime));
  });
});

describe("a restart from the state file", () => {
  it("keeps the schedules, the clock and the next fire", async () => {
    const dir = mkdtempSync(join(tmpdir(), "emu-sched-"));
    try {
      const stateFile = join(dir, "state.json");
      const first = await startEmulator({ token: "master", taskDurationMs: 5, stateFile });
      const at = (e: Emulator) => (method: string, path: string, json?: unknown) => call(e.url, method, path, { token: "master", ...(json === undefined ? {} : { json }) });
      await at(first)("POST", cfgPath("keboola.ex-generic-v2"), { name: "Users", configurationId: "users", configuration: {} });
      await at(first)("POST", cfgPath("keboola.scheduler"), {
        name: "Hourly",
        configurationId: "hourly",
        configuration: { schedule: { cronTab: "0 * * * *", timezone: "UTC", state: "enabled" }, target: { componentId: "keboola.ex-generic-v2", configurationId: "users", mode: "run" } },
      });
      const s = (await call(first.urls.scheduler, "POST", "/schedules", { token: "master", json: { configurationId: "hourly" } })).body;
      const moved = (await call(first.url, "POST", "/_emulator/clock", { json: { advance: "10d" } })).body;
      await first.close();

      const second = await startEmulator({ token: "master", taskDurationMs: 5, stateFile });
      try {
        const clockNow = (await call(second.url, "GET", "/_emulator/clock")).body;
        expect(clockNow.offsetMs).toBe(moved.offsetMs);
        const kept = (await call(second.urls.scheduler, "GET", `/schedules/${s.id}`, { token: "master" })).body;
        expect(kept.executions).toHaveLength(1);
        await call(second.url, "POST", "/_emulator/clock", { json: { advance: "1h" } });
        expect((await call(second.urls.scheduler, "GET", `/schedules/${s.id}`, { token: "master" })).body.executions).toHaveLength(2);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
