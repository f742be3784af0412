import { z } from "zod";
import { defineSection, inStackBranch } from "../../lifecycle/manifest-section";
import { bucketInputsSchema } from "./kind";

/** keboola.yaml's `buckets`: a Bucket each. */
export const bucketsSection = defineSection({
  name: "buckets",
  what: "bucket",
  description: "Storage buckets, by key.",
  entry: z.object(inStackBranch(bucketInputsSchema.shape)).strict().describe('A Storage bucket (Bucket inputs): stage and name make its id ("in.c-<name>").'),
  references: [],
  checks: [{ schema: bucketInputsSchema, toInputs: (e) => e }],
});

export type BucketEntry = z.output<typeof bucketsSection.entry>;
