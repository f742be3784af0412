import { z } from "zod";
import { defineSection, PLACEHOLDER, reference } from "../../lifecycle/manifest-section";
import { jobRunInputsSchema } from "./kind";

const { componentId: _jobComponent, configId: _jobConfig, branchId: _jobBranch, ...jobFields } = jobRunInputsSchema.shape;

/** keboola.yaml's `jobs`: a JobRun each, of a configuration of the manifest. */
export const jobsSection = defineSection({
  name: "jobs",
  what: "job",
  description: "Job runs, by key.",
  entry: z
    .object({ configuration: reference("configurations", "The configuration to run"), ...jobFields })
    .strict()
    .describe("One run of a configuration through the Job Queue (JobRun inputs)."),
  references: [{ field: "configuration", target: "configurations" }],
  checks: [{ schema: jobRunInputsSchema, toInputs: ({ configuration: _c, ...e }) => ({ ...e, componentId: PLACEHOLDER, configId: PLACEHOLDER }) }],
});

export type JobEntry = z.output<typeof jobsSection.entry>;
