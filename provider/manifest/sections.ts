// Generated from provider/kinds/registry.ts by scripts/gen-kinds.ts (`npm run generate`): do not edit.
// The manifest's sections (each kind's own: provider/kinds/<kind>/manifest.ts), in the order
// they are declared: what schema.ts, parse.ts and export's docs read of keboola.yaml.
import { sectionSchema } from "../lifecycle/manifest-section";
import { sourcesSection } from "../kinds/source/manifest";
import { bucketsSection } from "../kinds/bucket/manifest";
import { tablesSection } from "../kinds/table/manifest";
import { sinksSection } from "../kinds/sink/manifest";
import { variablesSection } from "../kinds/variable-config/manifest";
import { configurationsSection } from "../kinds/component-config/manifest";
import { flowsSection } from "../kinds/flow/manifest";
import { schedulesSection } from "../kinds/schedule/manifest";
import { jobsSection } from "../kinds/job-run/manifest";

export const SECTIONS = [sourcesSection, bucketsSection, tablesSection, sinksSection, variablesSection, configurationsSection, flowsSection, schedulesSection, jobsSection] as const;

/** The manifest's sections as its schema's shape. */
export const sectionsShape = {
  sources: sectionSchema(sourcesSection),
  buckets: sectionSchema(bucketsSection),
  tables: sectionSchema(tablesSection),
  sinks: sectionSchema(sinksSection),
  variables: sectionSchema(variablesSection),
  configurations: sectionSchema(configurationsSection),
  flows: sectionSchema(flowsSection),
  schedules: sectionSchema(schedulesSection),
  jobs: sectionSchema(jobsSection),
};
