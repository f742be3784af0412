import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator/server";
import { call, pollUntil } from "./helpers";

// Flow jobs (emulator/queue/flow.ts): a keboola.flow job runs its phases' task jobs in order.

let emu: Emulator;
const storage = (method: string, path: string, opts: Parameters<typeof call>[3] = {}) => call(emu.url, method, path, { token: "master", ...opts });
const queue = (method: string, path: string, opts: Parameters<typeof call>[3] = {}) => call(emu.urls.queue, method, path, { token: "master", ...opts });
const cfgPath = (component: string) => `/v2/storage/branch/default/components/${component}/configs`;
const EX = "keboola.ex-generic-v2";

type Job = { id: string; type: string; isSuccess: boolean | null; runId: string; parentRunId: string; status: string; isFinished: boolean; config: string; orchestrationJobId: string | null; orchestrationTaskId: string | null; result: { message?: string }; createdTime: string; endTime: string | null };

const task = (id: string, phase: string, configId: string, extra: Record<string, unknown> = {}) => ({
  id,
  name: `run ${configId}`,
  phase,
  enabled: true,
  continueOnFailure: false,
  task: { componentId: EX, configId, mode: "run" },
  ...extra,
});

async function flowConfig(id: string, configuration: Record<string, unknown>, component = "keboola.flow") {
  expect((await storage("POST", cfgPath(component), { json: { name: `Flow ${id}`, configurationId: id, configuration } })).status).toBe(201);
}

async function runFlow(id: string, component = "keboola.flow"): Promise<{ flow: Job; tasks: Job[] }> {
  const created = await queue("POST", "/jobs", { json: { component, config: id, mode: "run" } });
  expect(created.status).toBe(201);
  const flow = (await pollUntil(() => queue("GET", `/jobs/${created.body.id}`), (r) => r.body.isFinished)).body as Job;
  const tasks = (await queue("GET", `/jobs?parentRunId=${flow.runId}`)).body as Job[];
  return { flow, tasks: tasks.sort((a, b) => Number(a.id) - Number(b.id)) };
}

beforeAll(async () => {
  emu = await startEmulator({ token: "master", taskDurationMs: 20 });
  for (const id of ["users", "orders", "extra"]) {
    await storage("POST", cfgPath(EX), { json: { name: id, configurationId: id, configuration: { parameters: {} } } });
  }
});
afterAll(() => emu.close());
beforeEach(() => emu.setFaults({}));

