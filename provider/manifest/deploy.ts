import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { Source } from "../kinds/source/resource";
import { Sink } from "../kinds/sink/resource";
import { SourceSettings } from "../kinds/settings/resource";
import { SinkSettings } from "../kinds/settings/resource";
import { VariableConfig } from "../kinds/variable-config/resource";
import { ComponentConfig } from "../kinds/component-config/resource";
import { JobRun } from "../kinds/job-run/resource";
import { Flow } from "../kinds/flow/resource";
import { Schedule } from "../kinds/schedule/resource";
import { Bucket } from "../kinds/bucket/resource";
import { Table } from "../kinds/table/resource";
import { loadManifest } from "./parse";
import { stackBranchName } from "../kinds/branch/resource";
import type { Manifest } from "./schema";

// keboola.yaml -> the same resource classes a TypeScript program uses, named by their manifest
// keys (settings as `<key>-settings`). The manifest is read and checked completely first, so a
// bad manifest registers no resource at all.

export interface DeployedManifest {
  buckets: Record<string, Bucket>;
  tables: Record<string, Table>;
  sources: Record<string, Source>;
  sourceSettings: Record<string, SourceSettings>;
  sinks: Record<string, Sink>;
  sinkSettings: Record<string, SinkSettings>;
  variables: Record<string, VariableConfig>;
  configurations: Record<string, ComponentConfig>;
  jobs: Record<string, JobRun>;
  flows: Record<string, Flow>;
  schedules: Record<string, Schedule>;
}

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
  const opts = options.resourceOptions;
  const out: DeployedManifest = { buckets: {}, tables: {}, sources: {}, sourceSettings: {}, sinks: {}, sinkSettings: {}, variables: {}, configurations: {}, jobs: {}, flows: {}, schedules: {} };

  // Buckets and tables first: a sink writing a declared table is checked against it and depends on it.
  for (const [key, inputs] of Object.entries(m.buckets ?? {})) {
    out.buckets[key] = new Bucket(key, inputs, opts);
  }
  for (const [key, { bucket, data, ...inputs }] of Object.entries(m.tables ?? {})) {
    const b = out.buckets[bucket];
    const table = { ...inputs, branchId: m.buckets![bucket].branchId, bucketId: b.bucketId, ...(data !== undefined ? { data: dataRelativeToProgram(data, options.baseDir) } : {}) };
    out.tables[key] = new Table(key, table, opts);
  }
  // A stack in a development branch (keboola:branch) leaves out what such a branch cannot hold.
  const left = leftOutOfBranch(m);
  for (const [key, { settings, ...inputs }] of Object.entries(m.sources ?? {})) {
    if (left.sources.includes(key)) continue;
    const source = new Source(key, inputs, opts);
    out.sources[key] = source;
    if (settings) out.sourceSettings[key] = new SourceSettings(`${key}-settings`, { branchId: inputs.branchId, sourceId: source.sourceId, ...settings }, opts);
  }
  for (const [key, { source: sourceKey, settings, ...inputs }] of Object.entries(m.sinks ?? {})) {
    if (left.sources.includes(sourceKey)) continue;
    const source = out.sources[sourceKey];
    const branchId = m.sources![sourceKey].branchId;
    const sink = new Sink(key, { ...inputs, branchId, sourceId: source.sourceId }, opts);
    out.sinks[key] = sink;
    if (settings) out.sinkSettings[key] = new SinkSettings(`${key}-settings`, { branchId, sourceId: source.sourceId, sinkId: sink.sinkId, ...settings }, opts);
  }
  for (const [key, inputs] of Object.entries(m.variables ?? {})) {
    out.variables[key] = new VariableConfig(key, inputs, opts);
  }
  for (const [key, { variables, secrets, configuration, rows: manifestRows, ...inputs }] of Object.entries(m.configurations ?? {})) {
    const withSecrets = secretValues(secrets ?? {});
    // A row's `variables` names an entry of variables: the row is bound to it as the configuration is.
    const rows = manifestRows.map(({ variables: rowVariables, ...r }) => ({ ...r, ...(rowVariables ? { variables: out.variables[rowVariables].binding() } : {}) }));
    out.configurations[key] = new ComponentConfig(
      key,
      {
        ...inputs,
        configuration: withSecrets ? withSecrets("configuration", configuration) : configuration,
        rows: withSecrets ? rows.map((r, i) => ({ ...r, configuration: withSecrets(`rows.${i}.configuration`, r.configuration) })) : rows,
        ...(variables ? { variables: out.variables[variables].binding() } : {}),
      },
      opts,
    );
  }
  for (const [key, { configuration, ...inputs }] of Object.entries(m.jobs ?? {})) {
    const entry = m.configurations![configuration];
    const configId = out.configurations[configuration].configId;
    out.jobs[key] = new JobRun(key, { ...inputs, branchId: entry.branchId, componentId: entry.componentId, configId }, opts);
  }
  for (const [key, { phases, ...inputs }] of Object.entries(m.flows ?? {})) {
    // A task's `configuration` names an entry of configurations: its component and configId output.
    const declared = phases.map(({ tasks, ...phase }) => ({
      ...phase,
      tasks: tasks.map(({ configuration, componentId, configId, ...task }) =>
        configuration !== undefined
          ? { ...task, componentId: m.configurations![configuration].componentId, configId: out.configurations[configuration].configId }
          : { ...task, componentId: componentId!, configId: configId! },
      ),
    }));
    out.flows[key] = new Flow(key, { ...inputs, phases: declared }, opts);
  }
  for (const [key, { flow, configuration, variableValuesData, variableValuesId, ...inputs }] of Object.entries(m.schedules ?? {})) {
    if (left.schedules.includes(key)) continue;
    const runs = flow !== undefined ? out.flows[flow].target() : { componentId: m.configurations![configuration!].componentId, configId: out.configurations[configuration!].configId };
    const values = { ...(variableValuesData !== undefined ? { variableValuesData } : {}), ...(variableValuesId !== undefined ? { variableValuesId } : {}) };
    out.schedules[key] = new Schedule(key, { ...inputs, name: inputs.name ?? key, target: { ...runs, ...values } }, opts);
  }
  return out;
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

