// The Bucket resource class a Pulumi program uses (the program process only): its arguments typed
// by the kind's schema (./kind.ts), registered as program/resource.ts registers every kind.
import type * as pulumi from "@pulumi/pulumi";
import { KeboolaResource, type ArgsOf, type OutputsOf } from "../../program/resource";
import { declareBucket, declaredBucket } from "../../program/declarations";
import { inStackBranch } from "../branch/stack";
import { type BucketInputs, bucket } from "./kind";

export interface BucketArgs extends ArgsOf<BucketInputs> {}

export interface Bucket extends OutputsOf<typeof bucket> {}
export class Bucket extends KeboolaResource {
  constructor(name: string, args: BucketArgs, opts?: pulumi.CustomResourceOptions) {
    args = inStackBranch(args); // keboola:branch: the stack's development branch unless it names one
    declareBucket(name, args);
    super(bucket, name, args, opts);
    declaredBucket(args, this);
  }
}

export type { BucketInputs } from "./kind";
