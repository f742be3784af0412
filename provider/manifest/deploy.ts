import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { loadManifest } from "./parse";
import { stackBranchName } from "../kinds/branch/resource";
import type { Manifest } from "./schema";
import { declareSections } from "./declare-sections";
import { programStackValues } from "../program/stack-values";
import { REFERENCE_INPUTS, splitOptions, type EntryOptions } from "./entry-options";

// keboola.yaml -> the same resource classes a TypeScript program uses, named by their manifest
// keys (settings as `<key>-settings`), each section declared by its kind (declare-sections.ts). The
// manifest is read and checked completely first, so a bad manifest registers no resource at all.

/** The resources a manifest declared, by section (and `sourceSettings`, `sinkSettings`). */
export type DeployedManifest = ReturnType<typeof declareSections>;

export interface DeployOptions {
  /** Options for every resource (e.g. a parent component or a provider-independent `protect`). */
  resourceOptions?: pulumi.CustomResourceOptions;
  /** The directory a table's `data` path is relative to (deployManifest: the manifest's). */
  baseDir?: string;
}

/** Reads the manifest at `file` and declares its resources in the running Pulumi program. */
export function deployManifest(file: string, options: DeployOptions = {}): DeployedManifest {
  return declareManifest(loadManifest(path.resolve(file), { stack: programStackValues() }), { baseDir: path.dirname(path.resolve(file)), ...options });
}

/** Declares the resources of an already parsed manifest. */
export function declareManifest(parsed: Manifest, options: DeployOptions = {}): DeployedManifest {
  const { manifest: m, options: entryOptions } = splitOptions(parsed);
  // dependsOn may name an entry of a later section: the engine awaits the list, which is known
  // once every section is declared (parse.ts refused circles, so it always resolves).
  let resolveDeclared!: (d: DeployedManifest) => void;
  const whenDeclared = new Promise<DeployedManifest>((resolve) => (resolveDeclared = resolve));
  const optsOf = (section: string, key: string, part?: "settings") => entryResourceOptions(options.resourceOptions, entryOptions.get(`${section}/${key}`), section, part, whenDeclared);
  // A stack in a development branch (keboola:branch) leaves out what such a branch cannot hold.
  const deployed = declareSections(m, { optsOf, baseDir: options.baseDir, leftOut: leftOutOfBranch(m) });
  resolveDeclared(deployed);
  return deployed;
}

/**
 * A manifest property path as the path of the resource's inputs it is written to (what
 * ignoreChanges names): references name their resource's id input, a schedule's flat target
 * fields live in `target`, a source's or sink's `settings` in its settings resource.
 */
function inputPath(section: string, part: "settings" | undefined, path: string): string | undefined {
  const [head, ...rest] = path.split(".");
  if (section === "sources" || section === "sinks") {
    if ((head === "settings") !== (part === "settings")) return undefined;
    if (part === "settings") return rest.join(".") || undefined;
  }
  const renamed: Record<string, Readonly<Record<string, string>>> = {
    ...REFERENCE_INPUTS,
    schedules: { flow: "target", configuration: "target", variableValuesData: "target.variableValuesData", variableValuesId: "target.variableValuesId" },
  };
  const to = renamed[section]?.[head];
  return to === undefined ? path : [to, ...rest].join(".");
}

/** DeployOptions.resourceOptions with an entry's own options for one of its resources. */
function entryResourceOptions(
  base: pulumi.CustomResourceOptions | undefined,
  own: EntryOptions | undefined,
  section: string,
  part: "settings" | undefined,
  declared: Promise<DeployedManifest>,
): pulumi.CustomResourceOptions | undefined {
  if (!own) return base;
  const ignore = (own.ignoreChanges ?? []).flatMap((p) => inputPath(section, part, p) ?? []);
  const opts: pulumi.CustomResourceOptions = { ...base };
  if (own.protect !== undefined) opts.protect = own.protect;
  if (own.retainOnDelete !== undefined) opts.retainOnDelete = own.retainOnDelete;
  if (own.deleteBeforeReplace !== undefined) opts.deleteBeforeReplace = own.deleteBeforeReplace;
  if (ignore.length) opts.ignoreChanges = [...(base?.ignoreChanges ?? []), ...ignore];
  if (own.dependsOn?.length) {
    const names = own.dependsOn;
    const before = dependencyList(base?.dependsOn);
    const after: Promise<pulumi.Input<pulumi.Resource>[]> = declared.then((d) => [...before, ...names.flatMap((n) => resourcesOf(d, n))]);
    opts.dependsOn = after;
  }
  return opts;
}

/** DeployOptions' own dependsOn as a list (a resource or a list of them; an Output of a list is not merged). */
function dependencyList(deps: pulumi.CustomResourceOptions["dependsOn"]): pulumi.Input<pulumi.Resource>[] {
  if (deps === undefined) return [];
  if (Array.isArray(deps)) return deps;
  return pulumi.Resource.isInstance(deps) ? [deps] : [];
}

/** The resources an entry named as dependsOn does (`key` or `section.key`) declared: its resource and its settings. */
function resourcesOf(d: DeployedManifest, name: string): pulumi.Resource[] {
  const dot = name.indexOf(".");
  const sections: Record<string, Record<string, pulumi.Resource>> = d;
  const [section, key] = dot > 0 && name.slice(0, dot) in sections ? [name.slice(0, dot), name.slice(dot + 1)] : [undefined, name];
  const settingsOf: Record<string, string> = { sources: "sourceSettings", sinks: "sinkSettings" };
  return Object.entries(sections)
    .filter(([s]) => (section === undefined ? !Object.values(settingsOf).includes(s) : s === section))
    .flatMap(([s, byKey]) => [byKey[key], sections[settingsOf[s] ?? ""]?.[key]])
    .filter((r): r is pulumi.Resource => r !== undefined);
}

/**
 * What a stack in a development branch (stack config keboola:branch) leaves out of the manifest,
 * with a warning saying so: the sources that name no branch, with their sinks and settings (the
 * Stream service serves only the default branch: keboola/keboola-as-code
 * internal/pkg/service/stream/dependencies/reqbranch.go), and every schedule (the Scheduler API
 * activates configurations of the default branch only). The production stack deploys them; a
 * program declaring them in such a stack is refused at preview instead (preflight.ts).
 */
function leftOutOfBranch(m: Manifest): { sources: string[]; schedules: string[] } {
  const branch = stackBranchName();
  if (branch === undefined) return { sources: [], schedules: [] };
  const sources = Object.entries(m.sources ?? {}).flatMap(([key, s]) => (s.branchId === undefined ? [key] : []));
  const sinks = Object.entries(m.sinks ?? {}).flatMap(([key, s]) => (sources.includes(s.source) ? [key] : []));
  const schedules = Object.keys(m.schedules ?? {});
  const parts = [
    ...(sources.length ? [`sources ${sources.join(", ")}${sinks.length ? ` with their sinks ${sinks.join(", ")}` : ""} and settings (the Stream service serves only the default branch)`] : []),
    ...(schedules.length ? [`schedules ${schedules.join(", ")} (the Scheduler runs only configurations of the default branch)`] : []),
  ];
  if (parts.length) {
    pulumi.log.warn(`keboola.yaml: this stack deploys into development branch "${branch}" (stack config keboola:branch), which cannot hold ${parts.join("; ")}: they are left out here and deployed by the production stack`);
  }
  return { sources, schedules };
}
