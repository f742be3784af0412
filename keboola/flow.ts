// A flow's configuration (`keboola.flow`, and the older `keboola.orchestrator`): its shape and its
// structural rules, as the provider's preview checks and the emulator's flow jobs both apply them.
//
// Shape: keboola/keboola-as-code internal/pkg/fixtures/configs/orchestrator.json and the parsers
// internal/pkg/mapper/orchestrator/{parse_phase,parse_task,remote_load}.go:
//   {phases: [{id, name, dependsOn: [phase ids]}],
//    tasks: [{id, name, phase, enabled, continueOnFailure, task: {componentId, configId|configData, mode}}]}
// Ids are strings or integers (the parsers accept both and compare them as strings); `enabled`
// defaults to true; extra keys are kept as they are.
// Rules: keboola-as-code internal/pkg/mapper/orchestrator/sort.go (`missing phase "<id>",
// referenced from "<id>"`, `found cycles in phases "dependsOn"`), parse_task.go (an enabled task
// names a configuration or carries configData); plus "no empty phase" (issue 18), which the
// orchestrator would run as a no-op.

import { z } from "zod";

export const FLOW_COMPONENT_ID = "keboola.flow";
export const ORCHESTRATOR_COMPONENT_ID = "keboola.orchestrator";
/** Components whose jobs run a flow configuration's phases. */
export const FLOW_COMPONENT_IDS: readonly string[] = [FLOW_COMPONENT_ID, ORCHESTRATOR_COMPONENT_ID];

const id = z.union([z.string().min(1), z.number().int()]).transform((v) => String(v));

export const flowPhaseSchema = z.looseObject({
  id,
  name: z.string().min(1),
  dependsOn: z.array(id).default([]),
});

export const flowTaskSchema = z.looseObject({
  id,
  name: z.string().min(1),
  phase: id,
  enabled: z.boolean().default(true),
  continueOnFailure: z.boolean().default(false),
  task: z.looseObject({
    componentId: z.string().min(1),
    configId: z.union([z.string(), z.number().int()]).transform((v) => String(v)).optional(),
    configData: z.record(z.string(), z.unknown()).optional(),
    mode: z.string().default("run"),
  }),
});

/** A flow configuration's content, as stored in Storage (the parsed form has string ids). */
export const flowConfigurationSchema = z.looseObject({
  phases: z.array(flowPhaseSchema),
  tasks: z.array(flowTaskSchema),
});

export type FlowPhase = z.output<typeof flowPhaseSchema>;
export type FlowTask = z.output<typeof flowTaskSchema>;
export type FlowConfiguration = z.output<typeof flowConfigurationSchema>;

/** One broken rule: where (a path into the configuration), what, and how to fix it. */
export interface FlowProblem {
  path: string;
  message: string;
  fix: string;
}

/**
 * Every structural problem of a parsed flow: duplicate ids, a dependsOn or a task naming no
 * phase, a cycle among phases, a phase without tasks, an enabled task without a configuration.
 * Empty when the flow can run.
 */
