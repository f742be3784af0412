import type { DeployContext } from "../../program/manifest-context";
import type { BucketEntry } from "./manifest";
import { Bucket } from "./resource";

/** The `buckets` of a manifest: a Bucket each. */
export function declareBuckets(entries: Record<string, BucketEntry>, ctx: DeployContext) {
  const buckets: Record<string, Bucket> = {};
  for (const [key, inputs] of Object.entries(entries)) buckets[key] = new Bucket(key, inputs, ctx.optsOf(key));
  return { buckets };
}
