import { z } from "zod";
import { storageIdSchema } from "../../validation/ids";
import type { Configuration, TokenInfo } from "../../api/storage";
import type { ScheduleActivation, SchedulerApi } from "../../api/scheduler";
import { asError } from "../../api/errors";
import { checkWith, containsUnknown, isUnknown, knownFields } from "../../validation/check";
import { stringValue, variableValuesSchema } from "../../validation/variables";
import { checkCronTab, checkTimezone, nextRuns } from "../../../keboola/cron";
import { SCHEDULER_COMPONENT_ID, schedulerConfigurationSchema } from "../../../keboola/scheduler";
import { createOnce } from "../../lifecycle/create-once";
import { defineResource, markerDiff, replaces, untracked, type CheckedOf, type InputsOf, type StateOf } from "../../lifecycle/define";
import type { CheckResponse, Handler } from "../../lifecycle/call";
import { PartialFailure } from "../../lifecycle/types";
import {
  ADOPT_NEEDS_ID,
  DEFAULT_CHANGE_DESCRIPTION,
  addressedConfig,
  adoptExistingSchema,
  assertCanManage,
  beginConfigUpdate,
  assertCanPurge,
  configResourceId,
  convergeWholeConfig,
  createConfigOnce,
  deleteConfigResource,
  findLiveConfig,
  unknownsAsOld,
} from "../../lifecycle/configurations";
import { withMarker } from "../../lifecycle/ownership";
import { configSlotFailure, firstFailure, isNew, jobFailures, unlessForbidden } from "../../lifecycle/preflight";

// A schedule: a `keboola.scheduler` configuration `{schedule: {cronTab, timezone, state}, target:
// {componentId, configurationId, mode: "run", variableValuesId?, variableValuesData?}}` plus its
// activation through the Scheduler API (keboola/keboola-sdk-go pkg/keboola/scheduler_api.go; keboola/keboola-sdk-go
// pkg/keboola/scheduler_model.go). As keboola-as-code does (internal/pkg/mapper/scheduler/
// remote_activate.go, remote_delete.go), every write of the configuration is followed by an
// activation of its new version, and delete removes the activations by configuration, then the
// configuration. Schedules live in the default branch (the Scheduler runs only there).
//
// Checked at preview, before anything is written: the cron in the Scheduler's dialect and the
// timezone (keboola/cron.ts, shared with the emulator's clock), the target (it exists, or is a
// ComponentConfig or Flow of this program; it is not disabled) and the variable values (declared
// by the target's variables, complete), as a JobRun of the target is checked.

const BRANCH = "default";
/** How many upcoming run times `nextRuns` lists. */
const NEXT_RUNS = 3;

const targetSchema = z
  .object({
    componentId: z
      .string({ error: 'required: the component of the configuration to run, e.g. "keboola.flow" (flow.target() gives both)' })
      .min(1, "must not be empty")
      .describe('Component of the configuration to run ("keboola.flow" for a Flow).'),
    configId: z.string({ error: "required: the configuration to run (ComponentConfig.configId or Flow.configId)" }).min(1, "must not be empty").describe("Configuration to run."),
    variableValuesData: variableValuesSchema.optional().describe("Variable values for each run, {name: value}. Without it and variableValuesId, the configuration's default values row is used."),
    variableValuesId: z.string().min(1, "must not be empty").optional().describe("Id of a values row of the target's bound variables configuration."),
  })
  .strict();

