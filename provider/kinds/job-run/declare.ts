import type { DeployContext } from "../../program/manifest-context";
import type { JobEntry } from "./manifest";
import type * as pulumi from "@pulumi/pulumi";
import { JobRun } from "./resource";

/** The `jobs` of a manifest: a JobRun each, of its configuration. */
export function declareJobs(entries: Record<string, JobEntry>, ctx: DeployContext<{ configurations?: Record<string, { branchId?: string; componentId: string }> }, { configurations: Record<string, { configId: pulumi.Output<string> }> }>) {
  const jobs: Record<string, JobRun> = {};
  for (const [key, { configuration, ...inputs }] of Object.entries(entries)) {
    const entry = ctx.manifest.configurations![configuration];
    const configId = ctx.declared.configurations[configuration].configId;
    jobs[key] = new JobRun(key, { ...inputs, branchId: entry.branchId, componentId: entry.componentId, configId }, ctx.optsOf(key));
  }
  return { jobs };
}
