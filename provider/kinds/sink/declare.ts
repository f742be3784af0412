import type { DeployContext } from "../../program/manifest-context";
import type { SinkEntry } from "./manifest";
import type * as pulumi from "@pulumi/pulumi";
import { Sink } from "./resource";
import { SinkSettings } from "../settings/resource";

/** The `sinks` of a manifest: a Sink each in its source's branch, and its SinkSettings (`<key>-settings`) when it has settings. */
export function declareSinks(entries: Record<string, SinkEntry>, ctx: DeployContext<{ sources?: Record<string, { branchId?: string }> }, { sources: Record<string, { sourceId: pulumi.Output<string> }> }>) {
  const sinks: Record<string, Sink> = {};
  const sinkSettings: Record<string, SinkSettings> = {};
  for (const [key, { source: sourceKey, settings, ...inputs }] of Object.entries(entries)) {
    const source = ctx.declared.sources[sourceKey];
    if (!source) continue; // its source is left out of a development branch (deploy.ts)
    const branchId = ctx.manifest.sources?.[sourceKey]?.branchId;
    const sink = new Sink(key, { ...inputs, branchId, sourceId: source.sourceId }, ctx.optsOf(key));
    sinks[key] = sink;
    if (settings) sinkSettings[key] = new SinkSettings(`${key}-settings`, { branchId, sourceId: source.sourceId, sinkId: sink.sinkId, ...settings }, ctx.optsOf(key, "settings"));
  }
  return { sinks, sinkSettings };
}