export const schedule = defineResource({
  type: "Schedule",
  description: "A schedule (keboola.scheduler configuration and its activation): runs a configuration or a flow by cron.",
  inputs: {
    configId: replaces(
      storageIdSchema("must not be empty: omit it to have it derived from the resource")
        .optional()
        .describe("Id of the keboola.scheduler configuration; derived from the resource when omitted. Changing it replaces the schedule."),
      { whenSet: true },
    ),
    name: z.string({ error: "required: the schedule name" }).min(1, "must not be empty").describe("Schedule name."),
    description: z.string().default("").describe("Schedule description."),
    cron: z
      .string({ error: 'required: a cron expression, e.g. "0 3 * * *" (03:00 every day)' })
      .superRefine((v, ctx) => {
        const c = checkCronTab(v);
        if (!c.ok) ctx.addIssue({ code: "custom", message: `${c.reason}: ${c.fix}` });
      })
      .describe('Cron expression in the Scheduler\'s dialect: five fields "minute hour day-of-month month day-of-week", or @daily, @hourly, ...'),
    timezone: z
      .string()
      .default("UTC")
      .superRefine((v, ctx) => {
        const c = checkTimezone(v);
        if (!c.ok) ctx.addIssue({ code: "custom", message: `${c.reason}: ${c.fix}` });
      })
      .describe('IANA timezone the cron is read in (default "UTC"), e.g. "Europe/Prague".'),
    enabled: z.boolean().default(true).describe("A disabled schedule stays activated but does not run its target."),
    target: targetSchema.describe("What each run starts: { componentId, configId } of a configuration (flow.target() for a Flow), with variable values where it takes them."),
    changeDescription: untracked(z.string().optional().describe(`Version description written with each change (default "${DEFAULT_CHANGE_DESCRIPTION}").`)),
    purgeOnDelete: z.boolean().default(false).describe("On delete, also purge the scheduler configuration from the trash."),
    adoptExisting: untracked(adoptExistingSchema),
  },
  refine: (v, ctx) => {
    if (v.adoptExisting === true && v.configId === undefined) ctx.addIssue({ code: "custom", path: ["adoptExisting"], message: ADOPT_NEEDS_ID });
    if (!isUnknown(v.target) && v.target.variableValuesData !== undefined && v.target.variableValuesId !== undefined) {
      ctx.addIssue({ code: "custom", path: ["target", "variableValuesId"], message: "set either variableValuesData or variableValuesId, not both" });
    }
  },
  outputs: {
    configId: z.string().describe("Id of the keboola.scheduler configuration."),
    scheduleId: z.string().optional().describe("Id of the Scheduler's activation of the configuration (absent when the activation is missing: the next update activates it)."),
    version: z.number().int().describe("Configuration version (the activated one)."),
    nextRuns: z.array(z.string()).describe(`The next ${NEXT_RUNS} run times (ISO 8601, UTC) when enabled, as of the last create, update or refresh.`),
  },
  internal: {
    explicitConfigId: z.boolean(),
  },
});

/** Kept for the manifest's schema: the inputs of a Schedule, and of its target. */
export const scheduleInputsSchema = schedule.inputs;
export const scheduleTargetSchema = targetSchema;
export type ScheduleInputs = InputsOf<typeof schedule>;
type Parsed = CheckedOf<typeof schedule>;
type State = StateOf<typeof schedule>;


// ---------------------------------------------------------------------------------------------
// The scheduler configuration

/** The scheduler configuration's content the inputs declare. */
export function schedulerConfiguration(p: Pick<Parsed, "cron" | "timezone" | "enabled" | "target">): Record<string, unknown> {
  const t = p.target;
  const values = t.variableValuesData;
  return {
    schedule: { cronTab: p.cron, timezone: p.timezone, state: p.enabled ? "enabled" : "disabled" },
    target: {
      componentId: t.componentId,
      configurationId: t.configId,
      mode: "run",
      ...(t.variableValuesId !== undefined ? { variableValuesId: t.variableValuesId } : {}),
      ...(values !== undefined && Object.keys(values).length > 0 ? { variableValuesData: { values: Object.entries(values).map(([name, value]) => ({ name, value: stringValue(value) })) } } : {}),
    },
  };
}

