// The Flow resource class a Pulumi program uses (the program process only): its arguments typed
// by the kind's schema (./kind.ts), registered as program/resource.ts registers every kind.
import type * as pulumi from "@pulumi/pulumi";
import { KeboolaResource, type ArgsOf, type OutputsOf } from "../../program/resource";
import { FLOW_COMPONENT_ID } from "../../../keboola/flow";
import { declareConfig, flowFacts, declaredConfig } from "../../program/declarations";
import { inStackBranch } from "../branch/stack";
import { type FlowInputs, flow } from "./kind";

export interface FlowArgs extends ArgsOf<FlowInputs> {}

export interface Flow extends OutputsOf<typeof flow> {}
export class Flow extends KeboolaResource {
  constructor(name: string, args: FlowArgs, opts?: pulumi.CustomResourceOptions) {
    args = inStackBranch(args); // keboola:branch: the stack's development branch unless it names one
    declareConfig("Flow", name, { ...args, componentId: FLOW_COMPONENT_ID });
    super(flow, name, args, opts, flowFacts(args));
    declaredConfig("Flow", name, args, FLOW_COMPONENT_ID, this);
  }

  /** The value for a Schedule's `target`: this flow. */
  target(): { componentId: string; configId: pulumi.Output<string> } {
    return { componentId: FLOW_COMPONENT_ID, configId: this.configId };
  }
}

export type { FlowInputs } from "./kind";
