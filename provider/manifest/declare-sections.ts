// Generated from provider/kinds/registry.ts by scripts/gen-kinds.ts (`npm run generate`): do not edit.
// Each section's entries declared as resources (provider/kinds/<kind>/declare.ts), in the order
// of sections.ts, each given what the sections before it declared.
import type { DeployBase } from "../program/manifest-context";
import type { Manifest } from "./schema";
import { declareSources } from "../kinds/source/declare";
import { declareBuckets } from "../kinds/bucket/declare";
import { declareTables } from "../kinds/table/declare";
import { declareSinks } from "../kinds/sink/declare";
import { declareVariables } from "../kinds/variable-config/declare";
import { declareConfigurations } from "../kinds/component-config/declare";
import { declareFlows } from "../kinds/flow/declare";
import { declareSchedules } from "../kinds/schedule/declare";
import { declareJobs } from "../kinds/job-run/declare";

/** Every entry of the manifest as a resource, by section (and `sourceSettings`, `sinkSettings`). */
export function declareSections(m: Manifest, base: DeployBase) {
  const d0 = declareSources(m.sources ?? {}, { ...base, optsOf: (key, part) => base.optsOf("sources", key, part), manifest: m, declared: {} });
  const d1 = declareBuckets(m.buckets ?? {}, { ...base, optsOf: (key, part) => base.optsOf("buckets", key, part), manifest: m, declared: { ...d0 } });
  const d2 = declareTables(m.tables ?? {}, { ...base, optsOf: (key, part) => base.optsOf("tables", key, part), manifest: m, declared: { ...d0, ...d1 } });
  const d3 = declareSinks(m.sinks ?? {}, { ...base, optsOf: (key, part) => base.optsOf("sinks", key, part), manifest: m, declared: { ...d0, ...d1, ...d2 } });
  const d4 = declareVariables(m.variables ?? {}, { ...base, optsOf: (key, part) => base.optsOf("variables", key, part), manifest: m, declared: { ...d0, ...d1, ...d2, ...d3 } });
  const d5 = declareConfigurations(m.configurations ?? {}, { ...base, optsOf: (key, part) => base.optsOf("configurations", key, part), manifest: m, declared: { ...d0, ...d1, ...d2, ...d3, ...d4 } });
  const d6 = declareFlows(m.flows ?? {}, { ...base, optsOf: (key, part) => base.optsOf("flows", key, part), manifest: m, declared: { ...d0, ...d1, ...d2, ...d3, ...d4, ...d5 } });
  const d7 = declareSchedules(m.schedules ?? {}, { ...base, optsOf: (key, part) => base.optsOf("schedules", key, part), manifest: m, declared: { ...d0, ...d1, ...d2, ...d3, ...d4, ...d5, ...d6 } });
  const d8 = declareJobs(m.jobs ?? {}, { ...base, optsOf: (key, part) => base.optsOf("jobs", key, part), manifest: m, declared: { ...d0, ...d1, ...d2, ...d3, ...d4, ...d5, ...d6, ...d7 } });
  return { ...d0, ...d1, ...d2, ...d3, ...d4, ...d5, ...d6, ...d7, ...d8 };
}