/** The inputs a scheduler configuration's content declares (for read and export); undefined when it is not a schedule. */
export function scheduleFromConfiguration(content: Record<string, unknown>): Pick<Parsed, "cron" | "timezone" | "enabled" | "target"> | undefined {
  const parsed = schedulerConfigurationSchema.safeParse(content);
  if (!parsed.success) return undefined;
  const { schedule: s, target: t } = parsed.data;
  const target: Parsed["target"] = { componentId: t.componentId, configId: t.configurationId };
  if (t.variableValuesId !== undefined) target.variableValuesId = t.variableValuesId;
  const values = t.variableValuesData?.values ?? [];
  if (values.length) target.variableValuesData = Object.fromEntries(values.map((v) => [v.name, v.value]));
  return { cron: s.cronTab, timezone: s.timezone, enabled: s.state === "enabled", target };
}

function upcoming(p: Pick<Parsed, "cron" | "timezone" | "enabled">): string[] {
  if (!p.enabled || !checkCronTab(p.cron).ok || !checkTimezone(p.timezone).ok) return [];
  return nextRuns(p.cron, p.timezone, new Date(), NEXT_RUNS).map((d) => d.toISOString());
}

// ---------------------------------------------------------------------------------------------
// Handler

const what = (name: string) => `Schedule "${name}"`;

interface Intent {
  explicitConfigId: boolean;
  purgeOnDelete: boolean;
  changeDescription?: string;
  adoptExisting: boolean;
}

const intentOf = (p: Parsed): Intent => ({ explicitConfigId: p.configId !== undefined, purgeOnDelete: p.purgeOnDelete, changeDescription: p.changeDescription, adoptExisting: p.adoptExisting });

function stateOf(intent: Intent, c: Configuration, activation: ScheduleActivation | undefined): State {
  // A content that is no schedule (edited by hand) reads as an empty one: a change the next update rewrites.
  const declared = scheduleFromConfiguration(c.configuration) ?? { cron: "", timezone: "UTC", enabled: false, target: { componentId: "", configId: "" } };
  return {
    configId: c.id,
    name: c.name,
    description: c.description,
    ...declared,
    // Recorded only when it activates the configuration's current version (else the next update activates it).
    ...(activation && activation.configurationVersionId === String(c.version) ? { scheduleId: activation.id } : {}),
    version: c.version,
    nextRuns: upcoming(declared),
    purgeOnDelete: intent.purgeOnDelete,
    explicitConfigId: intent.explicitConfigId,
    adoptExisting: intent.adoptExisting,
    changeDescription: intent.changeDescription, // left out of the state when undefined (runtime.ts withIdentity)
  };
}

const desiredOf = (p: Parsed) => ({ name: p.name, description: p.description, configuration: schedulerConfiguration(p) });

/**
 * Activates the configuration's current version exactly once (create-once.ts): the Scheduler
 * chooses activation ids, but an activation names its configuration and version, so after a lost
 * answer (or a 5xx) the activation of this version is looked up before activating again (which
 * would replace it, harmless but a second write).
 */
async function activateOnce(scheduler: SchedulerApi, label: string, c: Configuration): Promise<ScheduleActivation> {
  const version = String(c.version);
  const created = await createOnce<ScheduleActivation>({
    label: `${label}: activation of scheduler configuration "${c.id}" (version ${version})`,
    where: "in the Scheduler",
    owner: undefined,
    // Read first: an activation of this version (an update that changed nothing, a lost answer) is kept as it is.
    adoptExisting: true,
    fix: "",
    find: async () => {
      const found = await scheduler.ofConfiguration(c.id);
      return found && found.configurationVersionId === version ? found : undefined;
    },
    create: async () => ({ object: await scheduler.activate(c.id, version) }),
    exists: () => false,
    whenExistsUnreadable: "fail",
  });
  return created.object;
}

