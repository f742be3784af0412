import * as fs from "node:fs";
import * as path from "node:path";
import { parse as parseYaml } from "yaml";
import { isRecord } from "../../keboola/json";
import type { ResourceKind } from "../kinds/registry";
import type { StackValues, ValueOrigin } from "../manifest/config-values";
import { REFERENCE_INPUTS, type EntryOptions } from "../manifest/entry-options";
import { readManifest } from "../manifest/parse";
import type { Change } from "../review/diff";
import type { Path } from "../review/values";
import type { ResourceDrift } from "./compare";
import type { ManagedResource, StackSnapshot } from "./stack";

// What drift and pull need to know of the manifest a stack deploys, beyond the state: which values
// came from `${name}` (the change to make is a stack config value, not the manifest) and which
// paths an entry's `options.ignoreChanges` leaves to Keboola (listed apart, never pulled).

export interface ManifestFacts {
  /** The project namespace of the `${name}` values (Pulumi.yaml's name). */
  namespace: string;
  stack: string;
  /** Parsed entries, for turning a change's identity steps (`rows[<rowId>]`) into indexes. */
  entries: Record<string, Record<string, unknown>>;
  origins: ValueOrigin[];
  options: Map<string, EntryOptions>;
  /** The stack config the manifest was read with (pull checks what it writes with it). */
  values: StackValues;
  /** Where the manifest reads a value from a file (fn::readFile), and the file as messages name it. */
  files: Array<{ path: Array<string | number>; shown: string }>;
}

/** The section of keboola.yaml each kind's entries live in (deploy.ts names resources by key). */
export const SECTION_OF: Partial<Record<ResourceKind, string>> = {
  source: "sources",
  sink: "sinks",
  sourceSettings: "sources",
  sinkSettings: "sinks",
  variableConfig: "variables",
  componentConfig: "configurations",
  jobRun: "jobs",
  flow: "flows",
  schedule: "schedules",
  bucket: "buckets",
  table: "tables",
};

export type Location = { section: string; key: string; settings: boolean };

/** The entry a resource of the manifest program was declared by. */
export function locationOf(r: Pick<ManagedResource, "kind" | "name">): Location | undefined {
  const section = SECTION_OF[r.kind];
  if (!section) return undefined;
  const settings = r.kind === "sourceSettings" || r.kind === "sinkSettings";
  if (settings && !r.name.endsWith("-settings")) return undefined;
  return { section, key: settings ? r.name.slice(0, -"-settings".length) : r.name, settings };
}

/** Reads the manifest with the stack's config; undefined when it cannot be read (drift then reports without it). */
export function manifestFactsOf(file: string, cwd: string, snapshot: StackSnapshot): ManifestFacts | undefined {
  let namespace = "keboola";
  try {
    const project: unknown = parseYaml(fs.readFileSync(path.join(cwd, "Pulumi.yaml"), "utf8"));
    if (isRecord(project) && typeof project.name === "string") namespace = project.name;
  } catch {
    // the root project's name
  }
  const stack: StackValues = {
    namespace,
    get: (name) => {
      const value = snapshot.config[`${namespace}:${name}`];
      return value === undefined ? undefined : { value, secret: false };
    },
  };
  try {
    const read = readManifest(fs.readFileSync(file, "utf8"), path.relative(cwd, file) || file, { stack });
    const entries: Record<string, Record<string, unknown>> = {};
    for (const [section, value] of Object.entries(read.manifest)) if (section !== "config" && isRecord(value)) entries[section] = Object.fromEntries(Object.entries(value).filter((e): e is [string, Record<string, unknown>] => isRecord(e[1])));
    return { namespace, stack: snapshot.stack, entries, origins: read.origins, options: read.options, values: stack, files: read.files.map((f) => ({ path: [...f.path], shown: f.shown })) };
  } catch {
    return undefined;
  }
}

