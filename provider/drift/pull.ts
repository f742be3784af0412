import { parseDocument, type Document } from "yaml";
import { isRecord, type JsonValue } from "../../keboola/json";
import { FLOW_COMPONENT_ID } from "../../keboola/flow";
import type { ResourceKind } from "../kinds/registry";
import { formatPath, showValue } from "../review/values";
import { manifestDefaultAt, parseManifest, ManifestError } from "../manifest/parse";
import type { ResourceDrift } from "./compare";
import type { NewEntry } from "./new-objects";
import type { ManagedResource } from "./stack";
import { printEdited, setValue, valueAt } from "./yaml-edit";
import { configHint, fileHint, fileOf, ignoredBy, locationOf, manifestPathOf, originOf, type Location, type ManifestFacts } from "./manifest-facts";
import { escapeTemplates } from "../manifest/config-values";

// `pull`: the drift written back into keboola.yaml, entry by entry, so that the manifest declares
// what Keboola holds. Only the top-level properties that drifted are touched, and within them
// only what differs (yaml-edit.ts). What the manifest writes differently from the resource's
// inputs is kept the manifest's way: references stay references (a sink's `source`, a table's
// `bucket`, a configuration's or row's `variables`, a flow task's `configuration`, a schedule's
// `flow`), a `#` value declared through `secrets:` stays there (only its ciphertext can be read,
// so the note says which stack config key to set), and ids and branches are never rewritten.

export interface PullOptions {
  /** Remove the entries of objects deleted in Keboola (otherwise the next `up` creates them again). */
  includeDeleted: boolean;
  /** Entries of objects made in the UI, to add (`--include-new`, new-objects.ts). */
  additions?: readonly NewEntry[];
  /** The manifest's `${name}` values and entries' options, as drift read them (manifest-facts.ts). */
  facts?: ManifestFacts;
}

export interface PullResult {
  text: string;
  /** The resources whose state the pull brings up to Keboola (`pulumi refresh --target`). */
  pulled: ManagedResource[];
  notes: string[];
}

/** Properties of a kind that the manifest does not write in the entry (ids, branch, references). */
const NOT_WRITTEN: Partial<Record<ResourceKind, readonly string[]>> = {
  source: ["branchId", "sourceId"],
  sink: ["branchId", "sourceId", "sinkId"],
  sourceSettings: ["branchId", "sourceId", "sinkId"],
  sinkSettings: ["branchId", "sourceId", "sinkId"],
  table: ["branchId", "bucketId", "name", "data", "dataContent"],
  bucket: ["branchId", "stage", "name"],
  variableConfig: ["branchId", "configId"],
  componentConfig: ["branchId", "componentId", "configId", "variables"],
  flow: ["branchId", "configId"],
  schedule: ["configId"],
};

interface Context {
  doc: Document;
  facts?: ManifestFacts;
  /** `componentId/configId` -> the key of the configurations (or flows) entry declaring it. */
  configKeys: Map<string, string>;
  flowKeys: Map<string, string>;
  notes: string[];
}