/** The Scheduler activates with a master token only (it makes a token for the schedule's jobs): refused before any write. */
function assertMaster(token: TokenInfo, label: string): void {
  if (token.isMasterToken) return;
  throw new Error(
    `${label}: the token "${token.description}" (id ${token.id}) is not a master token, and the Scheduler activates schedules only with a master token. Nothing was changed. ` +
      "Use a master token (pulumi config set --secret keboola:token ...).",
  );
}

export const handler: Handler<typeof schedule> = {
  async check(req): Promise<CheckResponse> {
    const { olds, news } = req;
    const { value, failures } = checkWith(schedule, news);
    if (!value) return { inputs: news, failures };
    // The Scheduler API has no branches: it activates scheduler configurations of the default
    // branch, and their jobs run there (emulator/scheduler/routes.ts cites keboola-as-code
    // internal/pkg/mapper/scheduler/remote.go isSchedulerConfigFromMainBranch). A stack in a
    // development branch would write its schedules to production.
    const inBranch = req.call.facts.stackBranch;
    if (inBranch !== undefined) {
      failures.push({
        property: "target",
        reason:
          `this stack deploys into development branch "${inBranch}" (stack config keboola:branch), and schedules run only in the default branch (the Scheduler API activates configurations of the default branch only), so this schedule would be written to production: ` +
          "declare schedules only in the production stack (in a program, when keboola.stackBranch() is undefined; a keboola.yaml manifest leaves them out of a development-branch stack itself)",
      });
      return { inputs: { ...news, ...value }, failures };
    }
    const slot = knownFields(value, ["configId", "adoptExisting"]);
    if (failures.length === 0 && slot) {
      const found = await firstFailure(async () => (isNew(olds, { configId: slot.configId }) ? configSlotFailure(req, { ...slot, branchId: BRANCH, componentId: SCHEDULER_COMPONENT_ID }, req.call.owner) : undefined));
      if (found) failures.push(found);
    }
    // The target as a job of it would find it: declared in this program (then its ids may not be
    // known yet), or as the stack has it.
    const facts = req.call.facts;
    const t = value.target;
    if (failures.length === 0 && !isUnknown(t) && (facts.configuration || !containsUnknown([t.componentId, t.configId]))) {
      const job = { branchId: BRANCH, componentId: t.componentId, configId: t.configId, variableValuesData: t.variableValuesData, variableValuesId: t.variableValuesId };
      const found = (await unlessForbidden(jobFailures(req, job, facts, "this Schedule"))) ?? [];
      failures.push(...found.map((f) => ({ ...f, property: f.property ? `target.${f.property}` : "target" })));
    }
    return { inputs: { ...news, ...value }, failures };
  },

  async diff(req) {
    const { olds, news } = req;
    // The target's configId is unknown at preview while its Flow or ComponentConfig is updated: not a change (see unknownAsOld).
    const diff = markerDiff(schedule, olds, { ...news, target: unknownsAsOld(olds.target, news.target) });
    // An activation that went missing (deleted behind Pulumi's back, or never made): an update activates it.
    if (!diff.changes && olds.scheduleId === undefined) return { ...diff, changes: true };
    return diff;
  },

  async create(req) {
    const { inputs: p } = req;
    const label = what(req.call.name);
    const token = await assertCanManage(req, SCHEDULER_COMPONENT_ID, label);
    assertMaster(token, label);
    if (p.purgeOnDelete) assertCanPurge(token, label);
    const client = req.client();
    const storage = client.storage;
    const scheduler = await client.scheduler();
    const owner = req.call.owner;
    const changeDescription = withMarker(p.changeDescription ?? DEFAULT_CHANGE_DESCRIPTION, owner);
    const desired = desiredOf(p);
    const { config, existed } = await createConfigOnce(storage, {
      branch: BRANCH,
      componentId: SCHEDULER_COMPONENT_ID,
      configId: p.configId,
      owner,
      adoptExisting: p.adoptExisting,
      label,
      body: { ...desired, changeDescription },
    });
    const id = configResourceId(BRANCH, SCHEDULER_COMPONENT_ID, config.id);
    let final = config;
    try {
      if (existed) final = (await convergeWholeConfig(storage, { branch: BRANCH, componentId: SCHEDULER_COMPONENT_ID, configId: config.id }, config, desired, changeDescription)).config;
      const activation = await activateOnce(scheduler, label, final);
      return { id, outs: stateOf(intentOf(p), final, activation) };
    } catch (err) {
      // The configuration exists: Pulumi keeps tracking it, and the next update activates it.
      throw new PartialFailure(`${label}: ${asError(err).message}`, id, stateOf(intentOf(p), final, undefined));
    }
  },

  async read(req) {
    const { id, recorded } = req;
    const { configId = "" } = addressedConfig(id, recorded);
    const client = req.client();
    const c = await findLiveConfig(client.storage, BRANCH, SCHEDULER_COMPONENT_ID, configId);
    if (!c) return { id: "" };
    const activation = await (await client.scheduler()).ofConfiguration(c.id);
    const intent: Intent = {
      explicitConfigId: recorded.explicitConfigId === true,
      purgeOnDelete: recorded.purgeOnDelete === true,
      changeDescription: recorded.changeDescription,
      adoptExisting: recorded.adoptExisting === true,
    };
    const state = stateOf(intent, c, activation);
    // The run times recorded stay while the first of them is still ahead and the cron is the same,
    // so a refresh shows no change until a run has passed.
    const kept = recorded.nextRuns;
    const sameCron = recorded.cron === state.cron && recorded.timezone === state.timezone && recorded.enabled === state.enabled;
    if (sameCron && kept && kept.length === state.nextRuns.length && (kept.length === 0 || Date.parse(kept[0]!) > Date.now())) state.nextRuns = kept;
    const { configId: _c, scheduleId: _s, version: _v, nextRuns: _n, explicitConfigId: _e, ...inputs } = state;
    return { id: configResourceId(BRANCH, SCHEDULER_COMPONENT_ID, c.id), props: state, inputs: intent.explicitConfigId ? { ...inputs, configId: c.id } : inputs };
  },

  async update(req) {
    const { olds, news: p } = req;
    const label = what(req.call.name);
    const client = req.client();
    const configId = olds.configId ?? p.configId ?? "";
    const { storage, current, changeDescription } = await beginConfigUpdate(req, label, { branch: BRANCH, componentId: SCHEDULER_COMPONENT_ID, configId }, p, req.call.owner, (token: TokenInfo) => assertMaster(token, label));
    const { config } = await convergeWholeConfig(storage, { branch: BRANCH, componentId: SCHEDULER_COMPONENT_ID, configId }, current, desiredOf(p), changeDescription);
    // Re-activated when the configuration changed (its version with it) or its activation is missing.
    const scheduler = await client.scheduler();
    try {
      const activation = await activateOnce(scheduler, label, config);
      return { outs: stateOf(intentOf(p), config, activation) };
    } catch (err) {
      throw new PartialFailure(`${label}: ${asError(err).message}`, configResourceId(BRANCH, SCHEDULER_COMPONENT_ID, configId), stateOf(intentOf(p), config, undefined));
    }
  },

  async delete(req) {
    const { id, recorded } = req;
    const { configId = id } = addressedConfig(id, recorded);
    const label = what(req.call.name);
    await assertCanManage(req, SCHEDULER_COMPONENT_ID, label, "delete configurations of");
    // The activations first, so that the schedule cannot fire while its configuration goes.
    // Deleting by configuration is idempotent (repeated after a lost answer, it removes nothing more).
    await (await req.client().scheduler()).deleteOfConfiguration(configId);
    await deleteConfigResource(req, label, { branch: BRANCH, componentId: SCHEDULER_COMPONENT_ID, configId }, recorded.purgeOnDelete === true, req.call.owner);
  },
};

export const definition = schedule;
