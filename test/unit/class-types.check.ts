import type * as pulumi from "@pulumi/pulumi";
import { ComponentConfig, Source, VariableConfig, JobRun, Sink } from "../../provider/index";

// Compile-time only (npm run typecheck): the classes' properties as the schema derives them.
export function classTypes(s: Source, k: Sink, v: VariableConfig, c: ComponentConfig, j: JobRun): unknown[] {
  const url: pulumi.Output<string> = s.url;
  const branch: pulumi.Output<string> = s.branchId;
  const project: pulumi.Output<number> = k.projectId;
  const values: pulumi.Output<string | undefined> = v.valuesRowId;
  const rows: pulumi.Output<string[]> = c.rowIds;
  const duration: pulumi.Output<number | undefined> = j.durationSeconds;
  // @ts-expect-error url is a string
  const wrong: pulumi.Output<number> = s.url;
  // @ts-expect-error bookkeeping is not on the class
  const hidden = c.explicitConfigId;
  return [url, branch, project, values, rows, duration, wrong, hidden];
}
