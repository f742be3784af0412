import type { AnyDefinition } from "./resources/define";
import { source } from "./resources/source";
import { sink } from "./resources/sink";
import { sourceSettings } from "./resources/source-settings";
import { sinkSettings } from "./resources/sink-settings";
import { variableConfig } from "./resources/variable-config";
import { componentConfig } from "./resources/component-config";
import { jobRun } from "./resources/job-run";

// Every resource's definition (its one schema with the derived pieces), for schema.json and
// documentation: one per row of the kinds table (kinds/table.ts), in its order. Imported statically
// (the schema generator and the tests load it as modules); test/unit/kinds.test.ts holds it against
// the table.

export const CATALOG: readonly AnyDefinition[] = [source, sink, sourceSettings, sinkSettings, componentConfig, variableConfig, jobRun];
