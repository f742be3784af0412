import type { DeployContext } from "../../program/manifest-context";
import type { SourceEntry } from "./manifest";
import { Source } from "./resource";
import { SourceSettings } from "../settings/resource";

/** The `sources` of a manifest: a Source each, and its SourceSettings (`<key>-settings`) when it has settings. */
export function declareSources(entries: Record<string, SourceEntry>, ctx: DeployContext) {
  const sources: Record<string, Source> = {};
  const sourceSettings: Record<string, SourceSettings> = {};
  for (const [key, { settings, ...inputs }] of Object.entries(entries)) {
    if (ctx.leftOut.sources?.includes(key)) continue;
    const source = new Source(key, inputs, ctx.optsOf(key));
    sources[key] = source;
    if (settings) sourceSettings[key] = new SourceSettings(`${key}-settings`, { branchId: inputs.branchId, sourceId: source.sourceId, ...settings }, ctx.optsOf(key, "settings"));
  }
  return { sources, sourceSettings };
}
