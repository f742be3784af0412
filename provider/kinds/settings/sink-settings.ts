import { z } from "zod";
import { settingsShape } from "../../validation/settings";
import { branchSchema, MAX_ID_LENGTH } from "../../validation/ids";
import { defineResource, type InputsOf } from "../../lifecycle/define";
import { settingsHandler } from "./handler";

// Stream settings of one sink, overriding its source's. Only the keys set here are managed;
// deleting the resource resets them to the defaults.

export const sinkSettings = defineResource({
  type: "SinkSettings",
  description: "Stream trigger settings of one sink (only the keys set are managed).",
  inputs: {
    branchId: branchSchema,
    sourceId: z.string().min(1, "must not be empty: pass the sourceId of the Sink's source").max(MAX_ID_LENGTH).describe("The sourceId of the Sink's source."),
    sinkId: z.string().min(1, "must not be empty: pass the sinkId of a Sink").max(MAX_ID_LENGTH).describe("The sinkId of the Sink these settings belong to."),
    ...settingsShape,
  },
  outputs: {},
});

/** Kept for the manifest's schema: the inputs of a SinkSettings. */
export const sinkSettingsInputsSchema = sinkSettings.inputs;
export type SinkSettingsInputs = InputsOf<typeof sinkSettings>;

export const handler = settingsHandler(sinkSettings, "Settings");

export const definition = sinkSettings;
