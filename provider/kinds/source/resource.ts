// The Source resource class a Pulumi program uses (the program process only): its arguments typed
// by the kind's schema (./kind.ts), registered as program/resource.ts registers every kind.
import type * as pulumi from "@pulumi/pulumi";
import { KeboolaResource, type ArgsOf, type OutputsOf } from "../../program/resource";
import { declareSource, sourceFacts, declaredSource } from "../../program/declarations";
import { inStackBranch } from "../branch/stack";
import { type SourceInputs, source } from "./kind";

export interface SourceArgs extends ArgsOf<SourceInputs> {}

export interface Source extends OutputsOf<typeof source> {}
export class Source extends KeboolaResource {
  constructor(name: string, args: SourceArgs, opts?: pulumi.CustomResourceOptions) {
    args = inStackBranch(args); // keboola:branch: the stack's development branch unless it names one
    const declared = declareSource(name, args);
    super(source, name, args, opts, sourceFacts(name, args));
    declaredSource(declared, this);
  }
}

export type { SourceInputs } from "./kind";
