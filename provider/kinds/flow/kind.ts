import { z } from "zod";
import { branchSchema, storageIdSchema } from "../../validation/ids";
import type * as dynamic from "@pulumi/pulumi/dynamic";
import type { Configuration } from "../../api/storage";
import { asError } from "../../api/errors";
import { checkWith, containsUnknown, isUnknown, knownFields, type Partly } from "../../validation/check";
import { FLOW_COMPONENT_ID, flowConfigurationSchema, flowProblems, type FlowConfiguration } from "../../../keboola/flow";
import { defineResource, markerDiff, replaces, untracked, type CheckedOf, type InputsOf, type StateOf } from "../../lifecycle/define";
import type { CheckResponse, Handler } from "../../lifecycle/call";
import { PartialFailure } from "../../lifecycle/types";
import {
  ADOPT_NEEDS_ID,
  DEFAULT_CHANGE_DESCRIPTION,
  addressedConfig,
  adoptExistingSchema,
  takesOverBranchCopy,
  assertCanManage,
  beginConfigUpdate,
  assertCanPurge,
  configResourceId,
  convergeWholeConfig,
  createConfigOnce,
  deleteConfigResource,
  findLiveConfig,
  normalizeConfig,
  unknownsAsOld,
} from "../../lifecycle/configurations";
import { withMarker } from "../../lifecycle/ownership";
import { branchFailure, configSlotFailure, firstFailure, isNew, unlessForbidden } from "../../lifecycle/preflight";

// A flow (`keboola.flow` configuration): phases run one after the other as their dependencies
// say, each running its tasks' jobs. Declared by phase names: a phase's `dependsOn` names other
// phases, a task names the configuration it runs (componentId + configId, e.g. `users.configId`).
// Written as the flow configuration the Keboola UI writes (keboola/flow.ts: phases with ids and
// dependsOn ids, tasks with ids, their phase and `task: {componentId, configId, mode: "run"}`);
// ids are the positions (phase i has id i+1, tasks are numbered in order), so the same
// declaration always writes the same configuration. The structural rules (a dependsOn naming no
// phase, cycles, an empty phase) are keboola/flow.ts's, shared with the emulator's flow jobs;
// preview also checks that each task's configuration exists or is declared in the same program.

const taskSchema = z
  .object({
    componentId: z
      .string({ error: 'required: the component of the configuration the task runs, e.g. "keboola.ex-generic-v2"' })
      .min(1, "must not be empty")
      .describe("Component of the configuration the task runs."),
    configId: z.string({ error: "required: the configuration the task runs (ComponentConfig.configId)" }).min(1, "must not be empty").describe("Configuration the task runs (ComponentConfig.configId)."),
    name: z.string().min(1, "must not be empty").optional().describe('Task name (default "<componentId>-<configId>").'),
    enabled: z.boolean().default(true).describe("A disabled task is skipped when the flow runs."),
    continueOnFailure: z.boolean().default(false).describe("Continue with the next phases when this task fails."),
  })
  .strict();

const phaseSchema = z
  .object({
    name: z.string({ error: "required: the phase name (dependsOn names phases by it)" }).min(1, "must not be empty").describe("Phase name, unique in the flow; dependsOn names phases by it."),
    dependsOn: z.array(z.string().min(1, "must not be empty")).default([]).describe("Names of the phases that must finish before this one starts."),
    tasks: z.array(taskSchema, { error: "must be a list of tasks" }).describe("The configurations this phase runs (in parallel)."),
  })
  .strict();

export const flow = defineResource({
  type: "Flow",
  description: "A flow (keboola.flow configuration): phases of tasks, each task running a configuration.",
  inputs: {
    branchId: replaces(branchSchema),
    configId: replaces(
      storageIdSchema("must not be empty: omit it to let Keboola choose the id")
        .optional()
        .describe("Configuration id; derived from the resource when omitted. Changing it replaces the flow."),
      { whenSet: true },
    ),
    name: z.string({ error: "required: the flow name" }).min(1, "must not be empty").describe("Flow name."),
    description: z.string().default("").describe("Flow description."),
    phases: z.array(phaseSchema, { error: "must be a list of phases" }).min(1, "must have at least one phase").describe("Phases, in order; each runs after the phases it dependsOn."),
    isDisabled: z.boolean().default(false).describe("A disabled flow is not run (a schedule of it is refused at preview)."),
    changeDescription: untracked(z.string().optional().describe(`Version description written with each change (default "${DEFAULT_CHANGE_DESCRIPTION}").`)),
    purgeOnDelete: z.boolean().default(false).describe("On delete, also purge the configuration from the trash."),
    adoptExisting: untracked(adoptExistingSchema),
  },
  refine: (v, ctx) => {
    if (v.adoptExisting === true && v.configId === undefined) ctx.addIssue({ code: "custom", path: ["adoptExisting"], message: ADOPT_NEEDS_ID });
    if (!isUnknown(v.phases)) for (const issue of flowIssues(v.phases)) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
  },
  outputs: {
    configId: z.string().describe("Id of the keboola.flow configuration."),
    componentId: z.string().describe(`Always "${FLOW_COMPONENT_ID}": a Schedule's target is { componentId, configId } of the flow.`),
    version: z.number().int().describe("Configuration version."),
  },
  internal: {
    /** Whether configId was declared (else it was derived, and a later declared configId is not a new one). */
    explicitConfigId: z.boolean(),
  },
});

