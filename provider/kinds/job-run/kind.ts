import { z } from "zod";
import { branchSchema } from "../../validation/ids";
import type { JobRequest, QueueApi, QueueJob } from "../../api/queue";
import { KeboolaTimeoutError, isAmbiguous, asError, notFoundAsUndefined } from "../../api/errors";
import { checkWith, containsUnknown, isUnknown } from "../../validation/check";
import { stringValue, variableValuesSchema } from "../../validation/variables";
import { declaredBranchId, jobFailures, unlessForbidden } from "../../lifecycle/preflight";
import { same } from "../../lifecycle/common";
import { defineResource, type CheckedOf, type InputsOf, type StateOf } from "../../lifecycle/define";
import type { CallContext, CheckResponse, Handler } from "../../lifecycle/call";
import { assertCanManage, unknownAsOld } from "../../lifecycle/configurations";

// One run of a configuration through the Job Queue (`mode: "run"`). Create starts the job and
// waits for it; anything but `success` fails the deployment with the job's result message (the
// resource is then not recorded, so the next `up` runs it again). A change of `triggers` (or of
// what is run: component, configuration, branch, variable values) runs it again: the diff asks
// for a replacement, whose create is a new job. Delete is a no-op: a job cannot be undone.

export const jobRun = defineResource({
  type: "JobRun",
  description: "One run of a configuration through the Job Queue; runs again when its triggers change.",
  inputs: {
    branchId: branchSchema,
    componentId: z.string({ error: 'required: the component id, e.g. "keboola.ex-generic-v2"' }).min(1, "must not be empty").describe("Component of the configuration to run."),
    configId: z.string({ error: "required: the configuration to run (ComponentConfig.configId)" }).min(1, "must not be empty").describe("Configuration to run (ComponentConfig.configId)."),
    variableValuesData: variableValuesSchema
      .optional()
      .describe("Variable values for this run, {name: value} (sent as variableValuesData.values). Without it and variableValuesId, the configuration's default values row is used."),
    variableValuesId: z.string().min(1, "must not be empty").optional().describe("Id of a values row of the bound variables configuration to use for this run."),
    triggers: z.unknown().optional().describe("Any value; when it changes, the job runs again (e.g. a version or a hash)."),
    timeoutSeconds: z
      .number()
      .positive("must be a positive number of seconds")
      .optional()
      .describe("How long to wait for the job (default keboola:taskTimeout, 600 s). The job itself is not stopped when this runs out."),
  },
  refine: (v, ctx) => {
    if (v.variableValuesData !== undefined && v.variableValuesId !== undefined) {
      ctx.addIssue({ code: "custom", path: ["variableValuesId"], message: "set either variableValuesData or variableValuesId, not both (the Queue accepts one source of values)" });
    }
  },
  outputs: {
    jobId: z.string().describe("Queue job id."),
    status: z.string().describe('Final status of the job: always "success" (any other end fails the deployment).'),
    durationSeconds: z.number().optional().describe("How long the job ran."),
    url: z.string().optional().describe("API URL of the job."),
  },
});

/** Kept for the manifest's schema: the inputs of a JobRun. */
export const jobRunInputsSchema = jobRun.inputs;
export type JobRunInputs = InputsOf<typeof jobRun>;
type Parsed = CheckedOf<typeof jobRun>;
type State = StateOf<typeof jobRun>;

/** Inputs whose change means "run again". */
const RERUN_FIELDS = ["branchId", "componentId", "configId", "variableValuesData", "variableValuesId", "triggers"] as const;


const what = (name: string) => `JobRun "${name}"`;

/** The job's run time: the Queue's own figure, else from its start and end times. */
export function durationOf(job: Pick<QueueJob, "durationSeconds" | "startTime" | "endTime">): number | undefined {
  if (typeof job.durationSeconds === "number") return job.durationSeconds;
  const start = job.startTime ? Date.parse(job.startTime) : NaN;
  const end = job.endTime ? Date.parse(job.endTime) : NaN;
  return Number.isFinite(start) && Number.isFinite(end) ? Math.max(0, Math.round((end - start) / 10) / 100) : undefined;
}

export function jobRequest(p: Parsed): JobRequest {
  const body: JobRequest = { component: p.componentId, config: p.configId, mode: "run" };
  if (p.branchId !== "default") body.branchId = p.branchId;
  body.variableValuesId = p.variableValuesId; // left out of the request when undefined (JSON)
  if (p.variableValuesData !== undefined && Object.keys(p.variableValuesData).length > 0) {
    body.variableValuesData = { values: Object.entries(p.variableValuesData).map(([name, value]) => ({ name, value: stringValue(value) })) };
  }
  return body;
}

function stateOf(p: Parsed, job: QueueJob): State {
  return {
    ...p,
    jobId: String(job.id),
    status: job.status,
    durationSeconds: durationOf(job), // left out of the state when undefined (runtime.ts withIdentity)
    ...(job.url ? { url: job.url } : {}),
  };
}

