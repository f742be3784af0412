import { z } from "zod";
import { defineSection, PLACEHOLDER, reference, settingsSchema } from "../../lifecycle/manifest-section";
import { sinkInputsSchema } from "./kind";

const { sourceId: _sinkSource, branchId: _sinkBranch, ...sinkFields } = sinkInputsSchema.shape;

/** keboola.yaml's `sinks`: a Sink each, with its trigger settings (a SinkSettings). */
export const sinksSection = defineSection({
  name: "sinks",
  what: "sink",
  description: "Stream sinks, by key; each names its source.",
  entry: z
    .object({
      source: reference("sources", "The sink's source"),
      ...sinkFields,
      settings: settingsSchema.optional(),
    })
    .strict()
    .describe("A Stream sink (Sink inputs; branch and sourceId come from its source), with its trigger settings."),
  references: [{ field: "source", target: "sources" }],
  // A sink writing a table of the manifest is checked against it and depends on it.
  after: ["tables"],
  checks: [{ schema: sinkInputsSchema, toInputs: ({ source: _s, settings: _t, ...e }) => ({ ...e, sourceId: PLACEHOLDER }) }],
});

export type SinkEntry = z.output<typeof sinksSection.entry>;