/** Kept for the manifest's schema: the inputs of a Flow, of its phases and of their tasks. */
export const flowInputsSchema = flow.inputs;
export const flowTaskInputsSchema = taskSchema;
export const flowPhaseInputsSchema = phaseSchema;
export type FlowInputs = InputsOf<typeof flow>;
type Parsed = CheckedOf<typeof flow>;
type State = StateOf<typeof flow>;
type Phase = Parsed["phases"][number];


// ---------------------------------------------------------------------------------------------
// The flow configuration and its rules

/** The flow configuration the phases declare (ids by position; dependsOn names naming no phase left out). */
export function flowConfiguration(phases: readonly Phase[]): FlowConfiguration {
  const ids = new Map(phases.map((p, i) => [p.name, String(i + 1)]));
  let taskId = 0;
  return {
    phases: phases.map((p, i) => ({ id: String(i + 1), name: p.name, dependsOn: p.dependsOn.flatMap((d) => (ids.has(d) ? [ids.get(d)!] : [])) })),
    tasks: phases.flatMap((p, i) =>
      p.tasks.map((t) => ({
        id: String(++taskId),
        name: t.name ?? `${t.componentId}-${t.configId}`,
        phase: String(i + 1),
        enabled: t.enabled,
        continueOnFailure: t.continueOnFailure,
        task: { componentId: t.componentId, configId: t.configId, mode: "run" },
      })),
    ),
  };
}

/** As Storage keeps it: the ids as numbers, as the Keboola UI writes them. */
export function storedConfiguration(phases: readonly Phase[]): Record<string, unknown> {
  const c = flowConfiguration(phases);
  return {
    phases: c.phases.map((p) => ({ id: Number(p.id), name: p.name, dependsOn: p.dependsOn.map(Number) })),
    tasks: c.tasks.map((t) => ({ id: Number(t.id), name: t.name, phase: Number(t.phase), enabled: t.enabled, continueOnFailure: t.continueOnFailure, task: t.task })),
  };
}

/** The phases a stored flow configuration declares, or undefined when it is not one this resource can read. */
export function phasesOf(configuration: unknown): Phase[] | undefined {
  const parsed = flowConfigurationSchema.safeParse(configuration);
  if (!parsed.success) return undefined;
  const c = parsed.data;
  const names = new Map(c.phases.map((p) => [p.id, p.name]));
  return c.phases.map((p) => ({
    name: p.name,
    dependsOn: p.dependsOn.map((d) => names.get(d) ?? d),
    tasks: c.tasks
      .filter((t) => t.phase === p.id)
      .map((t) => {
        const componentId = t.task.componentId;
        const configId = t.task.configId ?? "";
        return {
          componentId,
          configId,
          ...(t.name !== `${componentId}-${configId}` ? { name: t.name } : {}),
          enabled: t.enabled,
          continueOnFailure: t.continueOnFailure,
        };
      }),
  }));
}

/**
 * The structural problems of the declared phases, at their input paths, naming phases by name. At
 * preview a part may be unknown (a task's configId is another resource's output): each rule runs
 * when what it compares is known.
 */
