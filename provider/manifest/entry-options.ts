import type { z } from "zod";
import { isRecord } from "../../keboola/json";
import { entryOptionsSchema } from "../lifecycle/manifest-section";

export { entryOptionsSchema };

// `options:` of a manifest entry: Pulumi's resource options by Pulumi YAML's names
// (pulumi.com/docs/iac/languages-sdks/yaml/yaml-language-reference, "Resource options"), for one
// entry at a time: a production configuration protected, a table kept in Keboola when its entry
// goes, a property the UI owns ignored. The entry's resources (a source or sink and its
// settings) all get them; deploy.ts turns them into each resource's CustomResourceOptions.

/**
 * The fields of an entry that name another entry, by section, and the input of the resource they
 * become (its id input): what ignoreChanges paths (deploy.ts) and drift's changes (drift/manifest-facts.ts)
 * are translated through, one way and the other.
 */
export const REFERENCE_INPUTS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  sinks: { source: "sourceId" },
  tables: { bucket: "bucketId" },
  jobs: { configuration: "configId" },
};

export type EntryOptions = z.output<typeof entryOptionsSchema>;

/** The entries' options by `section/key`, and the manifest without them (what the kinds' declarations read). */
export function splitOptions<M extends Record<string, unknown>>(manifest: M): { manifest: M; options: Map<string, EntryOptions> } {
  const options = new Map<string, EntryOptions>();
  const out: Record<string, unknown> = {};
  for (const [section, entries] of Object.entries(manifest)) {
    if (section === "config" || !isRecord(entries)) {
      out[section] = entries;
      continue;
    }
    out[section] = Object.fromEntries(
      Object.entries(entries).map(([key, entry]) => {
        if (!isRecord(entry) || !("options" in entry)) return [key, entry];
        const { options: mine, ...rest } = entry;
        const parsed = entryOptionsSchema.safeParse(mine);
        if (parsed.success) options.set(`${section}/${key}`, parsed.data);
        return [key, rest];
      }),
    );
  }
  // The same sections and entries, each entry less its `options` (which M's entry types do not name).
  return { manifest: out as M, options };
}

/** Every entry's key by section, for dependsOn: `key` alone when it is unique across sections, else `section.key`. */
export function entryKeys(manifest: Record<string, unknown>): Map<string, string> {
  const keys = new Map<string, string>();
  const seen = new Map<string, number>();
  for (const [section, entries] of Object.entries(manifest)) {
    if (section === "config" || !isRecord(entries)) continue;
    for (const key of Object.keys(entries)) seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  for (const [section, entries] of Object.entries(manifest)) {
    if (section === "config" || !isRecord(entries)) continue;
    for (const key of Object.keys(entries)) {
      keys.set(`${section}.${key}`, `${section}/${key}`);
      if (seen.get(key) === 1) keys.set(key, `${section}/${key}`);
    }
  }
  return keys;
}

/** A dependsOn circle among the entries (`section/key` names), or undefined. */
export function dependsOnCircle(edges: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (n: string): string[] | undefined => {
    if (state.get(n) === "done") return undefined;
    if (state.get(n) === "open") return [...stack.slice(stack.indexOf(n)), n];
    state.set(n, "open");
    stack.push(n);
    for (const m of edges.get(n) ?? []) {
      const circle = visit(m);
      if (circle) return circle;
    }
    stack.pop();
    state.set(n, "done");
    return undefined;
  };
  for (const n of edges.keys()) {
    const circle = visit(n);
    if (circle) return circle;
  }
  return undefined;
}
