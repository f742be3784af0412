import { z } from "zod";
import { sourceInputsSchema } from "../kinds/source/kind";
import { sinkInputsSchema } from "../kinds/sink/kind";
import { variableConfigInputsSchema } from "../kinds/variable-config/kind";
import { componentConfigInputsSchema, rowInputsSchema } from "../kinds/component-config/kind";
import { jobRunInputsSchema } from "../kinds/job-run/kind";
import { flowInputsSchema, flowTaskInputsSchema, flowPhaseInputsSchema } from "../kinds/flow/kind";
import { scheduleInputsSchema, scheduleTargetSchema } from "../kinds/schedule/kind";
import { bucketInputsSchema } from "../kinds/bucket/kind";
import { tableInputsSchema } from "../kinds/table/kind";
import { settingsShape } from "../validation/settings";
import { optionalBranchSchema } from "../validation/ids";

// The shape of keboola.yaml, derived from the resources' own zod schemas: every field of an
// entry is the resource's input of the same name, except the references, which name another
// entry by its manifest key (a sink its source, a configuration or one of its rows its
// variables, a job its configuration). The resources' refinements (duplicate row ids, undeclared values, ...) are
// applied to each entry after the references are resolved, see parse.ts.

/** A manifest key: also the Pulumi resource name of the entry. */
const keySchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "must start with a letter or digit and hold only letters, digits, '.', '_' and '-'");

const reference = (section: string, what: string) =>
  z.string({ error: `must be the key of an entry under ${section}` }).min(1, "must not be empty").describe(`${what}: the key of an entry under \`${section}\`.`);

/**
 * An entry's fields with its branchId optional: an entry that names no branch lives in the
 * stack's development branch when stack config keboola:branch names one (kinds/branch.ts, stackBranch), which
 * the default the resource's schema fills in would hide.
 */
function inStackBranch<S extends z.ZodRawShape>(shape: S): Omit<S, "branchId"> & { branchId: typeof optionalBranchSchema } {
  return { ...shape, branchId: optionalBranchSchema };
}

/** Stream settings nested in a source or sink entry (SourceSettings / SinkSettings inputs). */
const settingsSchema = z
  .object(settingsShape)
  .strict()
  .describe("Trigger settings (SourceSettings / SinkSettings): only the keys set are managed.");

/**
 * Secret values taken from stack config instead of the manifest: `{<path in this entry>: <config key>}`,
 * e.g. `{"configuration.parameters.#token": "usersApiToken"}` with
 * `pulumi config set --secret usersApiToken ...`. The value is stored only as a secret.
 */
const secretsSchema = z
  .record(
    z.string().regex(/^(configuration|rows\.\d+\.configuration)(\.[^.]+)+$/, 'must be a path such as "configuration.parameters.#token" or "rows.0.configuration.parameters.#password"'),
    z.string().min(1, "must be a stack config key").describe("Stack config key (set with `pulumi config set --secret`)."),
  )
  .describe("Secret values (keys starting with #) read from stack config: {path in this entry: stack config key}.");

const { sourceId: _sinkSource, branchId: _sinkBranch, ...sinkFields } = sinkInputsSchema.shape;
const { variables: _binding, ...configFields } = inStackBranch(componentConfigInputsSchema.shape);
const { variables: _rowBinding, ...rowFields } = rowInputsSchema.shape;
const { componentId: _jobComponent, configId: _jobConfig, branchId: _jobBranch, ...jobFields } = jobRunInputsSchema.shape;

export const manifestSourceSchema = z
  .object({ ...inStackBranch(sourceInputsSchema.shape), settings: settingsSchema.optional() })
  .strict()
  .describe("A Stream source (Source inputs), with its trigger settings.");

export const manifestSinkSchema = z
  .object({
    source: reference("sources", "The sink's source"),
    ...sinkFields,
    settings: settingsSchema.optional(),
  })
  .strict()
  .describe("A Stream sink (Sink inputs; branch and sourceId come from its source), with its trigger settings.");

export const manifestVariablesSchema = z
  .object(inStackBranch(variableConfigInputsSchema.shape))
  .strict()
  .describe("Configuration variables with default values (VariableConfig inputs).");

export const manifestRowSchema = z
  .object({
    ...rowFields,
    variables: reference("variables", "The variables this row is bound to (e.g. those a shared code row's code uses)").optional(),
  })
  .strict()
  .describe("A configuration row (ComponentConfig rows[] inputs), optionally bound to variables of its own.");

export const manifestConfigurationSchema = z
  .object({
    ...configFields, // (rows, replaced next, keeps its place)
    rows: z.array(manifestRowSchema, { error: "must be an array of rows" }).default([]).describe("Configuration rows, in order (rowsSortOrder)."),
    variables: reference("variables", "The bound variables").optional(),
    secrets: secretsSchema.optional(),
  })
  .strict()
  .describe("A component configuration with rows (ComponentConfig inputs), optionally bound to variables.");

export const manifestJobSchema = z
  .object({ configuration: reference("configurations", "The configuration to run"), ...jobFields })
  .strict()
  .describe("One run of a configuration through the Job Queue (JobRun inputs).");

const { componentId: _taskComponent, configId: _taskConfig, ...taskFields } = flowTaskInputsSchema.shape;
const { tasks: _tasks, ...phaseFields } = flowPhaseInputsSchema.shape;
const { phases: _phases, ...flowFields } = inStackBranch(flowInputsSchema.shape);
const { target: _target, ...scheduleFields } = scheduleInputsSchema.shape;
const { componentId: _targetComponent, configId: _targetConfig, ...targetFields } = scheduleTargetSchema.shape;

