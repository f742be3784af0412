import type { z } from "zod";
import type * as dynamic from "@pulumi/pulumi/dynamic";

// Turning validation problems into Pulumi check failures: each names the property path (as
// Pulumi shows it next to the resource name) and says how to fix it.

export function pathOf(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const seg of path) out += typeof seg === "number" ? `[${seg}]` : out ? `.${String(seg)}` : String(seg);
  return out;
}

export function zodFailures(error: z.ZodError): dynamic.CheckFailure[] {
  return error.issues.map((issue) => ({ property: pathOf(issue.path), reason: issue.message }));
}

export class CheckFailures extends Error {
  constructor(readonly failures: dynamic.CheckFailure[]) {
    super(failures.map((f) => `${f.property}: ${f.reason}`).join("; "));
  }
}
