import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { settingsShape } from "../validation/settings";
import { branchSchema, MAX_ID_LENGTH } from "../validation/ids";
import { resourceArgs, type ArgsOf } from "./common";
import kindProvider from "../kinds/sink-settings";
import { settingsHandler } from "./settings-handler";
import { settingsFacts } from "./program";

// Stream settings of one sink, overriding its source's. Only the keys set here are managed;
// deleting the resource resets them to the defaults.

export const sinkSettingsInputsSchema = z
  .object({
    branchId: branchSchema,
    sourceId: z.string().min(1, "must not be empty: pass the sourceId of the Sink's source").max(MAX_ID_LENGTH),
    sinkId: z.string().min(1, "must not be empty: pass the sinkId of a Sink").max(MAX_ID_LENGTH),
    ...settingsShape,
  })
  .strict();

export type SinkSettingsInputs = z.input<typeof sinkSettingsInputsSchema>;
export interface SinkSettingsArgs extends ArgsOf<SinkSettingsInputs> {}

export class SinkSettings extends pulumi.dynamic.Resource {
  declare readonly sourceId: pulumi.Output<string>;
  declare readonly sinkId: pulumi.Output<string>;
  declare readonly stagingUploadTrigger: pulumi.Output<SinkSettingsInputs["stagingUploadTrigger"]>;
  declare readonly targetImportTrigger: pulumi.Output<SinkSettingsInputs["targetImportTrigger"]>;
  declare readonly syncWait: pulumi.Output<boolean | undefined>;

  constructor(name: string, args: SinkSettingsArgs, opts?: pulumi.CustomResourceOptions) {
    super(...resourceArgs(kindProvider, "SinkSettings", name, { ...args, __program: settingsFacts(args) }, [], [], opts));
  }
}

export const handler = settingsHandler(sinkSettingsInputsSchema, "Settings");