export const manifestFlowTaskSchema = z
  .object({
    configuration: reference("configurations", "The configuration the task runs").optional(),
    componentId: z.string().min(1, "must not be empty").optional().describe("With configId, instead of configuration: a configuration this manifest does not declare."),
    configId: z.string().min(1, "must not be empty").optional().describe("With componentId: the id of a configuration this manifest does not declare."),
    ...taskFields,
  })
  .strict()
  .superRefine((t, ctx) => {
    if (t.configuration === undefined && (t.componentId === undefined || t.configId === undefined)) {
      ctx.addIssue({ code: "custom", path: ["configuration"], message: "required: name the configuration the task runs (a key under configurations), or give componentId and configId" });
    } else if (t.configuration !== undefined && (t.componentId !== undefined || t.configId !== undefined)) {
      ctx.addIssue({ code: "custom", path: ["configuration"], message: "set either configuration or componentId and configId, not both" });
    }
  })
  .describe("A task: the configuration it runs, by key (or by componentId and configId).");

export const manifestFlowSchema = z
  .object({
    ...flowFields,
    phases: z
      .array(z.object({ ...phaseFields, tasks: z.array(manifestFlowTaskSchema, { error: "must be a list of tasks" }).describe("The configurations this phase runs.") }).strict(), { error: "must be a list of phases" })
      .describe("Phases, in order; dependsOn names phases by name."),
  })
  .strict()
  .describe("A flow (Flow inputs): phases of tasks, each running a configuration named by key.");

export const manifestScheduleSchema = z
  .object({
    flow: reference("flows", "The flow to run").optional(),
    configuration: reference("configurations", "The configuration to run").optional(),
    ...scheduleFields,
    name: z.string().min(1, "must not be empty").optional().describe("Schedule name (default: the entry's key)."),
    ...targetFields,
  })
  .strict()
  .superRefine((e, ctx) => {
    if ((e.flow === undefined) === (e.configuration === undefined)) {
      ctx.addIssue({ code: "custom", path: ["flow"], message: "name exactly one target: flow (a key under flows) or configuration (a key under configurations)" });
    }
  })
  .describe("A schedule (Schedule inputs): runs a flow or a configuration, named by key, by cron.");

export const manifestBucketSchema = z.object(inStackBranch(bucketInputsSchema.shape)).strict().describe('A Storage bucket (Bucket inputs): stage and name make its id ("in.c-<name>").');

const { bucketId: _tableBucket, dataContent: _tableContent, branchId: _tableBranch, ...tableFields } = tableInputsSchema.shape;

export const manifestTableSchema = z
  .object({
    bucket: reference("buckets", "The table's bucket"),
    ...tableFields,
  })
  .strict()
  .describe("A Storage table (Table inputs; branch and bucketId come from its bucket). `data`: a CSV path relative to this manifest, or inline rows.");

const section = <T extends z.ZodType>(entry: T, what: string) =>
  z.record(keySchema, entry, { error: `must be a map of key to ${what}` }).optional();

export const manifestSchema = z
  .object({
    buckets: section(manifestBucketSchema, "bucket").describe("Storage buckets, by key."),
    tables: section(manifestTableSchema, "table").describe("Storage tables, by key; each names its bucket. Sinks writing a declared table are checked against it."),
    sources: section(manifestSourceSchema, "source").describe("Stream sources, by key."),
    sinks: section(manifestSinkSchema, "sink").describe("Stream sinks, by key; each names its source."),
    variables: section(manifestVariablesSchema, "variables").describe("Variables configurations (keboola.variables), by key."),
    configurations: section(manifestConfigurationSchema, "configuration").describe("Component configurations, by key."),
    jobs: section(manifestJobSchema, "job").describe("Job runs, by key."),
    flows: section(manifestFlowSchema, "flow").describe("Flows (keboola.flow), by key."),
    schedules: section(manifestScheduleSchema, "schedule").describe("Schedules (keboola.scheduler), by key; each names its flow or configuration."),
  })
  .strict()
  .describe("keboola.yaml: a Keboola project declared as data, deployed by keboola-pulumi.");

export type Manifest = z.output<typeof manifestSchema>;
export type ManifestInput = z.input<typeof manifestSchema>;
export type ManifestSection = keyof Manifest;

/**
 * Which section each reference points at, by the section and field holding it; `inRows`: the
 * field of each of the entry's `rows`; `inTasks`: of each task of each of the entry's `phases`.
 */
export const REFERENCES: ReadonlyArray<{ section: ManifestSection; field: string; target: ManifestSection; inRows?: true; inTasks?: true }> = [
  { section: "tables", field: "bucket", target: "buckets" },
  { section: "sinks", field: "source", target: "sources" },
  { section: "configurations", field: "variables", target: "variables" },
  { section: "configurations", field: "variables", target: "variables", inRows: true },
  { section: "jobs", field: "configuration", target: "configurations" },
  { section: "flows", field: "configuration", target: "configurations", inTasks: true },
  { section: "schedules", field: "flow", target: "flows" },
  { section: "schedules", field: "configuration", target: "configurations" },
];

/** The manifest's JSON Schema (draft-07, which the YAML language server reads), from the same zod schemas. */
export function manifestJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(manifestSchema, { io: "input", unrepresentable: "any", target: "draft-7" });
  return { ...schema, title: "keboola.yaml" };
}
