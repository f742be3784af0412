// The Scheduler's contract, as the provider's client and the emulator both rely on it: what a
// `keboola.scheduler` configuration holds and what the Scheduler API answers for a schedule.
//
// Configuration content (keboola/keboola-sdk-go pkg/keboola/scheduler_api_test.go creates one;
// and scheduler_api.go, the requests the SDK sends):
//   {schedule: {cronTab, timezone, state: "enabled"|"disabled"},
//    target: {componentId, configurationId, configurationRowIds?, mode: "run", variableValuesId?, variableValuesData?}}
// Schedule JSON (pkg/keboola/scheduler_model.go `Schedule`): {id, tokenId, configurationId,
// configurationVersionId, schedule, target, executions: [{jobId, executionTime}]}.

import { z } from "zod";
import { checkCronTab, checkTimezone } from "./cron";

export const SCHEDULER_COMPONENT_ID = "keboola.scheduler";

const id = z.union([z.string().min(1), z.number().int()]).transform((v) => String(v));

export const scheduleCronSchema = z.looseObject({
  cronTab: z.string().superRefine((v, c) => {
    const r = checkCronTab(v);
    if (!r.ok) c.addIssue({ code: "custom", message: `${r.reason}: ${r.fix}` });
  }),
  timezone: z
    .string()
    .default("UTC")
    .superRefine((v, c) => {
      const r = checkTimezone(v);
      if (!r.ok) c.addIssue({ code: "custom", message: `${r.reason}: ${r.fix}` });
    }),
  state: z.enum(["enabled", "disabled"]).default("enabled"),
});

export const variableValuesDataSchema = z.object({
  values: z.array(z.object({ name: z.string(), value: z.union([z.string(), z.number()]).transform((v) => String(v)) })),
});

export const scheduleTargetSchema = z.looseObject({
  componentId: z.string().min(1),
  configurationId: id,
  configurationRowIds: z.array(id).default([]),
  mode: z.literal("run").default("run"),
  tag: z.string().optional(),
  variableValuesId: id.optional(),
  variableValuesData: variableValuesDataSchema.optional(),
});

/** A `keboola.scheduler` configuration's content. */
export const schedulerConfigurationSchema = z.looseObject({
  schedule: scheduleCronSchema,
  target: scheduleTargetSchema,
});

export type SchedulerConfiguration = z.output<typeof schedulerConfigurationSchema>;

/** A schedule as the Scheduler API answers it. */
export interface ScheduleJson {
  id: string;
  tokenId: string;
  configurationId: string;
  configurationVersionId: string;
  schedule: { cronTab: string; timezone: string; state: "enabled" | "disabled" };
  target: {
    componentId: string;
    configurationId: string;
    configurationRowIds: string[];
    mode: string;
    tag: string;
    variableValuesId?: string;
    variableValuesData?: { values: Array<{ name: string; value: string }> };
  };
  executions: Array<{ jobId: string; executionTime: string }>;
}
