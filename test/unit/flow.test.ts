import { describe, expect, it } from "vitest";
import { flowConfigurationSchema, flowProblems, invalidFlowMessage, phaseOrder, phaseTasks } from "../../keboola/flow";

// A flow configuration's shape and structural rules (keboola/flow.ts), shared by preview and the emulator.

const task = (id: string, phase: string | number, configId = `cfg-${id}`, extra: Record<string, unknown> = {}) => ({
  id,
  name: `Task ${id}`,
  phase,
  task: { componentId: "keboola.ex-generic-v2", configId, mode: "run" },
  ...extra,
});

const parse = (raw: unknown) => flowConfigurationSchema.parse(raw);

describe("flowConfigurationSchema", () => {
  it("reads the stored shape: ids as strings, enabled defaults to true, extra keys kept", () => {
    const flow = parse({
      phases: [{ id: 123, name: "Phase 1", dependsOn: [] }, { id: "456", name: "Phase 2", dependsOn: [123], behavior: { onError: "stop" } }],
      tasks: [task("1001", 123), task("1002", "456", "c2", { continueOnFailure: true })],
    });
    expect(flow.phases[1]).toEqual({ id: "456", name: "Phase 2", dependsOn: ["123"], behavior: { onError: "stop" } });
    expect(flow.tasks[0]).toMatchObject({ id: "1001", phase: "123", enabled: true, continueOnFailure: false });
    expect(flow.tasks[1]?.continueOnFailure).toBe(true);
  });

  it("runs a task's configuration in mode run unless it says otherwise", () => {
    const flow = parse({ phases: [{ id: "a", name: "a" }], tasks: [{ id: "1", name: "t", phase: "a", task: { componentId: "x", configId: "c" } }] });
    expect(flow.tasks[0]?.task.mode).toBe("run");
  });

  it("refuses a configuration without phases or tasks", () => {
    expect(flowConfigurationSchema.safeParse({ phases: [] }).success).toBe(false);
    expect(flowConfigurationSchema.safeParse({ tasks: [] }).success).toBe(false);
  });
});