/**
 * Starts one job. The Queue chooses job ids, so the configuration's newest jobs are listed first;
 * after an ambiguous failure (lost answer, 5xx, reset) a job that appeared since is ours and is
 * waited for, and when none did the request certainly did not reach the Queue and is sent again.
 * (A run of the same configuration started by someone else in that same moment would be taken
 * for ours: it is waited for instead of starting a second one.)
 */
async function startJobOnce(queue: QueueApi, p: Parsed): Promise<QueueJob> {
  const before = new Set((await queue.listJobs(p.componentId, p.configId)).map((j) => String(j.id)));
  for (let attempt = 1; ; attempt++) {
    try {
      return await queue.createJob(jobRequest(p));
    } catch (err) {
      if (!isAmbiguous(err) || attempt >= 4) throw err;
      const mine = (await queue.listJobs(p.componentId, p.configId)).find((j) => !before.has(String(j.id)));
      if (mine) return mine;
    }
  }
}

export const handler: Handler<typeof jobRun> = {
  async check(req): Promise<CheckResponse> {
    const { news } = req;
    const { value, failures } = checkWith(jobRun, news);
    if (!value) return { inputs: news, failures };
    // A configuration of this program is checked as the program declares it, even before it exists
    // (its configId may not be known yet at preview); any other one as the stack has it.
    const facts = req.call.facts;
    if (failures.length === 0 && !isUnknown(value.branchId) && (facts.configuration || !containsUnknown([value.componentId, value.configId]))) {
      failures.push(...((await unlessForbidden(jobFailures(req, value, facts))) ?? []));
    }
    return { inputs: { ...news, ...value }, failures };
  },

  async diff(req) {
    const { olds, news } = req;
    // The configuration's id is unknown at preview while the ComponentConfig is updated: that is
    // not a new run (see unknownAsOld); a replaced configuration is caught at `up` time.
    const replaces = RERUN_FIELDS.filter((f) => !same(olds[f], unknownAsOld(olds[f], news[f])));
    return { changes: replaces.length > 0 || !same(olds.timeoutSeconds, news.timeoutSeconds), replaces: [...replaces], deleteBeforeReplace: false };
  },

  async create(req) {
    const { inputs: p } = req;
    const label = what(req.call.name);
    await assertCanManage(req, p.componentId, label, "run jobs of");
    const queue = await req.client().queue();
    const target = `${p.componentId} configuration ${p.configId}`;
    let job: QueueJob;
    try {
      job = await startJobOnce(queue, p);
    } catch (err) {
      throw new Error(`${label}: could not start a job of ${target}: ${asError(err).message}`);
    }
    let end: QueueJob;
    try {
      end = await queue.waitForJobEnd(job, `${label} (job ${job.id})`, p.timeoutSeconds);
    } catch (err) {
      if (err instanceof KeboolaTimeoutError) throw new Error(`${err.message}. The job keeps running in Keboola; this run is not recorded, so the next \`pulumi up\` starts a new one`);
      throw err;
    }
    if (end.status !== "success") {
      const message = end.result?.message?.trim() || "(the job gave no message)";
      throw new Error(`${label}: job ${end.id} of ${target} ended with status "${end.status}": ${message}`);
    }
    return { id: String(end.id), outs: stateOf(p, end) };
  },

  async read(req) {
    const { id, recorded } = req;
    if (req.call.importing) return importedJob(req, id);
    // A finished job does not change: state is what was recorded.
    const { branchId = "default", componentId = "", configId = "", jobId = id, status = "success", ...rest } = recorded;
    return { id, props: { ...rest, branchId, componentId, configId, jobId, status } };
  },

  async update(req) {
    const { olds, news } = req;
    // Only timeoutSeconds can change without a new run.
    const { branchId = news.branchId, componentId = news.componentId, configId = news.configId, jobId = "", status = "success", ...rest } = olds;
    return { outs: { ...rest, branchId, componentId, configId, jobId, status, timeoutSeconds: news.timeoutSeconds } };
  },

  async delete() {
    // A job cannot be undone.
  },
};

export const definition = jobRun;

/**
 * A JobRun read from its job id alone (`pulumi import`): the job's component, configuration and
 * branch from the Queue. A JobRun records a successful run, so a job that did not succeed (or has
 * not finished) is refused rather than adopted.
 */
async function importedJob(ctx: CallContext, id: string): Promise<{ id: string; props?: State; inputs?: Partial<Parsed> }> {
  const queue = await ctx.client().queue();
  const job = await notFoundAsUndefined(queue.getJob(id));
  if (!job) return { id: "" };
  if (!job.isFinished || job.status !== "success") {
    throw new Error(`job ${id} ${job.isFinished ? `ended with status "${job.status}"` : `has not finished (status "${job.status}")`}: a JobRun records a successful run; import a job that succeeded`);
  }
  if (!job.component || !job.config) throw new Error(`job ${id} runs no stored configuration (it was started with its configuration in the request): a JobRun runs a configuration by its id`);
  const inputs = { branchId: await declaredBranchId(ctx.client(), job.branchId), componentId: job.component, configId: job.config };
  return { id, props: stateOf({ ...inputs, timeoutSeconds: undefined }, job), inputs };
}
