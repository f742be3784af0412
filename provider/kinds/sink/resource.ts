// The Sink resource class a Pulumi program uses (the program process only): its arguments typed
// by the kind's schema (./kind.ts), registered as program/resource.ts registers every kind.
import type * as pulumi from "@pulumi/pulumi";
import { KeboolaResource, withDependency, type ArgsOf, type OutputsOf } from "../../program/resource";
import { declareSink, tableResourceOf, withDeletedWith, deletedWithSource, sinkFacts, declaredSink } from "../../program/declarations";
import { inStackBranch } from "../branch/stack";
import { type SinkInputs, sink } from "./kind";

export interface SinkArgs extends ArgsOf<SinkInputs> {}

export interface Sink extends OutputsOf<typeof sink> {}
export class Sink extends KeboolaResource {
  constructor(name: string, args: SinkArgs, opts?: pulumi.CustomResourceOptions) {
    args = inStackBranch(args); // keboola:branch: the stack's development branch unless it names one
    const declared = declareSink(name, args);
    // Deleted with its Source when that is deleted too (program.ts).
    // A Table of this program that it writes is created (and changed) before it.
    const table = tableResourceOf(args);
    const options = table ? { ...opts, dependsOn: withDependency(opts?.dependsOn, table) } : opts;
    super(sink, name, args, withDeletedWith(options, deletedWithSource(args)), sinkFacts(name, args));
    declaredSink(declared, this);
  }
}

export type { SinkInputs } from "./kind";
