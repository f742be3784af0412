import { z } from "zod";
import { defineSection, inStackBranch } from "../../lifecycle/manifest-section";
import { variableConfigInputsSchema } from "./kind";

/** keboola.yaml's `variables`: a VariableConfig each. */
export const variablesSection = defineSection({
  name: "variables",
  what: "variables",
  description: "Variables configurations (keboola.variables), by key.",
  entry: z.object(inStackBranch(variableConfigInputsSchema.shape)).strict().describe("Configuration variables with default values (VariableConfig inputs)."),
  references: [],
  checks: [{ schema: variableConfigInputsSchema, toInputs: (e) => e }],
});

export type VariablesEntry = z.output<typeof variablesSection.entry>;
