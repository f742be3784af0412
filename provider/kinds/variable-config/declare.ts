import type { DeployContext } from "../../program/manifest-context";
import type { VariablesEntry } from "./manifest";
import { VariableConfig } from "./resource";

/** The `variables` of a manifest: a VariableConfig each. */
export function declareVariables(entries: Record<string, VariablesEntry>, ctx: DeployContext) {
  const variables: Record<string, VariableConfig> = {};
  for (const [key, inputs] of Object.entries(entries)) variables[key] = new VariableConfig(key, inputs, ctx.optsOf(key));
  return { variables };
}
