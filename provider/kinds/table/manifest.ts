import { z } from "zod";
import { defineSection, reference } from "../../lifecycle/manifest-section";
import { tableInputsSchema } from "./kind";

const { bucketId: _tableBucket, dataContent: _tableContent, branchId: _tableBranch, ...tableFields } = tableInputsSchema.shape;

/** keboola.yaml's `tables`: a Table each, in a bucket of the manifest. */
export const tablesSection = defineSection({
  name: "tables",
  what: "table",
  description: "Storage tables, by key; each names its bucket. Sinks writing a declared table are checked against it.",
  entry: z
    .object({
      bucket: reference("buckets", "The table's bucket"),
      ...tableFields,
    })
    .strict()
    .describe("A Storage table (Table inputs; branch and bucketId come from its bucket). `data`: a CSV path relative to this manifest, or inline rows."),
  references: [{ field: "bucket", target: "buckets" }],
  checks: [{ schema: tableInputsSchema, toInputs: ({ bucket: _b, ...e }) => ({ ...e, bucketId: "in.c-manifest-reference" }) }],
});

export type TableEntry = z.output<typeof tablesSection.entry>;
