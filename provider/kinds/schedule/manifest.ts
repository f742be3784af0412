import { z } from "zod";
import { defineSection, PLACEHOLDER, reference } from "../../lifecycle/manifest-section";
import { scheduleInputsSchema, scheduleTargetSchema } from "./kind";

const { target: _target, ...scheduleFields } = scheduleInputsSchema.shape;
const { componentId: _targetComponent, configId: _targetConfig, ...targetFields } = scheduleTargetSchema.shape;

/** keboola.yaml's `schedules`: a Schedule each, of a flow or a configuration of the manifest. */
export const schedulesSection = defineSection({
  name: "schedules",
  what: "schedule",
  description: "Schedules (keboola.scheduler), by key; each names its flow or configuration.",
  entry: z
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
    .describe("A schedule (Schedule inputs): runs a flow or a configuration, named by key, by cron."),
  references: [
    { field: "flow", target: "flows" },
    { field: "configuration", target: "configurations" },
  ],
  checks: [
    {
      schema: scheduleInputsSchema,
      toInputs: ({ flow: _f, configuration: _c, variableValuesData, variableValuesId, ...e }) => ({
        name: PLACEHOLDER,
        ...e,
        target: { componentId: PLACEHOLDER, configId: PLACEHOLDER, ...(variableValuesData !== undefined ? { variableValuesData } : {}), ...(variableValuesId !== undefined ? { variableValuesId } : {}) },
      }),
    },
  ],
});

export type ScheduleEntry = z.output<typeof schedulesSection.entry>;