export function pullManifest(text: string, file: string, drift: readonly ResourceDrift[], resources: readonly ManagedResource[], options: PullOptions): PullResult {
  const doc = parseDocument(text);
  const ctx: Context = { doc, configKeys: new Map(), flowKeys: new Map(), notes: [], ...(options.facts ? { facts: options.facts } : {}) };
  for (const r of resources) {
    const id = (k: string) => (typeof r.outputs[k] === "string" ? String(r.outputs[k]) : undefined);
    if (r.kind === "componentConfig" && id("componentId") && id("configId")) ctx.configKeys.set(`${id("componentId")}/${id("configId")}`, r.name);
    if (r.kind === "flow" && id("configId")) ctx.flowKeys.set(`${FLOW_COMPONENT_ID}/${id("configId")}`, r.name);
  }
  const pulled: ManagedResource[] = [];
  for (const d of drift) {
    if (d.status !== "changed" && d.status !== "deleted") continue;
    const at = locationOf(d.resource);
    if (!at || !doc.hasIn([at.section, at.key])) {
      ctx.notes.push(`${d.resource.name}: not an entry of ${file} (${d.resource.urn}): left as it is`);
      continue;
    }
    pulled.push(d.resource);
    if (d.status === "deleted") {
      if (!options.includeDeleted) {
        ctx.notes.push(`${at.section}.${at.key}${at.settings ? ".settings" : ""}: deleted in Keboola; kept in ${file}, so the next \`pulumi up\` creates it again (--include-deleted removes it)`);
      } else if (!at.settings) {
        doc.deleteIn([at.section, at.key]);
        ctx.notes.push(`${at.section}.${at.key}: deleted in Keboola, removed from ${file}`);
      }
      continue;
    }
    writeEntry(ctx, d, at);
  }
  for (const a of options.additions ?? []) {
    setValue(doc, [a.section, a.key], a.entry, manifestDefaultAt);
    ctx.notes.push(`${a.section}.${a.key}: made in Keboola (${a.id}), added with adoptExisting: the next \`pulumi up\` takes it over and changes nothing in it`);
  }
  const out = printEdited(text, doc);
  // What pull writes must be a manifest deploy accepts: a removed entry still referenced fails here, and nothing is written.
  try {
    parseManifest(out, file, options.facts ? { stack: options.facts.values } : {});
  } catch (err) {
    if (err instanceof ManifestError) {
      throw new ManifestError(err.problems.map((p) => ({ ...p, message: `${p.message} (after pull: edit ${file} by hand, or pull without --include-deleted)` })));
    }
    throw err;
  }
  return { text: out, pulled, notes: ctx.notes };
}

function writeEntry(ctx: Context, d: ResourceDrift, at: Location): void {
  const r = d.resource;
  const live = d.found!.inputs;
  const base = [at.section, at.key, ...(at.settings ? ["settings"] : [])];
  const skipped = NOT_WRITTEN[r.kind] ?? [];
  const props = [...new Set(d.changes.map((c) => String(c.path[0])))].filter((p) => !skipped.includes(p));
  for (const prop of props) {
    const value = live[prop] as JsonValue | undefined;
    if (r.kind === "schedule" && prop === "target") {
      writeScheduleTarget(ctx, base, isRecord(value) ? value : {});
      continue;
    }
    if (r.kind === "schedule" && prop === "name" && valueAt(ctx.doc, [...base, "name"]) === undefined && value === at.key) continue;
    let next: unknown = value;
    if (r.kind === "componentConfig" && prop === "configuration") next = withoutDeclaredSecrets(ctx, d, base, "configuration", value);
    if (r.kind === "componentConfig" && prop === "rows") next = manifestRows(ctx, d, base, Array.isArray(value) ? value : []);
    if (r.kind === "flow" && prop === "phases") next = manifestPhases(ctx, Array.isArray(value) ? value : []);
    setValue(ctx.doc, [...base, prop], keepWritten(ctx, d, at, prop, escapeTemplates(next)), manifestDefaultAt);
  }
}

/**
 * What pull never writes over: a value the manifest takes from `${name}` (the note names the
 * stack config key to set instead) and a path its options.ignoreChanges leaves to Keboola. Each
 * is put back into the new value as the manifest writes it.
 */
