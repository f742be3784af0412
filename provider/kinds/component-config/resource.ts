// The ComponentConfig resource class a Pulumi program uses (the program process only): its arguments typed
// by the kind's schema (./kind.ts), registered as program/resource.ts registers every kind.
import type * as pulumi from "@pulumi/pulumi";
import { KeboolaResource, type ArgsOf, type OutputsOf } from "../../program/resource";
import { declareConfig, plainSecretPaths, componentConfigFacts, declaredConfig } from "../../program/declarations";
import { inStackBranch } from "../branch/stack";
import { type ComponentConfigInputs, componentConfig } from "./kind";

export interface ComponentConfigArgs extends ArgsOf<ComponentConfigInputs> {}

export interface ComponentConfig extends OutputsOf<typeof componentConfig> {}
export class ComponentConfig extends KeboolaResource {
  constructor(name: string, args: ComponentConfigArgs, opts?: pulumi.CustomResourceOptions) {
    args = inStackBranch(args); // keboola:branch: the stack's development branch unless it names one
    declareConfig("ComponentConfig", name, args);
    super(componentConfig, name, args, opts, { plainSecrets: plainSecretPaths({ configuration: args.configuration, rows: args.rows }), ...componentConfigFacts(args) });
    declaredConfig("ComponentConfig", name, args, args.componentId, this);
  }
}

export type { ComponentConfigInputs } from "./kind";
