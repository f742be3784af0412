import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { settingsShape } from "../validation/settings";
import { branchSchema, MAX_ID_LENGTH } from "../validation/ids";
import { resourceArgs, type ArgsOf } from "./common";
import kindProvider from "../kinds/source-settings";
import { settingsHandler } from "./settings-handler";
import { settingsFacts } from "./program";

// Stream settings of a source (they apply to all its sinks unless a sink overrides them).
// Only the keys set here are managed; deleting the resource resets them to the defaults.

export const sourceSettingsInputsSchema = z
  .object({
    branchId: branchSchema,
    sourceId: z.string().min(1, "must not be empty: pass the sourceId of a Source").max(MAX_ID_LENGTH),
    ...settingsShape,
  })
  .strict();

export type SourceSettingsInputs = z.input<typeof sourceSettingsInputsSchema>;
export interface SourceSettingsArgs extends ArgsOf<SourceSettingsInputs> {}

export class SourceSettings extends pulumi.dynamic.Resource {
  declare readonly sourceId: pulumi.Output<string>;
  declare readonly stagingUploadTrigger: pulumi.Output<SourceSettingsInputs["stagingUploadTrigger"]>;
  declare readonly targetImportTrigger: pulumi.Output<SourceSettingsInputs["targetImportTrigger"]>;
  declare readonly syncWait: pulumi.Output<boolean | undefined>;

  constructor(name: string, args: SourceSettingsArgs, opts?: pulumi.CustomResourceOptions) {
    super(...resourceArgs(kindProvider, "SourceSettings", name, { ...args, __program: settingsFacts(args) }, [], [], opts));
  }
}

export const handler = settingsHandler(sourceSettingsInputsSchema, "Settings");
