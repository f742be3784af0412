// The VariableConfig resource class a Pulumi program uses (the program process only): its arguments typed
// by the kind's schema (./kind.ts), registered as program/resource.ts registers every kind.
import type * as pulumi from "@pulumi/pulumi";
import { KeboolaResource, type ArgsOf, type OutputsOf } from "../../program/resource";
import { VARIABLES_COMPONENT } from "../../lifecycle/configurations";
import { declareConfig, declaredConfig } from "../../program/declarations";
import { inStackBranch } from "../branch/stack";
import { type VariableConfigInputs, variableConfig } from "./kind";

export interface VariableConfigArgs extends ArgsOf<VariableConfigInputs> {}

/** What a ComponentConfig's `variables` input takes: pass `variableConfig.binding()`. */
export interface VariablesBinding {
  configId: pulumi.Input<string>;
  valuesRowId?: pulumi.Input<string | undefined>;
  declared?: pulumi.Input<Array<pulumi.Input<{ name: pulumi.Input<string>; type?: pulumi.Input<"string" | "int"> }>>>;
}

export interface VariableConfig extends OutputsOf<typeof variableConfig> {}
export class VariableConfig extends KeboolaResource {
  constructor(name: string, args: VariableConfigArgs, opts?: pulumi.CustomResourceOptions) {
    args = inStackBranch(args); // keboola:branch: the stack's development branch unless it names one
    declareConfig("VariableConfig", name, { ...args, componentId: VARIABLES_COMPONENT });
    super(variableConfig, name, args, opts);
    declaredConfig("VariableConfig", name, args, VARIABLES_COMPONENT, this);
  }

  /**
   * The value for a ComponentConfig's `variables` input: the configuration, its values row and the
   * declarations (known at preview, so placeholders are checked before anything is created).
   */
  binding(): VariablesBinding {
    return { configId: this.configId, valuesRowId: this.valuesRowId, declared: this.variables };
  }
}

export type { VariableConfigInputs } from "./kind";
