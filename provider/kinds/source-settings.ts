import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { settingsShape } from "../validation/settings";
import { branchSchema, MAX_ID_LENGTH } from "../validation/ids";
import type { ArgsOf } from "../lifecycle/common";
import { defineResource, KeboolaResource, type InputsOf, type OutputsOf } from "../lifecycle/define";
import { settingsHandler } from "../lifecycle/settings-handler";
import { deletedWithSource, settingsFacts, withDeletedWith } from "../lifecycle/program";
import { inStackBranch } from "./branch";

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
export interface SourceSettingsArgs extends ArgsOf<SourceSettingsInputs> {}

export interface SourceSettings extends OutputsOf<typeof sourceSettings> {}
export class SourceSettings extends KeboolaResource {
  constructor(name: string, args: SourceSettingsArgs, opts?: pulumi.CustomResourceOptions) {
    args = inStackBranch(args); // keboola:branch: the stack's development branch unless it names one
    // Deleted with its Source when that is deleted too: no reset of a source being deleted (program.ts).
    super(sourceSettings, name, args, withDeletedWith(opts, deletedWithSource(args)), settingsFacts(args));
  }
}

export const handler = settingsHandler(sourceSettings, "Settings");

export const definition = sourceSettings;
