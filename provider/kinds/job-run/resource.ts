// The JobRun resource class a Pulumi program uses (the program process only): its arguments typed
// by the kind's schema (./kind.ts), registered as program/resource.ts registers every kind.
import type * as pulumi from "@pulumi/pulumi";
import { KeboolaResource, type ArgsOf, type OutputsOf } from "../../program/resource";
import { jobFacts } from "../../program/declarations";
import { inStackBranch } from "../branch/stack";
import { type JobRunInputs, jobRun } from "./kind";

export interface JobRunArgs extends ArgsOf<JobRunInputs> {}

export interface JobRun extends OutputsOf<typeof jobRun> {}
export class JobRun extends KeboolaResource {
  constructor(name: string, args: JobRunArgs, opts?: pulumi.CustomResourceOptions) {
    args = inStackBranch(args); // keboola:branch: the stack's development branch unless it names one
    super(jobRun, name, args, opts, jobFacts(args));
  }
}

export type { JobRunInputs } from "./kind";
