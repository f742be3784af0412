import { z } from "zod";
import { defineSection, inStackBranch, PLACEHOLDER, settingsSchema } from "../../lifecycle/manifest-section";
import { sourceInputsSchema } from "./kind";
import { sourceSettingsInputsSchema } from "../settings/source-settings";

/** keboola.yaml's `sources`: a Source each, with its trigger settings (a SourceSettings). */
export const sourcesSection = defineSection({
  name: "sources",
  what: "source",
  description: "Stream sources, by key.",
  entry: z
    .object({ ...inStackBranch(sourceInputsSchema.shape), settings: settingsSchema.optional() })
    .strict()
    .describe("A Stream source (Source inputs), with its trigger settings."),
  references: [],
  checks: [
    { schema: sourceInputsSchema, toInputs: ({ settings: _s, ...e }) => e },
    { schema: sourceSettingsInputsSchema, toInputs: (e) => ({ sourceId: PLACEHOLDER, ...(typeof e.settings === "object" ? e.settings : {}) }) },
  ],
});

export type SourceEntry = z.output<typeof sourcesSection.entry>;
