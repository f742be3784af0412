import type { z } from "zod";
import { sourceInputsSchema, sourceOutputsSchema } from "./resources/source";
import { sinkInputsSchema, sinkOutputsSchema } from "./resources/sink";
import { sourceSettingsInputsSchema } from "./resources/source-settings";
import { sinkSettingsInputsSchema } from "./resources/sink-settings";
import { variableConfigInputsSchema, variableConfigOutputsSchema } from "./resources/variable-config";
import { componentConfigInputsSchema, componentConfigOutputsSchema } from "./resources/component-config";
import { jobRunInputsSchema, jobRunOutputsSchema } from "./resources/job-run";
import { z as zod } from "zod";

// Every resource with its schemas, for schema.json and documentation.

export interface CatalogEntry {
  type: string;
  description: string;
  inputs: z.ZodType;
  outputs: z.ZodObject;
  secretOutputs: string[];
}

const none = zod.object({});

export const CATALOG: CatalogEntry[] = [
  { type: "Source", description: "A Stream source: an HTTP or OTLP endpoint receiving events.", inputs: sourceInputsSchema, outputs: sourceOutputsSchema, secretOutputs: ["url", "baseUrl", "secret"] },
  { type: "Sink", description: "A Stream sink: maps each event of its source to a row of a Storage table.", inputs: sinkInputsSchema, outputs: sinkOutputsSchema, secretOutputs: [] },
  { type: "SourceSettings", description: "Stream trigger settings of a source (only the keys set are managed).", inputs: sourceSettingsInputsSchema, outputs: none, secretOutputs: [] },
  { type: "SinkSettings", description: "Stream trigger settings of one sink (only the keys set are managed).", inputs: sinkSettingsInputsSchema, outputs: none, secretOutputs: [] },
  { type: "VariableConfig", description: "Configuration variables (keboola.variables): declarations and a row of default values.", inputs: variableConfigInputsSchema, outputs: variableConfigOutputsSchema, secretOutputs: [] },
  { type: "ComponentConfig", description: "A component configuration with its rows, optionally bound to a VariableConfig.", inputs: componentConfigInputsSchema, outputs: componentConfigOutputsSchema, secretOutputs: [] },
  { type: "JobRun", description: "One run of a configuration through the Job Queue; runs again when its triggers change.", inputs: jobRunInputsSchema, outputs: jobRunOutputsSchema, secretOutputs: [] },
];
