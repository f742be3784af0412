import type { z } from "zod";
import { sourceInputsSchema, sourceOutputsSchema } from "./resources/source";
import { sinkInputsSchema, sinkOutputsSchema } from "./resources/sink";
import { sourceSettingsInputsSchema } from "./resources/source-settings";
import { sinkSettingsInputsSchema } from "./resources/sink-settings";
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
];