function keepWritten(ctx: Context, d: ResourceDrift, at: Location, prop: string, next: unknown): unknown {
  const facts = ctx.facts;
  if (!facts) return next;
  const entryPath = [at.section, at.key, ...(at.settings ? ["settings"] : [])];
  const keep: Array<Array<string | number>> = [];
  for (const c of [...d.changes, ...(d.ignored ?? [])]) {
    if (String(c.path[0]) !== prop) continue;
    const p = manifestPathOf(facts, at, c.path);
    if (!p) continue;
    if (ignoredBy(facts, at, p)) {
      keep.push(p);
      continue;
    }
    const file = fileOf(facts, p);
    if (file) {
      keep.push(file.path);
      ctx.notes.push(`${p.join(".")}: changed in Keboola, and the manifest ${fileHint(file)}; pull leaves ${file.path.join(".")} and the file as they are`);
      continue;
    }
    const origin = originOf(facts, p);
    if (!origin) continue;
    keep.push(origin.path);
    ctx.notes.push(`${p.join(".")}: changed in Keboola, and the manifest takes it ${configHint(facts, origin)}; ${origin.path.join(".")} is left as it is`);
  }
  // Every `${name}` and file read under the property stays as written, changed or not (Keboola holds its value).
  const under = (p: ReadonlyArray<string | number>) => p.slice(0, entryPath.length + 1).join("\0") === [...entryPath, prop].join("\0");
  for (const o of [...facts.origins, ...facts.files]) if (under(o.path)) keep.push(o.path);
  if (keep.length === 0) return next;
  let out: unknown = structuredClone(next);
  // A path inside another kept one is kept with it (a `${name}` inside a file's code: the file's mapping is written back whole).
  const inside = (p: ReadonlyArray<string | number>, q: ReadonlyArray<string | number>) => q.length < p.length && q.every((s, i) => s === p[i]);
  for (const p of keep.filter((p) => !keep.some((q) => inside(p, q)))) {
    const rel = p.slice(entryPath.length + 1);
    const written = valueAt(ctx.doc, p);
    if (rel.length === 0) return written;
    out = withValueAt(out, rel, written);
  }
  return out;
}

/** A copy of `value` with `rel` set to `v` (objects and lists created along the way); `undefined` removes it. */
function withValueAt(value: unknown, rel: ReadonlyArray<string | number>, v: unknown): unknown {
  const [head, ...rest] = rel;
  const child = (c: unknown) => (rest.length ? withValueAt(c, rest, v) : v);
  if (typeof head === "number" && Array.isArray(value)) return value.map((item, i) => (i === head ? child(item) : item));
  const obj = isRecord(value) ? { ...value } : {};
  const next = child(obj[String(head)]);
  if (next === undefined) delete obj[String(head)];
  else obj[String(head)] = next;
  return obj;
}

/** A schedule's target is written flat (variableValuesData, variableValuesId) beside its `flow` or `configuration` reference. */
function writeScheduleTarget(ctx: Context, base: Array<string | number>, target: Record<string, unknown>): void {
  const ref = `${String(target.componentId)}/${String(target.configId)}`;
  const flow = ctx.flowKeys.get(ref);
  const config = ctx.configKeys.get(ref);
  if (flow || config) {
    setValue(ctx.doc, [...base, "flow"], flow, manifestDefaultAt);
    setValue(ctx.doc, [...base, "configuration"], flow ? undefined : config, manifestDefaultAt);
  } else {
    ctx.notes.push(`${base.join(".")}: now runs ${ref}, which the manifest does not declare: left as it is (declare it, or change the schedule in Keboola)`);
  }
  setValue(ctx.doc, [...base, "variableValuesData"], target.variableValuesData, manifestDefaultAt);
  setValue(ctx.doc, [...base, "variableValuesId"], target.variableValuesId, manifestDefaultAt);
}

/** The entry's `secrets:` paths under a prefix (`configuration`, `rows.<i>.configuration`), relative to it, with their stack config keys. */
function declaredSecrets(ctx: Context, base: Array<string | number>, prefix: string): Array<{ path: string[]; key: string }> {
  const secrets = valueAt(ctx.doc, [...base, "secrets"]);
  if (!isRecord(secrets)) return [];
  return Object.entries(secrets)
    .filter(([p]) => p.startsWith(`${prefix}.`))
    .map(([p, key]) => ({ path: p.slice(prefix.length + 1).split("."), key: String(key) }));
}

const getPath = (v: unknown, path: readonly string[]): unknown => path.reduce<unknown>((o, k) => (isRecord(o) ? o[k] : undefined), v);

/**
 * A configuration document as the manifest writes it: the `#` values it takes from stack config
 * left out (the program puts them in); a changed one is noted with the key to set.
 */