export function flowProblems(flow: FlowConfiguration): FlowProblem[] {
  const problems: FlowProblem[] = [];
  const phaseIds = new Map<string, number>();
  flow.phases.forEach((p, i) => {
    if (phaseIds.has(p.id)) {
      problems.push({ path: `phases[${i}].id`, message: `phase id "${p.id}" is used twice (also phases[${phaseIds.get(p.id)}])`, fix: "give each phase its own id" });
    } else phaseIds.set(p.id, i);
  });
  const known = [...phaseIds.keys()].map((k) => `"${k}"`).join(", ") || "none";
  flow.phases.forEach((p, i) =>
    p.dependsOn.forEach((dep, j) => {
      if (!phaseIds.has(dep)) {
        problems.push({ path: `phases[${i}].dependsOn[${j}]`, message: `missing phase "${dep}", referenced from "${p.id}"`, fix: `name an existing phase (one of: ${known})` });
      } else if (dep === p.id) {
        problems.push({ path: `phases[${i}].dependsOn[${j}]`, message: `phase "${p.id}" depends on itself`, fix: "remove it from its own dependsOn" });
      }
    }),
  );
  for (const cycle of phaseCycles(flow.phases)) {
    problems.push({
      path: `phases[${phaseIds.get(cycle[0]!)}].dependsOn`,
      message: `found cycles in phases "dependsOn": ${[...cycle, cycle[0]].map((c) => `"${c}"`).join(" -> ")}`,
      fix: "remove one dependsOn of the cycle so the phases can run in an order",
    });
  }
  const taskIds = new Map<string, number>();
  const phasesWithTasks = new Set<string>();
  flow.tasks.forEach((t, i) => {
    if (taskIds.has(t.id)) {
      problems.push({ path: `tasks[${i}].id`, message: `task id "${t.id}" is used twice (also tasks[${taskIds.get(t.id)}])`, fix: "give each task its own id" });
    } else taskIds.set(t.id, i);
    if (!phaseIds.has(t.phase)) {
      problems.push({ path: `tasks[${i}].phase`, message: `task "${t.name}" is in phase "${t.phase}", which does not exist`, fix: `name an existing phase (one of: ${known})` });
    } else phasesWithTasks.add(t.phase);
    if (t.enabled && (t.task.configId === undefined || t.task.configId === "") && t.task.configData === undefined) {
      problems.push({ path: `tasks[${i}].task`, message: "task.configId, or task.configData and task.componentId must be specified", fix: "name the configuration the task runs (or disable the task)" });
    }
  });
  flow.phases.forEach((p, i) => {
    if (!phasesWithTasks.has(p.id)) {
      problems.push({ path: `phases[${i}]`, message: `phase "${p.name}" (id "${p.id}") has no tasks`, fix: "add a task to it, or remove the phase (and its id from other phases' dependsOn)" });
    }
  });
  return problems;
}

/**
 * The cycles among phases' dependsOn (each as the ids along it, from the phase it returns to).
 * A self-dependency and a missing phase are problems of their own, so neither is an edge here.
 */
function phaseCycles(phases: readonly FlowPhase[]): string[][] {
  const ids = new Set(phases.map((p) => p.id));
  const deps = new Map(phases.map((p) => [p.id, p.dependsOn.filter((d) => d !== p.id && ids.has(d))]));
  const state = new Map<string, "visiting" | "done">();
  // Stryker disable next-line ArrayDeclaration: equivalent: a cycle is cut from the stack at the phase it returns to, so nothing below that phase is ever read
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    const seen = state.get(node);
    if (seen === "visiting") cycles.push(stack.slice(stack.indexOf(node)));
    if (seen !== undefined) return;
    state.set(node, "visiting");
    stack.push(node);
    for (const dep of deps.get(node)!) visit(dep);
    stack.pop();
    state.set(node, "done");
  };
  for (const p of phases) visit(p.id);
  return cycles;
}

/**
 * The phases in the order a flow job runs them: each after every phase it depends on, otherwise
 * in the order the configuration lists them. Only for a flow without problems (flowProblems):
 * phases that wait on each other, on themselves or on a missing phase have no order.
 */
export function phaseOrder(flow: FlowConfiguration): FlowPhase[] {
  const done = new Set<string>();
  const order: FlowPhase[] = [];
  const pending = [...flow.phases];
  while (pending.length > 0) {
    const i = pending.findIndex((p) => p.dependsOn.every((d) => done.has(d)));
    if (i < 0) throw new Error(`phases ${pending.map((p) => `"${p.id}"`).join(", ")} have no order (a cycle, a self-dependency or a missing phase): check flowProblems first`);
    const [next] = pending.splice(i, 1);
    order.push(next!);
    done.add(next!.id);
  }
  return order;
}

/** A phase's tasks that run (enabled ones), in the configuration's order. */
export function phaseTasks(flow: FlowConfiguration, phaseId: string): FlowTask[] {
  return flow.tasks.filter((t) => t.phase === phaseId && t.enabled);
}

// What a flow job reports in `result.message` when it ends. The real flow runner's texts are not
// in the stored public sources, so these are the emulator's, written once here so the provider
// and tests read them from one place: a failed task names the task, its phase and the task job's
// own message.
export const FLOW_SUCCESS_MESSAGE = "Flow finished successfully.";
export const flowTaskFailedMessage = (task: string, phase: string, jobId: string | null, message: string) =>
  `Task "${task}" of phase "${phase}" failed${jobId ? ` (job ${jobId})` : ""}: ${message}`;
export const invalidFlowMessage = (problems: readonly FlowProblem[]) =>
  `Invalid flow configuration: ${problems.map((p) => `${p.path}: ${p.message}`).join("; ")}`;
