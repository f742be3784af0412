import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { loadManifest } from "./parse";
import { stackBranchName } from "../kinds/branch/resource";
import type { Manifest } from "./schema";
import { declareSections } from "./declare-sections";

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
  return declareManifest(loadManifest(path.resolve(file)), { baseDir: path.dirname(path.resolve(file)), ...options });
}

/** Declares the resources of an already parsed manifest. */
export function declareManifest(m: Manifest, options: DeployOptions = {}): DeployedManifest {
  // A stack in a development branch (keboola:branch) leaves out what such a branch cannot hold.
  return declareSections(m, { opts: options.resourceOptions, baseDir: options.baseDir, leftOut: leftOutOfBranch(m) });
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