/**
 * A table's data path is relative to the manifest; the provider resolves it against the program's
 * directory, so it is rewritten relative to that (state keeps no machine's absolute path).
 */
function dataRelativeToProgram<T>(data: T, baseDir: string | undefined): T | string {
  if (typeof data !== "string" || !baseDir || path.isAbsolute(data)) return data;
  let root: string;
  try {
    root = pulumi.runtime.getRootDirectory();
  } catch {
    root = process.cwd();
  }
  return path.relative(root, path.resolve(baseDir, data)).split(path.sep).join("/");
}

/**
 * `secrets: {path: configKey}` -> a function putting the stack config secrets into one object
 * (`configuration` or `rows.<i>.configuration`); undefined when there are none. Each secret is
 * placed as an Output at its own path, so Pulumi keeps only that value secret (as in a program
 * passing `config.requireSecret(...)` inside an object literal): `pulumi preview --diff` and
 * `--json` show the rest of the configuration and its changes instead of one `[secret]` (an
 * array holding a secret, such as `rows` with a row's secret, stays secret whole: Pulumi's engine
 * carries secretness into objects only).
 */
function secretValues(secrets: Record<string, string>): ((prefix: string, value: Record<string, unknown>) => pulumi.Input<Record<string, unknown>>) | undefined {
  const entries = Object.entries(secrets);
  if (entries.length === 0) return undefined;
  return (prefix, value) => {
    const mine = entries.filter(([p]) => p.startsWith(`${prefix}.`));
    if (mine.length === 0) return value;
    const copy = structuredClone(value);
    for (const [p, key] of mine) {
      const [ns, name] = key.includes(":") ? [key.slice(0, key.indexOf(":")), key.slice(key.indexOf(":") + 1)] : [undefined, key];
      setPath(copy, p.slice(prefix.length + 1).split("."), new pulumi.Config(ns).requireSecret(name));
    }
    return copy;
  };
}

/** Sets the value at a dotted path, stepping into objects by key and arrays by index (`a["0"]`), creating objects where none is. */
function setPath(obj: Record<string, unknown>, keys: string[], value: unknown): void {
  let o: object = obj;
  for (const k of keys.slice(0, -1)) {
    const next: unknown = Reflect.get(o, k);
    if (next && typeof next === "object") o = next;
    else {
      const created = {};
      Reflect.set(o, k, created);
      o = created;
    }
  }
  Reflect.set(o, keys[keys.length - 1], value);
}
