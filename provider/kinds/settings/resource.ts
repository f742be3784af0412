// The SourceSettings and SinkSettings resource classes a Pulumi program uses (the program process
// only): their arguments typed by the kinds' schemas (source-settings.ts, sink-settings.ts).
import type * as pulumi from "@pulumi/pulumi";
import { KeboolaResource, type ArgsOf, type OutputsOf } from "../../program/resource";
import { deletedWithSink, deletedWithSource, settingsFacts, withDeletedWith } from "../../program/declarations";
import { inStackBranch } from "../branch/stack";
import { sourceSettings, type SourceSettingsInputs } from "./source-settings";
import { sinkSettings, type SinkSettingsInputs } from "./sink-settings";

export interface SourceSettingsArgs extends ArgsOf<SourceSettingsInputs> {}

export interface SourceSettings extends OutputsOf<typeof sourceSettings> {}
export class SourceSettings extends KeboolaResource {
  constructor(name: string, args: SourceSettingsArgs, opts?: pulumi.CustomResourceOptions) {
    args = inStackBranch(args); // keboola:branch: the stack's development branch unless it names one
    // Deleted with its Source when that is deleted too: no reset of a source being deleted (program.ts).
    super(sourceSettings, name, args, withDeletedWith(opts, deletedWithSource(args)), settingsFacts(args));
  }
}

export interface SinkSettingsArgs extends ArgsOf<SinkSettingsInputs> {}

export interface SinkSettings extends OutputsOf<typeof sinkSettings> {}
export class SinkSettings extends KeboolaResource {
  constructor(name: string, args: SinkSettingsArgs, opts?: pulumi.CustomResourceOptions) {
    args = inStackBranch(args); // keboola:branch: the stack's development branch unless it names one
    // Deleted with its Sink (or Source) when that is deleted too: no reset of a sink being deleted (program.ts).
    super(sinkSettings, name, args, withDeletedWith(opts, deletedWithSink(args)), settingsFacts(args));
  }
}

export type { SourceSettingsInputs } from "./source-settings";
export type { SinkSettingsInputs } from "./sink-settings";
