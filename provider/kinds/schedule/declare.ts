import type { DeployContext } from "../../program/manifest-context";
import type { ScheduleEntry } from "./manifest";
import type * as pulumi from "@pulumi/pulumi";
import { Schedule } from "./resource";

/** The `schedules` of a manifest: a Schedule each, of its flow or configuration (named by key), its name the key unless given. */
export function declareSchedules(
  entries: Record<string, ScheduleEntry>,
  ctx: DeployContext<{ configurations?: Record<string, { componentId: string }> }, { configurations: Record<string, { configId: pulumi.Output<string> }>; flows: Record<string, { target(): { componentId: string; configId: pulumi.Output<string> } }> }>,
) {
  const schedules: Record<string, Schedule> = {};
  for (const [key, { flow, configuration, variableValuesData, variableValuesId, ...inputs }] of Object.entries(entries)) {
    if (ctx.leftOut.schedules?.includes(key)) continue;
    const runs = flow !== undefined ? ctx.declared.flows[flow].target() : { componentId: ctx.manifest.configurations![configuration!].componentId, configId: ctx.declared.configurations[configuration!].configId };
    const values = { ...(variableValuesData !== undefined ? { variableValuesData } : {}), ...(variableValuesId !== undefined ? { variableValuesId } : {}) };
    schedules[key] = new Schedule(key, { ...inputs, name: inputs.name ?? key, target: { ...runs, ...values } }, ctx.optsOf(key));
  }
  return { schedules };
}