/** A resource's input path as the path of its manifest entry (the reverse of deploy.ts inputPath), identity steps as indexes. */
export function manifestPathOf(facts: ManifestFacts, at: Location, change: Path): Array<string | number> | undefined {
  const steps = [...change];
  const head = steps[0];
  if (at.section === "schedules" && head === "target") {
    const field = steps[1];
    if (field === "variableValuesData" || field === "variableValuesId") steps.splice(0, 1);
    else return undefined; // which configuration it runs: a reference, never a `${name}` nor an option path
  }
  const reference = Object.entries(REFERENCE_INPUTS[at.section] ?? {}).find(([, input]) => input === steps[0]);
  if (reference) steps[0] = reference[0];
  const out: Array<string | number> = [at.section, at.key, ...(at.settings ? ["settings"] : [])];
  let value: unknown = facts.entries[at.section]?.[at.key];
  if (at.settings) value = isRecord(value) ? value.settings : undefined;
  for (const step of steps) {
    if (typeof step === "object") {
      const list = Array.isArray(value) ? value : [];
      const i = list.findIndex((item: unknown) => isRecord(item) && (item.rowId === step.id || item.name === step.id));
      if (i < 0) return undefined;
      out.push(i);
      value = list[i];
    } else {
      out.push(step);
      value = Array.isArray(value) && typeof step === "number" ? value[step] : isRecord(value) ? value[String(step)] : undefined;
    }
  }
  return out;
}

const dotted = (p: ReadonlyArray<string | number>) => p.map((s) => (typeof s === "number" ? `[${s}]` : `.${s}`)).join("").replace(/^\./, "");

/** `a.b` covers `a.b`, `a.b.c` and `a.b[0]`, not `a.bc`. */
const covers = (outer: string, inner: string) => inner === outer || inner.startsWith(`${outer}.`) || inner.startsWith(`${outer}[`);

/** The ignoreChanges path of the entry covering a change, if any. */
export function ignoredBy(facts: ManifestFacts, at: Location, manifestPath: ReadonlyArray<string | number>): string | undefined {
  const own = facts.options.get(`${at.section}/${at.key}`)?.ignoreChanges ?? [];
  const relative = dotted(manifestPath.slice(2));
  return own.map((p) => p.replace(/\[\*\]/g, "")).find((p) => covers(p, relative));
}

/** The `${name}` values a change's manifest path holds (or lies inside). */
export function originOf(facts: ManifestFacts, manifestPath: ReadonlyArray<string | number>): ValueOrigin | undefined {
  const mine = dotted(manifestPath);
  return facts.origins.find((o) => covers(dotted(o.path), mine) || covers(mine, dotted(o.path)));
}

/** The file a change's manifest path is read from (fn::readFile), if any. */
export function fileOf(facts: ManifestFacts, manifestPath: ReadonlyArray<string | number>): { path: Array<string | number>; shown: string } | undefined {
  const mine = dotted(manifestPath);
  return facts.files.find((f) => covers(dotted(f.path), mine) || covers(mine, dotted(f.path)));
}

/** What a change of code read from a file asks for: the file to edit (pull does not write files). */
export const fileHint = (file: { shown: string }) => `read from ${file.shown} (fn::readFile): to keep Keboola's value, write it into that file`;

/** What a change of a value from `${name}` asks for: the stack config key to set (never the value of a secret). */
export function configHint(facts: ManifestFacts, origin: ValueOrigin): string {
  const keys = origin.names.map((n) => `${facts.namespace}:${n}`).join(", ");
  return origin.whole && origin.names.length === 1
    ? `from \${${origin.names[0]}}: to keep Keboola's value, pulumi config set ${origin.names[0]} <value> --stack ${facts.stack} (${keys})`
    : `built from ${origin.names.map((n) => `\${${n}}`).join(", ")}: to keep Keboola's value, change stack config ${keys} (pulumi config set <name> <value> --stack ${facts.stack})`;
}

/**
 * Each drifted resource of the manifest: its changes under an ignoreChanges path moved to
 * `ignored` (a resource with only those is not drifted), the others from `${name}` given the
 * stack config key to change.
 */
export function annotateDrift(resources: ResourceDrift[], facts: ManifestFacts): void {
  for (const d of resources) {
    const at = locationOf(d.resource);
    if (!at || d.status !== "changed") continue;
    const kept: Change[] = [];
    for (const c of d.changes) {
      const p = manifestPathOf(facts, at, c.path);
      if (p && ignoredBy(facts, at, p)) {
        (d.ignored ??= []).push(c);
        continue;
      }
      const file = p && fileOf(facts, p);
      const origin = p && originOf(facts, p);
      if (file) (d.fromConfig ??= {})[hintKey(c)] = fileHint(file);
      else if (origin) (d.fromConfig ??= {})[hintKey(c)] = configHint(facts, origin);
      kept.push(c);
    }
    d.changes = kept;
    if (kept.length === 0) d.status = "same";
  }
}

/** The key annotateDrift files a change's hint under. */
export const hintKey = (c: Change) => dotted(c.path.map((s) => (typeof s === "object" ? s.id : s)));