describe("flowProblems", () => {
  it("a valid two-phase flow has none and runs extract before load", () => {
    const flow = parse({
      phases: [{ id: "load", name: "load", dependsOn: ["extract"] }, { id: "extract", name: "extract" }],
      tasks: [task("t2", "load"), task("t1", "extract")],
    });
    expect(flowProblems(flow)).toEqual([]);
    expect(phaseOrder(flow).map((p) => p.id)).toEqual(["extract", "load"]);
    expect(phaseTasks(flow, "load").map((t) => t.id)).toEqual(["t2"]);
  });

  it("names a dependsOn that names no phase, with the phases there are", () => {
    const flow = parse({ phases: [{ id: "a", name: "a", dependsOn: ["nope"] }], tasks: [task("t", "a")] });
    expect(flowProblems(flow)).toEqual([
      { path: "phases[0].dependsOn[0]", message: 'missing phase "nope", referenced from "a"', fix: 'name an existing phase (one of: "a")' },
    ]);
  });

  it("finds a cycle and shows it", () => {
    const flow = parse({
      phases: [{ id: "a", name: "a", dependsOn: ["c"] }, { id: "b", name: "b", dependsOn: ["a"] }, { id: "c", name: "c", dependsOn: ["b"] }],
      tasks: [task("1", "a"), task("2", "b"), task("3", "c")],
    });
    const problems = flowProblems(flow);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.message).toBe('found cycles in phases "dependsOn": "a" -> "c" -> "b" -> "a"');
  });

  it("finds a phase depending on itself", () => {
    const flow = parse({ phases: [{ id: "a", name: "a", dependsOn: ["a"] }], tasks: [task("1", "a")] });
    expect(flowProblems(flow).map((p) => p.message)).toEqual(['phase "a" depends on itself']);
  });

  it("finds an empty phase, a task in no phase, duplicate ids and an enabled task without a configuration", () => {
    const flow = parse({
      phases: [{ id: "a", name: "A" }, { id: "b", name: "B" }, { id: "a", name: "again" }],
      tasks: [task("1", "a"), task("1", "zzz"), { id: "3", name: "no config", phase: "a", task: { componentId: "x", mode: "run" } }],
    });
    expect(flowProblems(flow).map((p) => p.path)).toEqual(["phases[2].id", "tasks[1].id", "tasks[1].phase", "tasks[2].task", "phases[1]"]);
    expect(flowProblems(flow).find((p) => p.path === "phases[1]")?.message).toBe('phase "B" (id "b") has no tasks');
  });

  it("a disabled task needs no configuration", () => {
    const flow = parse({
      phases: [{ id: "a", name: "A" }],
      tasks: [task("1", "a"), { id: "2", name: "off", phase: "a", enabled: false, task: { componentId: "x", mode: "run" } }],
    });
    expect(flowProblems(flow)).toEqual([]);
    expect(phaseTasks(flow, "a").map((t) => t.id)).toEqual(["1"]);
  });

  // What a user reads at preview (provider/kinds/flow.ts) and in a failed flow job (the
  // emulator): each rule's message and the fix it proposes, whole.
  it("says what each problem is and how to fix it", () => {
    const flow = parse({
      phases: [{ id: "a", name: "A", dependsOn: ["a"] }, { id: "b", name: "B" }, { id: "a", name: "again" }],
      tasks: [task("1", "a"), task("1", "zzz"), { id: "3", name: "no config", phase: "a", task: { componentId: "x" } }],
    });
    expect(flowProblems(flow)).toEqual([
      { path: "phases[2].id", message: 'phase id "a" is used twice (also phases[0])', fix: "give each phase its own id" },
      { path: "phases[0].dependsOn[0]", message: 'phase "a" depends on itself', fix: "remove it from its own dependsOn" },
      { path: "tasks[1].id", message: 'task id "1" is used twice (also tasks[0])', fix: "give each task its own id" },
      { path: "tasks[1].phase", message: 'task "Task 1" is in phase "zzz", which does not exist', fix: 'name an existing phase (one of: "a", "b")' },
      {
        path: "tasks[2].task",
        message: "task.configId, or task.configData and task.componentId must be specified",
        fix: "name the configuration the task runs (or disable the task)",
      },
      { path: "phases[1]", message: 'phase "B" (id "b") has no tasks', fix: "add a task to it, or remove the phase (and its id from other phases' dependsOn)" },
    ]);
  });

  it("names no phase to choose from when there is none", () => {
    const flow = parse({ phases: [], tasks: [task("1", "a")] });
    expect(flowProblems(flow)).toEqual([
      { path: "tasks[0].phase", message: 'task "Task 1" is in phase "a", which does not exist', fix: "name an existing phase (one of: none)" },
    ]);
  });

  it("counts an empty configId as none, and configData as a configuration", () => {
    const flow = parse({
      phases: [{ id: "a", name: "A" }],
      tasks: [task("1", "a", ""), { id: "2", name: "inline", phase: "a", task: { componentId: "keboola.snowflake-transformation", configData: { parameters: {} } } }],
    });
    expect(flowProblems(flow).map((p) => p.path)).toEqual(["tasks[0].task"]);
  });

  it("reports a cycle once, from the phase it returns to, however many phases lead into it", () => {
    const flow = parse({
      phases: [
        { id: "x", name: "x", dependsOn: ["a"] },
        { id: "a", name: "a", dependsOn: ["b"] },
        { id: "b", name: "b", dependsOn: ["a"] },
        { id: "c", name: "c", dependsOn: ["b"] },
      ],
      tasks: [task("1", "x"), task("2", "a"), task("3", "b"), task("4", "c")],
    });
    expect(flowProblems(flow)).toEqual([
      { path: "phases[1].dependsOn", message: 'found cycles in phases "dependsOn": "a" -> "b" -> "a"', fix: "remove one dependsOn of the cycle so the phases can run in an order" },
    ]);
  });

  it("joins every problem into the failed flow job's message", () => {
    const flow = parse({ phases: [{ id: "a", name: "A", dependsOn: ["a"] }, { id: "b", name: "B" }], tasks: [task("1", "a")] });
    expect(invalidFlowMessage(flowProblems(flow))).toBe(
      'Invalid flow configuration: phases[0].dependsOn[0]: phase "a" depends on itself; phases[1]: phase "B" (id "b") has no tasks',
    );
  });
});

describe("phaseOrder", () => {
  it("runs a phase after all it depends on, even when listed before them, and otherwise in the listed order", () => {
    const flow = parse({
      phases: [
        { id: "c", name: "c", dependsOn: ["b"] },
        { id: "b", name: "b", dependsOn: ["a"] },
        { id: "z", name: "z" },
        { id: "a", name: "a" },
      ],
      tasks: [task("1", "a"), task("2", "b"), task("3", "c"), task("4", "z")],
    });
    expect(phaseOrder(flow).map((p) => p.id)).toEqual(["z", "a", "b", "c"]);
  });

  it("refuses phases that wait on each other instead of running them in some order", () => {
    const flow = parse({ phases: [{ id: "a", name: "a", dependsOn: ["b"] }, { id: "b", name: "b", dependsOn: ["a"] }, { id: "c", name: "c" }], tasks: [] });
    expect(() => phaseOrder(flow)).toThrow('phases "a", "b" have no order (a cycle, a self-dependency or a missing phase): check flowProblems first');
  });
});
