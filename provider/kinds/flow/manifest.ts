import { z } from "zod";
import { isRecord } from "../../../keboola/json";
import { defineSection, inStackBranch, PLACEHOLDER, reference } from "../../lifecycle/manifest-section";
import { flowInputsSchema, flowPhaseInputsSchema, flowTaskInputsSchema } from "./kind";

const { componentId: _taskComponent, configId: _taskConfig, ...taskFields } = flowTaskInputsSchema.shape;
const { tasks: _tasks, ...phaseFields } = flowPhaseInputsSchema.shape;
const { phases: _phases, ...flowFields } = inStackBranch(flowInputsSchema.shape);

const taskSchema = z
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

/** keboola.yaml's `flows`: a Flow each, its tasks naming configurations of the manifest by key. */
export const flowsSection = defineSection({
  name: "flows",
  what: "flow",
  description: "Flows (keboola.flow), by key.",
  entry: z
    .object({
      ...flowFields,
      phases: z
        .array(z.object({ ...phaseFields, tasks: z.array(taskSchema, { error: "must be a list of tasks" }).describe("The configurations this phase runs.") }).strict(), { error: "must be a list of phases" })
        .describe("Phases, in order; dependsOn names phases by name."),
    })
    .strict()
    .describe("A flow (Flow inputs): phases of tasks, each running a configuration named by key."),
  references: [{ field: "configuration", target: "configurations", inTasks: true }],
  checks: [
    {
      schema: flowInputsSchema,
      toInputs: ({ phases, ...e }) => ({
        ...e,
        phases: Array.isArray(phases)
          ? phases.map((p: unknown) =>
              isRecord(p) && Array.isArray(p.tasks)
                ? { ...p, tasks: p.tasks.map((t: unknown) => (isRecord(t) && t.configuration !== undefined ? (({ configuration: _c, ...rest }) => ({ ...rest, componentId: PLACEHOLDER, configId: PLACEHOLDER }))(t) : t)) }
                : p,
            )
          : phases,
      }),
    },
  ],
});

export type FlowEntry = z.output<typeof flowsSection.entry>;
