import { z } from "zod";
import { settingsShape } from "../../validation/settings";
import { branchSchema, MAX_ID_LENGTH } from "../../validation/ids";
import { defineResource, type InputsOf } from "../../lifecycle/define";
import { settingsHandler } from "./handler";

// Stream settings of a source (they apply to all its sinks unless a sink overrides them).
// Only the keys set here are managed; deleting the resource resets them to the defaults.

export const sourceSettings = defineResource({
  type: "SourceSettings",
  description: "Stream trigger settings of a source (only the keys set are managed).",
  inputs: {
    branchId: branchSchema,
    sourceId: z.string().min(1, "must not be empty: pass the sourceId of a Source").max(MAX_ID_LENGTH).describe("The sourceId of the Source these settings belong to."),
    ...settingsShape,
  },
  outputs: {},
});

/** Kept for the manifest's schema: the inputs of a SourceSettings. */
export const sourceSettingsInputsSchema = sourceSettings.inputs;
export type SourceSettingsInputs = InputsOf<typeof sourceSettings>;

export const handler = settingsHandler(sourceSettings, "Settings");

export const definition = sourceSettings;