describe("flow jobs", () => {
  it("run phase by phase: the second phase's job starts only after the first phase's job finished", async () => {
    await flowConfig("nightly", {
      phases: [{ id: "load", name: "load", dependsOn: ["extract"] }, { id: "extract", name: "extract", dependsOn: [] }],
      tasks: [task("t-orders", "load", "orders"), task("t-users", "extract", "users")],
    });
    const { flow, tasks } = await runFlow("nightly");
    // The message is the emulator's own (keboola/flow.ts: the real runner's text is not recorded);
    // written out, so a job that ends with another or none fails here.
    expect(flow).toMatchObject({ status: "success", type: "orchestrationContainer", result: { message: "Flow finished successfully." }, parentRunId: "" });
    expect(tasks.map((t) => [t.config, t.status, t.type])).toEqual([["users", "success", "standard"], ["orders", "success", "standard"]]);
    for (const t of tasks) {
      expect(t).toMatchObject({ parentRunId: flow.runId, runId: `${flow.runId}.${t.id}`, orchestrationJobId: flow.id });
    }
    expect(tasks.map((t) => t.orchestrationTaskId)).toEqual(["t-users", "t-orders"]);
    // Order, as the Queue API shows it: the load job was created once the extract job had ended.
    const [extract, load] = tasks as [Job, Job];
    expect(Date.parse(load.createdTime)).toBeGreaterThanOrEqual(Date.parse(extract.endTime!));
    expect(Date.parse(flow.endTime!)).toBeGreaterThanOrEqual(Date.parse(load.endTime!));
  });

  it("a failing task fails the flow with the task's message, and no later phase runs", async () => {
    await flowConfig("fails", {
      phases: [{ id: "1", name: "first" }, { id: "2", name: "second", dependsOn: ["1"] }],
      tasks: [task("a", "1", "users"), task("b", "2", "orders")],
    });
    emu.setFaults({ failTasks: [EX] });
    const { flow, tasks } = await runFlow("fails");
    expect(flow.status).toBe("error");
    expect(flow.result.message).toBe(`Task "run users" of phase "first" failed (job ${tasks[0]!.id}): Internal Server Error occurred.`);
    expect(tasks.map((t) => t.config)).toEqual(["users"]);
    expect(flow.result).toMatchObject({
      tasks: [
        { id: "a", phase: "1", status: "error", jobId: tasks[0]!.id, component: EX },
        { id: "b", phase: "2", status: "skipped" },
      ],
      phases: [
        { id: "1", name: "first", status: "error" },
        { id: "2", name: "second", status: "skipped" },
      ],
    });
  });

  it("continueOnFailure lets the flow go on; a task whose configuration is gone fails it", async () => {
    await flowConfig("goes-on", {
      phases: [{ id: "1", name: "first" }, { id: "2", name: "second", dependsOn: ["1"] }],
      tasks: [task("a", "1", "nope", { continueOnFailure: true }), task("b", "2", "orders")],
    });
    const on = await runFlow("goes-on");
    expect(on.flow).toMatchObject({ status: "warning", isSuccess: true, result: { tasks: [{ id: "a", status: "error" }, { id: "b", status: "success" }], phases: [{ status: "warning" }, { status: "success" }] } });
    expect(on.tasks.map((t) => [t.config, t.status])).toEqual([["orders", "success"]]);

    await flowConfig("stops", { phases: [{ id: "1", name: "first" }], tasks: [task("a", "1", "nope")] });
    const stops = await runFlow("stops");
    expect(stops.flow.status).toBe("error");
    expect(stops.flow.result.message).toBe('Task "run nope" of phase "first" failed: Cannot resolve job parameters: Configuration "nope" not found');
  });

  it("runs the tasks of one phase together, skips disabled ones, and works for keboola.orchestrator too", async () => {
    await flowConfig(
      "parallel",
      {
        phases: [{ id: 1, name: "only" }],
        tasks: [task("a", "1", "users"), task("b", "1", "orders"), task("c", "1", "extra", { enabled: false })],
      },
      "keboola.orchestrator",
    );
    const { flow, tasks } = await runFlow("parallel", "keboola.orchestrator");
    expect(flow.status).toBe("success");
    expect(tasks.map((t) => t.config)).toEqual(["users", "orders"]);
  });

  it("a job created with X-KBC-RunId is that run's child, and lists filter by runId", async () => {
    const parent = await queue("POST", "/jobs", { json: { component: EX, config: "users" } });
    const child = await queue("POST", "/jobs", { json: { component: EX, config: "orders" }, headers: { "X-KBC-RunId": parent.body.runId } });
    expect(child.body).toMatchObject({ runId: `${parent.body.runId}.${child.body.id}`, parentRunId: parent.body.runId });
    expect((await queue("GET", `/jobs?runId=${child.body.runId}`)).body.map((j: Job) => j.id)).toEqual([child.body.id]);
  });

  it("a flow that breaks a rule fails with the problems", async () => {
    await flowConfig("cyclic", {
      phases: [{ id: "a", name: "a", dependsOn: ["b"] }, { id: "b", name: "b", dependsOn: ["a"] }],
      tasks: [task("1", "a", "users"), task("2", "b", "orders")],
    });
    const { flow, tasks } = await runFlow("cyclic");
    expect(flow.status).toBe("error");
    expect(flow.result.message).toMatch(/^Invalid flow configuration: phases\[0\]\.dependsOn: found cycles in phases "dependsOn"/);
    expect(tasks).toEqual([]);
  });
});
