// The Schedule resource class a Pulumi program uses (the program process only): its arguments typed
// by the kind's schema (./kind.ts), registered as program/resource.ts registers every kind.
import type * as pulumi from "@pulumi/pulumi";
import { KeboolaResource, type ArgsOf, type OutputsOf } from "../../program/resource";
import { SCHEDULER_COMPONENT_ID } from "../../../keboola/scheduler";
import { declareConfig, scheduleFacts, declaredConfig } from "../../program/declarations";
import { stackBranchName } from "../branch/resource";
import { type ScheduleInputs, schedule } from "./kind";

export interface ScheduleArgs extends ArgsOf<ScheduleInputs> {}

export interface Schedule extends OutputsOf<typeof schedule> {}
export class Schedule extends KeboolaResource {
  constructor(name: string, args: ScheduleArgs, opts?: pulumi.CustomResourceOptions) {
    declareConfig("Schedule", name, { ...args, componentId: SCHEDULER_COMPONENT_ID });
    // In a stack of a development branch: schedules run in the default branch only (see check).
    const inBranch = stackBranchName();
    super(schedule, name, args, opts, { ...scheduleFacts(args), ...(inBranch !== undefined ? { stackBranch: inBranch } : {}) });
    declaredConfig("Schedule", name, args, SCHEDULER_COMPONENT_ID, this);
  }
}

export type { ScheduleInputs } from "./kind";
