import { describe, expect, it } from "vitest";
import { flowConfigurationSchema, flowProblems, phaseOrder, phaseTasks } from "../../keboola/flow";

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
});