function withoutDeclaredSecrets(ctx: Context, d: ResourceDrift, base: Array<string | number>, prefix: string, value: unknown, recordedDoc?: unknown): unknown {
  const declared = declaredSecrets(ctx, base, prefix);
  if (!isRecord(value) || declared.length === 0) return value;
  const copy = structuredClone(value);
  const recorded = recordedDoc ?? (prefix === "configuration" ? d.recorded.configuration : undefined);
  for (const { path, key } of declared) {
    const now = getPath(copy, path);
    if (recorded !== undefined && now !== getPath(recorded, path)) {
      ctx.notes.push(
        `${base.join(".")}.${prefix}.${path.join(".")}: changed in Keboola, and declared through stack config key ${key}: only its ciphertext can be read, so ${key} is left as it is; set the new value with \`pulumi config set --secret ${key} <value>\``,
      );
    }
    // Remove the leaf (and the objects it leaves empty) from the copy.
    const parents: Array<Record<string, unknown>> = [];
    let o: unknown = copy;
    for (const k of path.slice(0, -1)) {
      if (!isRecord(o)) break;
      parents.push(o);
      o = o[k];
    }
    if (isRecord(o)) delete o[path[path.length - 1]];
    for (let i = parents.length - 1; i >= 0; i--) {
      const child = parents[i][path[i]];
      if (isRecord(child) && Object.keys(child).length === 0) delete parents[i][path[i]];
    }
  }
  return copy;
}

/** Rows as the manifest writes them: a row's `variables` stays its reference; its declared secrets stay out. */
function manifestRows(ctx: Context, d: ResourceDrift, base: Array<string | number>, rows: unknown[]): unknown[] {
  const current = valueAt(ctx.doc, [...base, "rows"]);
  const declared = Array.isArray(current) ? current : [];
  const recordedRows = Array.isArray(d.recorded.rows) ? d.recorded.rows : [];
  const match = (row: Record<string, unknown>, list: unknown[]) =>
    list.findIndex((m) => isRecord(m) && ((typeof row.rowId === "string" && m.rowId === row.rowId) || (row.rowId === undefined && m.rowId === undefined && m.name === row.name)));
  return rows.map((row) => {
    if (!isRecord(row)) return row;
    const { variables: _binding, ...rest } = row;
    const i = match(row, declared);
    const mine = i >= 0 && isRecord(declared[i]) ? declared[i] : undefined;
    const recorded = recordedRows[match(row, recordedRows)];
    const configuration = i >= 0 ? withoutDeclaredSecrets(ctx, d, base, `rows.${i}.configuration`, rest.configuration, isRecord(recorded) ? recorded.configuration : undefined) : rest.configuration;
    return { ...rest, configuration, ...(mine && mine.variables !== undefined ? { variables: mine.variables } : {}) };
  });
}

/** Phases as the manifest writes them: a task runs a configuration by its key where the manifest declares it. */
function manifestPhases(ctx: Context, phases: unknown[]): unknown[] {
  return phases.map((phase) => {
    if (!isRecord(phase) || !Array.isArray(phase.tasks)) return phase;
    return {
      ...phase,
      tasks: phase.tasks.map((task: unknown) => {
        if (!isRecord(task)) return task;
        const { componentId, configId, ...rest } = task;
        const key = ctx.configKeys.get(`${String(componentId)}/${String(configId)}`);
        return key ? { configuration: key, ...rest } : { componentId, configId, ...rest };
      }),
    };
  });
}

/** What a program's author changes, per drifted resource: the paths and Keboola's values (never a secret). */
export function changesForCode(drift: readonly ResourceDrift[]): string[] {
  const out: string[] = [];
  for (const d of drift) {
    if (d.status === "deleted") out.push(`${d.resource.name} (${d.resource.urn}): deleted in Keboola; remove it from the program, or run \`pulumi up\` to create it again`);
    if (d.status !== "changed") continue;
    out.push(`${d.resource.name} (${d.resource.urn}):`);
    for (const c of d.changes) {
      const p = formatPath(c.path);
      if (c.kind === "secret") out.push(`  ${p}: a secret changed in Keboola (not shown): set it anew in the program's config`);
      else if (c.kind === "changed") out.push(`  ${p}: ${showValue(c.after, c.path)} (was ${showValue(c.before, c.path)})`);
      else if (c.kind === "added") out.push(`  ${p}: ${showValue(c.after, c.path)} (added)`);
      else out.push(`  ${p}: remove it (was ${showValue(c.before, c.path)})`);
    }
  }
  return out;
}