function flowIssues(phases: Partly<Phase>[]): Array<{ path: PropertyKey[]; message: string }> {
  const out: Array<{ path: PropertyKey[]; message: string }> = [];
  const names = new Map<string, number>();
  phases.forEach((p, i) => {
    if (isUnknown(p) || isUnknown(p.name)) return;
    if (names.has(p.name)) out.push({ path: ["phases", i, "name"], message: `phase name "${p.name}" is used twice (also phases[${names.get(p.name)}]): give each phase its own name` });
    else names.set(p.name, i);
  });
  // Whether a dependency names no phase can be told only when every phase's name is known.
  const allNamed = phases.every((p) => !isUnknown(p) && !isUnknown(p.name));
  const known = [...names.keys()].map((n) => `"${n}"`).join(", ");
  phases.forEach((p, i) => {
    if (!allNamed || isUnknown(p) || isUnknown(p.dependsOn)) return;
    p.dependsOn.forEach((d, j) => {
      if (!names.has(d) && !isUnknown(d)) out.push({ path: ["phases", i, "dependsOn", j], message: `missing phase "${d}", referenced from "${p.name}": name an existing phase (one of: ${known})` });
    });
  });
  if (out.length) return out;
  // The shared rules (cycles, empty phases) need the whole structure.
  const declared = structureKnown(phases);
  if (!allNamed || !declared) return out;
  // The shared rules, on the configuration these phases write; its phase ids are positions.
  const nameOf = (id: string) => declared[Number(id) - 1]?.name ?? id;
  for (const problem of flowProblems(flowConfiguration(declared))) {
    const m = /^phases\[(\d+)\](.*)$/.exec(problem.path);
    if (!m) continue; // task problems cannot arise from declared phases (every task has its phase and configuration)
    const rest = m[2].match(/[A-Za-z]+|\d+/g) ?? [];
    const message = problem.message.replace(/"(\d+)"/g, (_all, id: string) => `"${nameOf(id)}"`).replace(/ \(id "[^"]*"\)/, "");
    out.push({ path: ["phases", Number(m[1]), ...rest.map((s) => (/^\d+$/.test(s) ? Number(s) : s))], message: `${message}: ${problem.fix}` });
  }
  return out;
}

/**
 * The phases as the shared rules read them, when their structure is known: every phase, its
 * dependencies and its tasks (a task's ids may stay unknown: they are only copied). A task's
 * unknown enabled or continueOnFailure stands as its default: the rules read neither (enabled only
 * for a task without a configuration, which a declared task cannot be).
 */
function structureKnown(phases: readonly Partly<Phase>[]): Phase[] | undefined {
  const out: Phase[] = [];
  for (const p of phases) {
    if (isUnknown(p) || isUnknown(p.dependsOn) || p.dependsOn.some(isUnknown) || isUnknown(p.tasks)) return undefined;
    const tasks: Phase["tasks"] = [];
    for (const t of p.tasks) {
      if (isUnknown(t)) return undefined;
      tasks.push({ ...t, enabled: isUnknown(t.enabled) ? true : t.enabled, continueOnFailure: isUnknown(t.continueOnFailure) ? false : t.continueOnFailure });
    }
    out.push({ name: p.name, dependsOn: p.dependsOn, tasks });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Handler

const what = (name: string) => `Flow "${name}"`;

interface Intent {
  branchId: string;
  explicitConfigId: boolean;
  purgeOnDelete: boolean;
  changeDescription?: string;
  adoptExisting: boolean;
}

const intentOf = (p: Parsed): Intent => ({
  branchId: p.branchId,
  explicitConfigId: p.configId !== undefined,
  purgeOnDelete: p.purgeOnDelete,
  changeDescription: p.changeDescription,
  adoptExisting: p.adoptExisting,
});

function stateOf(intent: Intent, c: Configuration): State {
  return {
    branchId: intent.branchId,
    configId: c.id,
    componentId: FLOW_COMPONENT_ID,
    name: c.name,
    description: c.description,
    phases: phasesOf(c.configuration) ?? [],
    isDisabled: c.isDisabled,
    version: c.version,
    purgeOnDelete: intent.purgeOnDelete,
    explicitConfigId: intent.explicitConfigId,
    adoptExisting: intent.adoptExisting,
    changeDescription: intent.changeDescription, // left out of the state when undefined (runtime.ts withIdentity)
  };
}

const desiredOf = (p: Parsed) => ({ name: p.name, description: p.description, configuration: storedConfiguration(p.phases), isDisabled: p.isDisabled });

/** Each task's configuration exists, unless it is a ComponentConfig of this program (then it is created before the flow). */
async function taskFailures(ctx: Parameters<Handler<typeof flow>["check"]>[0], p: { branchId: string; phases: Partly<Phase[]> }): Promise<dynamic.CheckFailure[]> {
  const declared = ctx.call.facts.declaredTasks;
  const storage = ctx.client().storage;
  const failures: dynamic.CheckFailure[] = [];
  if (isUnknown(p.phases)) return failures;
  for (const [i, phase] of p.phases.entries()) {
    if (isUnknown(phase) || isUnknown(phase.tasks)) continue;
    for (const [j, task] of phase.tasks.entries()) {
      if (declared?.[i]?.[j] === true || isUnknown(task) || containsUnknown([task.componentId, task.configId])) continue;
      const found = await findLiveConfig(storage, p.branchId, task.componentId, task.configId);
      if (found) continue;
      failures.push({
        property: `phases[${i}].tasks[${j}].configId`,
        reason: `configuration "${task.configId}" of ${task.componentId} does not exist in branch ${p.branchId} (or is in the trash), and no ComponentConfig of this program declares it: pass the configId of a ComponentConfig (for example users.configId), or create the configuration first`,
      });
    }
  }
  return failures;
}

export const handler: Handler<typeof flow> = {
  async check(req): Promise<CheckResponse> {
    const { olds, news } = req;
    const { value, failures } = checkWith(flow, news);
    if (!value) return { inputs: news, failures };
    // Against the stack, each check on the inputs it needs, when they are known.
    const slot = knownFields(value, ["branchId", "configId", "adoptExisting"]);
    if (failures.length === 0 && !isUnknown(value.branchId)) {
      const found = await firstFailure(
        () => branchFailure(req, value.branchId),
        async () => (slot && isNew(olds, { branchId: slot.branchId, configId: slot.configId }) ? configSlotFailure(req, { ...slot, componentId: FLOW_COMPONENT_ID, adoptExisting: takesOverBranchCopy(req.call.facts, slot.adoptExisting) }, req.call.owner) : undefined),
      );
      if (found) failures.push(found);
      else failures.push(...((await unlessForbidden(taskFailures(req, value))) ?? []));
    }
    return { inputs: { ...news, ...value }, failures };
  },

  async diff(req) {
    const { olds, news } = req;
    // A task's configId is unknown at preview while its ComponentConfig is updated: not a change
    // of the flow (see unknownAsOld); a replaced configuration is caught at `up` time.
    return markerDiff(flow, olds, { ...news, phases: unknownsAsOld(olds.phases, news.phases) });
  },

  async create(req) {
    const { inputs: p } = req;
    const label = what(req.call.name);
    const token = await assertCanManage(req, FLOW_COMPONENT_ID, label);
    if (p.purgeOnDelete) assertCanPurge(token, label);
    const storage = req.client().storage;
    const owner = req.call.owner;
    const changeDescription = withMarker(p.changeDescription ?? DEFAULT_CHANGE_DESCRIPTION, owner);
    const desired = desiredOf(p);
    const { config, existed } = await createConfigOnce(storage, {
      branch: p.branchId,
      componentId: FLOW_COMPONENT_ID,
      configId: p.configId,
      owner,
      adoptExisting: takesOverBranchCopy(req.call.facts, p.adoptExisting),
      inBranchOfProgram: takesOverBranchCopy(req.call.facts, false),
      label,
      body: { ...desired, changeDescription },
    });
    const id = configResourceId(p.branchId, FLOW_COMPONENT_ID, config.id);
    let final = config;
    if (existed) {
      try {
        // Found again after a lost answer or a crash (or adopted): converge it like an update.
        final = (await convergeWholeConfig(storage, { branch: p.branchId, componentId: FLOW_COMPONENT_ID, configId: config.id }, config, desired, changeDescription)).config;
      } catch (err) {
        throw new PartialFailure(`${label}: ${asError(err).message}`, id, stateOf(intentOf(p), config));
      }
    }
    return { id, outs: stateOf(intentOf(p), final) };
  },

  async read(req) {
    const { id, recorded } = req;
    const { branch, configId = "" } = addressedConfig(id, recorded);
    const c = await findLiveConfig(req.client().storage, branch, FLOW_COMPONENT_ID, configId);
    if (!c) return { id: "" };
    const intent: Intent = {
      branchId: branch,
      explicitConfigId: recorded.explicitConfigId === true,
      purgeOnDelete: recorded.purgeOnDelete === true,
      changeDescription: recorded.changeDescription,
      adoptExisting: recorded.adoptExisting === true,
    };
    const state = stateOf(intent, c);
    const { configId: _c, componentId: _k, version: _v, explicitConfigId: _e, ...inputs } = state;
    return { id: configResourceId(branch, FLOW_COMPONENT_ID, c.id), props: state, inputs: intent.explicitConfigId ? { ...inputs, configId: c.id } : inputs };
  },

  async update(req) {
    const { olds, news: p } = req;
    const configId = olds.configId ?? p.configId ?? "";
    const { storage, current, changeDescription } = await beginConfigUpdate(req, what(req.call.name), { branch: p.branchId, componentId: FLOW_COMPONENT_ID, configId }, p, req.call.owner);
    const { config } = await convergeWholeConfig(storage, { branch: p.branchId, componentId: FLOW_COMPONENT_ID, configId }, current, desiredOf(p), changeDescription);
    return { outs: stateOf(intentOf(p), normalizeConfig(config)) };
  },

  async delete(req) {
    const { id, recorded } = req;
    const { branch, configId = id } = addressedConfig(id, recorded);
    await deleteConfigResource(req, what(req.call.name), { branch, componentId: FLOW_COMPONENT_ID, configId }, recorded.purgeOnDelete === true, req.call.owner);
  },
};

export const definition = flow;
