import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { settingsShape } from "../validation/settings";
import { branchSchema, MAX_ID_LENGTH } from "../validation/ids";
import type { ArgsOf } from "../lifecycle/common";
import { defineResource, KeboolaResource, type InputsOf, type OutputsOf } from "../lifecycle/define";
import { settingsHandler } from "../lifecycle/settings-handler";
import { deletedWithSink, settingsFacts, withDeletedWith } from "../lifecycle/program";
import { inStackBranch } from "./branch";

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
export interface SinkSettingsArgs extends ArgsOf<SinkSettingsInputs> {}

export interface SinkSettings extends OutputsOf<typeof sinkSettings> {}
export class SinkSettings extends KeboolaResource {
  constructor(name: string, args: SinkSettingsArgs, opts?: pulumi.CustomResourceOptions) {
    args = inStackBranch(args); // keboola:branch: the stack's development branch unless it names one
    // Deleted with its Sink (or Source) when that is deleted too: no reset of a sink being deleted (program.ts).
    super(sinkSettings, name, args, withDeletedWith(opts, deletedWithSink(args)), settingsFacts(args));
  }
}

export const handler = settingsHandler(sinkSettings, "Settings");

export const definition = sinkSettings;
