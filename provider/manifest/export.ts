import { Document } from "yaml";
import { escapeTemplates } from "./config-values";
import type { KeboolaClient } from "../api/client";
import type { Configuration, ConfigRow } from "../api/storage";
import type { StreamSink, StreamSource } from "../api/stream";
import { sinkFromRemote } from "../kinds/sink/kind";
import { bucketFromRemote } from "../kinds/bucket/kind";
import { tableFromRemote } from "../kinds/table/kind";
import { sourceFromRemote } from "../kinds/source/kind";
import { normalizeId } from "../validation/ids";
import { SETTINGS, sameSetting } from "../validation/settings";
import { normalizeConfig, tokenInfo } from "../lifecycle/configurations";
import { orderedRows } from "../kinds/component-config/rows";
import { VALUES_ROW_NAME, VARIABLES_COMPONENT } from "../lifecycle/configurations";
import { isEncrypted, isSecretKey, passesUnencrypted } from "../../keboola/secrets";
import { isRecord } from "../../keboola/json";
import { FLOW_COMPONENT_ID } from "../../keboola/flow";
import { phasesOf, storedConfiguration } from "../kinds/flow/kind";
import { scheduleFromConfiguration, schedulerConfiguration } from "../kinds/schedule/kind";
import { SCHEDULER_COMPONENT_ID } from "../../keboola/scheduler";
import { same } from "../lifecycle/common";

import type { ManifestInput } from "./schema";

// `keboola-pulumi export`: a live project -> keboola.yaml. Every entry carries its ids and
// `adoptExisting: true`, so deploying the manifest takes the objects over (writing only what
// differs, which is nothing right after the export) and the next preview shows no changes.
// Values of `#` keys (Keboola's secret fields) are written as Keboola holds them: ciphertexts
// (`KBC::ProjectSecure::...`), which only the stack's job runner can open, so they are safe to
// commit and deploy back as they are. A `#` value Keboola holds in plain text (written by someone
// without encrypting) is not written: it becomes a `secrets` entry naming a stack config key,
// listed in the notes, and deploying encrypts it. The output is deterministic (sorted
// by id, no timestamps), so exporting an unchanged project again gives the same text.

export interface ExportOptions {
  /** Branch: "default" or a numeric dev-branch id. */
  branch?: string;
  /**
   * Components whose configurations are exported (default: every component with configurations).
   * Variables configurations come with the configurations (or rows) bound to them; naming
   * keboola.variables here exports all of them.
   */
  components?: string[];
  /** The `$schema` the YAML language server comment points at. */
  schema?: string;
  /** Items per page of the Stream lists (1-100, default 100). */
  pageSize?: number;
  /** Write `options: { protect: true }` on every entry (adopting a production project: nothing is deleted until unprotected). */
  protect?: boolean;
}

export interface ExportResult {
  /** The entries as Keboola holds them (the YAML writes a `${` of theirs as `$${`, and adds `options` with --protect). */
  manifest: ManifestInput;
  /** The manifest as YAML, with a header saying what the export did. */
  yaml: string;
  /** What the user must do or know (secrets to set, what was left out). */
  notes: string[];
  /** The exported project (the token's, `tokens/verify` owner): the id a stack deploying the manifest is guarded to. */
  project: { id: number; name: string };
}

type Entries<K extends keyof ManifestInput> = NonNullable<ManifestInput[K]>;
type ConfigurationEntry = Entries<"configurations">[string];

/**
 * Every item of a Stream list, page by page: `afterId` = the previous page's `page.lastId`, at
 * most 100 items a page (keboola/keboola-as-code api/stream/design.go: PaginatedRequest,
 * PaginatedResponse).
 */
async function allPages<T>(fetchPage: (afterId?: string) => Promise<{ items: T[]; lastId?: string }>): Promise<T[]> {
  const out: T[] = [];
  let afterId: string | undefined;
  for (;;) {
    const { items, lastId } = await fetchPage(afterId);
    out.push(...items);
    if (items.length === 0 || !lastId || lastId === afterId) return out;
    afterId = lastId;
  }
}

/** Settings that differ from the service defaults, in the shape of the settings inputs. */
async function changedSettings(client: KeboolaClient, branch: string, sourceId: string, sinkId?: string): Promise<Record<string, unknown> | undefined> {
  const remote = (await (await client.stream()).getSettings(branch, sourceId, sinkId)).settings;
  const out: Record<string, unknown> = {};
  for (const def of SETTINGS) {
    const r = remote.find((s) => s.key === def.key);
    if (!r || sameSetting(def, r.value, def.defaultValue)) continue;
    const [head, tail] = def.input.split(".");
    const group = out[head];
    if (tail === undefined) out[head] = r.value;
    else out[head] = { ...(isRecord(group) ? group : {}), [tail]: r.value };
  }
  return Object.keys(out).length ? out : undefined;
}

/** A key for `name` not in `taken` (the name normalized, then with the id appended). */
function uniqueKey(name: string, id: string, taken: Set<string>): string {
  const base = normalizeId(name) || normalizeId(id) || id;
  const key = taken.has(base) ? `${base}-${normalizeId(id) || id}` : base;
  taken.add(key);
  return key;
}

/** Removes `#` keys holding plain text from a configuration object (ciphertexts stay); returns their paths. */
function withoutSecrets(value: Record<string, unknown>, prefix: string): { clean: Record<string, unknown>; paths: string[] } {
  const paths: string[] = [];
  const walkObject = (o: Record<string, unknown>, path: string): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [k, item] of Object.entries(o)) {
      const sealed = typeof item === "string" && (isEncrypted(item) || passesUnencrypted(item));
      if (isSecretKey(k) && typeof item === "string" && !sealed) paths.push(`${path}.${k}`);
      else out[k] = walk(item, `${path}.${k}`);
    }
    return out;
  };
  const walk = (v: unknown, path: string): unknown => {
    if (Array.isArray(v)) return v.map((item, i) => walk(item, `${path}.${i}`));
    return isRecord(v) ? walkObject(v, path) : v;
  };
  return { clean: walkObject(value, prefix), paths };
}

/** `value[key]` of an object; undefined for anything else. */
const field = (value: unknown, key: string): unknown => (isRecord(value) ? value[key] : undefined);

function valuesRowOf(c: Configuration): ConfigRow | undefined {
  return c.rows.find((r) => r.name === VALUES_ROW_NAME) ?? (c.rows.length === 1 ? c.rows[0] : undefined);
}

export async function exportProject(client: KeboolaClient, options: ExportOptions = {}): Promise<ExportResult> {
  const branch = options.branch ?? "default";
  const branchField: { branchId?: string } = branch === "default" ? {} : { branchId: branch };
  const notes: string[] = [];
  const manifest: ManifestInput = {};
  // Whose project this is: the header names it, with the line that guards a stack to it.
  const { owner } = await tokenInfo(client);
  const project = { id: Number(owner.id), name: String(owner.name).replace(/\s+/g, " ") };
  const stream = await client.stream();

  // Storage: buckets and their tables, as schemas (columns, primary key, typed definition), never
  // their data: rows are the project's content, not its configuration.
  const bucketKeys = new Set<string>();
  const tableKeys = new Set<string>();
  let tableCount = 0;
  for (const b of (await client.storage.listBuckets(branch)).sort((x, y) => (x.id < y.id ? -1 : 1))) {
    const declared = bucketFromRemote(b);
    const key = uniqueKey(declared.name, b.id, bucketKeys);
    (manifest.buckets ??= {})[key] = {
      ...branchField,
      stage: declared.stage,
      name: declared.name,
      ...(declared.description ? { description: declared.description } : {}),
      ...(declared.displayName ? { displayName: declared.displayName } : {}),
      adoptExisting: true,
    };
    for (const listed of ((await client.storage.listBucketTables(branch, b.id)) ?? []).sort((x, y) => (x.id < y.id ? -1 : 1))) {
      // The detail carries a typed table's definition.
      const t = (await client.storage.findTableDetail(branch, listed.id)) ?? listed;
      const { name, columns, primaryKey, definition } = tableFromRemote(t);
      (manifest.tables ??= {})[uniqueKey(name, t.id, tableKeys)] = {
        bucket: key,
        name,
        columns,
        ...(primaryKey.length ? { primaryKey } : {}),
        ...(definition ? { definition } : {}),
        adoptExisting: true,
      };
      tableCount++;
    }
  }
  if (tableCount) notes.push(`${tableCount} table(s) exported as schemas only: their rows are not written; declare \`data\` (a CSV path) on a table to manage its rows`);

  // Stream: sources, their sinks, settings that differ from the defaults.
  const sources = await allPages<StreamSource>(async (afterId) => {
    const page = await stream.listSources(branch, afterId, options.pageSize);
    return { items: page.sources, lastId: page.page.lastId };
  });
  const sinkKeys = new Set<string>();
  for (const s of sources.sort((a, b) => (a.sourceId < b.sourceId ? -1 : 1))) {
    const settings = await changedSettings(client, branch, s.sourceId);
    const declared = sourceFromRemote(s);
    (manifest.sources ??= {})[s.sourceId] = {
      ...branchField,
      sourceId: declared.sourceId,
      name: declared.name,
      ...(declared.description ? { description: declared.description } : {}),
      ...(declared.type !== "http" ? { type: declared.type } : {}),
      ...(declared.enabled ? {} : { enabled: false }),
      adoptExisting: true,
      ...(settings ? { settings } : {}),
    };
    const sinks = await allPages<StreamSink>(async (afterId) => {
      const page = await stream.listSinks(branch, s.sourceId, afterId, options.pageSize);
      return { items: page.sinks, lastId: page.page.lastId };
    });
    for (const k of sinks.sort((a, b) => (a.sinkId < b.sinkId ? -1 : 1))) {
      if (!k.table) {
        notes.push(`sink ${s.sourceId}/${k.sinkId} has no table mapping and was left out`);
        continue;
      }
      const key = sinkKeys.has(k.sinkId) ? `${s.sourceId}-${k.sinkId}` : k.sinkId;
      sinkKeys.add(key);
      const sinkSettings = await changedSettings(client, branch, s.sourceId, k.sinkId);
      // The declaration the Sink resource reads from the same object (its read and drift use it too).
      const { sourceId: _s, sinkId, name, description, tableId, columns, allowedSignals, enabled } = sinkFromRemote(k);
      (manifest.sinks ??= {})[key] = {
        source: s.sourceId,
        sinkId,
        name,
        ...(description ? { description } : {}),
        tableId,
        columns,
        ...(allowedSignals ? { allowedSignals } : {}),
        ...(enabled ? {} : { enabled: false }),
        adoptExisting: true,
        ...(sinkSettings ? { settings: sinkSettings } : {}),
      };
    }
  }

  // Configurations of the chosen components, and the variables they are bound to.
  const listed = (await client.storage.listComponents(branch)).map((c) => c.id);
  const components = (options.components ?? listed).filter((id) => id !== VARIABLES_COMPONENT).sort();
  const variableKeys = new Map<string, string>(); // variables configId -> manifest key
  const taken = { variables: new Set<string>(), configurations: new Set<string>(), flows: new Set<string>(), schedules: new Set<string>() };
  let secretCount = 0;
  const variableConfigs = new Map<string, Configuration | undefined>(); // variables_id -> the live configuration
  /**
   * The variables configuration a configuration or row names in `variables_id` is exported (once),
   * whatever its `variables_values_id`, so the export manages it. The configuration or row is
   * bound to it by key (its variables keys taken out) when it is bound as the manifest binds: with
   * the values row of the variables configuration, or with none when that has no values row.
   * Otherwise (another values row, a variables configuration in the trash) it keeps its keys as written.
   */
  const boundVariables = async (configuration: Record<string, unknown>): Promise<{ configuration: Record<string, unknown>; key?: string }> => {
    const vid = configuration.variables_id;
    if (vid === undefined || vid === null || vid === "") return { configuration };
    if (!variableConfigs.has(String(vid))) {
      const found = await client.storage.findConfig(branch, VARIABLES_COMPONENT, String(vid));
      if (!found || found.isDeleted) notes.push(`variables configuration ${String(vid)} (a variables_id) is missing or in the trash: the references to it are kept as written`);
      variableConfigs.set(String(vid), found && !found.isDeleted ? normalizeConfig(found) : undefined);
    }
    const vars = variableConfigs.get(String(vid));
    if (!vars) return { configuration };
    const key = variableKeys.get(vars.id) ?? exportVariables(manifest, vars, branchField, taken.variables);
    variableKeys.set(vars.id, key);
    if (String(configuration.variables_values_id ?? "") !== (valuesRowOf(vars)?.id ?? "")) return { configuration };
    const { variables_id: _v, variables_values_id: _w, ...rest } = configuration;
    return { configuration: rest, key };
  };
  // Flows and schedules name configurations by key: they are written after every configuration.
  const configKeys = new Map<string, string>(); // `<componentId>/<configId>` -> manifest key
  const later: { flows: Configuration[]; schedules: Configuration[] } = { flows: [], schedules: [] };
  for (const componentId of components) {
    const ids = listed.includes(componentId) ? (await client.storage.listConfigs(branch, componentId)).map((c) => String(c.id)) : [];
    if (ids.length === 0) notes.push(`component ${componentId} has no configurations in branch ${branch}`);
    for (const configId of ids.sort()) {
      const c = normalizeConfig(await client.storage.getConfig(branch, componentId, configId));
      if (componentId === FLOW_COMPONENT_ID && asFlow(c)) {
        later.flows.push(c);
        continue;
      }
      if (componentId === SCHEDULER_COMPONENT_ID && branch === "default" && asSchedule(c)) {
        later.schedules.push(c);
        continue;
      }
      const key = uniqueKey(c.name, c.id, taken.configurations);
      // The variables of the configuration and of each row: exported, and bound by key when bound
      // as the manifest binds (see boundVariables).
      const root = await boundVariables(c.configuration);
      const variables = root.key;
      const configuration = root.configuration;
      const boundRows = await Promise.all(orderedRows(c).map(async (r) => ({ row: r, ...(await boundVariables(r.configuration)) })));
      const secrets: Record<string, string> = {};
      const sealed = withoutSecrets(configuration, "configuration");
      const rows = boundRows.map(({ row: r, configuration: rowConfiguration, key: rowVariables }, i) => {
        const row = withoutSecrets(rowConfiguration, `rows.${i}.configuration`);
        sealed.paths.push(...row.paths);
        return {
          rowId: r.id,
          name: r.name,
          ...(r.description ? { description: r.description } : {}),
          ...(rowVariables ? { variables: rowVariables } : {}),
          configuration: row.clean,
          ...(r.isDisabled ? { isDisabled: true } : {}),
        };
      });
      for (const p of sealed.paths) {
        const configKey = `${key}-${p.split(".").pop()!.replace(/^#/, "")}`.replace(/[^A-Za-z0-9_-]/g, "-");
        let unique = configKey;
        for (let n = 2; Object.values(secrets).includes(unique); n++) unique = `${configKey}-${n}`;
        secrets[p] = unique;
        notes.push(`secret ${componentId}/${c.id} ${p} is plain text in Keboola (not encrypted), so it is not written: set it with \`pulumi config set --secret ${unique} <value>\`; deploying writes it encrypted`);
        secretCount++;
      }
      const entry: ConfigurationEntry = {
        ...branchField,
        componentId,
        configId: c.id,
        name: c.name,
        ...(c.description ? { description: c.description } : {}),
        ...(variables ? { variables } : {}),
        configuration: sealed.clean,
        ...(rows.length ? { rows } : {}),
        ...(c.isDisabled ? { isDisabled: true } : {}),
        ...(Object.keys(secrets).length ? { secrets } : {}),
        adoptExisting: true,
      };
      (manifest.configurations ??= {})[key] = entry;
      configKeys.set(`${componentId}/${c.id}`, key);
    }
  }
  const flowKeys = new Map<string, string>(); // flow configId -> manifest key
  for (const c of later.flows) {
    const key = uniqueKey(c.name, c.id, taken.flows);
    flowKeys.set(c.id, key);
    const phases = asFlow(c)!.map(({ tasks, ...phase }) => ({
      ...phase,
      tasks: tasks.map(({ componentId, configId, ...task }) => {
        const ref = configKeys.get(`${componentId}/${configId}`);
        return { ...(ref !== undefined ? { configuration: ref } : { componentId, configId }), ...task };
      }),
    }));
    (manifest.flows ??= {})[key] = {
      ...branchField,
      configId: c.id,
      name: c.name,
      ...(c.description ? { description: c.description } : {}),
      phases,
      ...(c.isDisabled ? { isDisabled: true } : {}),
      adoptExisting: true,
    };
  }
  for (const c of later.schedules) {
    const s = asSchedule(c)!;
    const flowKey = FLOW_COMPONENT_ID === s.target.componentId ? flowKeys.get(s.target.configId) : undefined;
    const configKey = configKeys.get(`${s.target.componentId}/${s.target.configId}`);
    if (flowKey === undefined && configKey === undefined) {
      notes.push(`schedule ${c.id} ("${c.name}") runs ${s.target.componentId}/${s.target.configId}, which is not exported: it was left out (export that component too)`);
      continue;
    }
    const key = uniqueKey(c.name, c.id, taken.schedules);
    (manifest.schedules ??= {})[key] = {
      configId: c.id,
      name: c.name,
      ...(c.description ? { description: c.description } : {}),
      ...(flowKey !== undefined ? { flow: flowKey } : { configuration: configKey }),
      cron: s.cron,
      timezone: s.timezone,
      ...(s.enabled ? {} : { enabled: false }),
      ...(s.target.variableValuesId !== undefined ? { variableValuesId: s.target.variableValuesId } : {}),
      ...(s.target.variableValuesData !== undefined ? { variableValuesData: s.target.variableValuesData } : {}),
      adoptExisting: true,
    };
  }
  // Asked for by name: every variables configuration, bound or not.
  if (options.components?.includes(VARIABLES_COMPONENT) && listed.includes(VARIABLES_COMPONENT)) {
    const ids = (await client.storage.listConfigs(branch, VARIABLES_COMPONENT)).map((c) => String(c.id)).sort();
    for (const id of ids.filter((i) => !variableKeys.has(i))) {
      variableKeys.set(id, exportVariables(manifest, normalizeConfig(await client.storage.getConfig(branch, VARIABLES_COMPONENT, id)), branchField, taken.variables));
    }
  }
  notes.push("job runs are not exported: a job is an event, not a state to take over");

  const header = [
    ` yaml-language-server: $schema=${options.schema ?? "node_modules/keboola-pulumi/keboola.schema.json"}`,
    "",
    ` Exported by keboola-pulumi export from project ${project.id} (${project.name}), branch ${branch}. Every entry has adoptExisting: true:`,
    " deploying it takes the existing objects over, writing only what differs.",
    ` Guard the stack that deploys it to this project (any other project's token is then refused before anything is read or written):`,
    `   pulumi config set keboola:projectId ${project.id}`,
    " Secrets: values of # keys are written as Keboola holds them, encrypted (KBC::...Secure::...):",
    " only this stack's job runner can decrypt them, so they are safe to commit and deploy back.",
    ...(secretCount
      ? [` ${secretCount} value(s) of # keys are plain text in Keboola and NOT written here; each is read from the stack config key named under \`secrets\` (pulumi config set --secret <key> <value>).`]
      : []),
  ];
  // A `${` Keboola holds is written `$${`, so the manifest does not read it as a config value.
  const written: Record<string, unknown> = {};
  for (const [section, entries] of Object.entries(manifest)) {
    written[section] = isRecord(entries)
      ? Object.fromEntries(Object.entries(entries).map(([key, entry]) => {
          const escaped = escapeTemplates(entry);
          return [key, { ...(isRecord(escaped) ? escaped : {}), ...(options.protect ? { options: { protect: true } } : {}) }];
        }))
      : entries;
  }
  if (options.protect) header.push(" Every entry is protected (options.protect): neither `pulumi destroy` nor removing an entry deletes the object; set protect: false on an entry to let it go.");
  const doc = new Document(written);
  doc.commentBefore = header.join("\n");
  return { manifest, yaml: doc.toString({ lineWidth: 0 }), notes, project };
}

/**
 * The phases of a flow configuration, when the Flow resource writes exactly that configuration for
 * them (else it is exported as a plain configuration, which deploys back unchanged).
 */
function asFlow(c: Configuration) {
  const phases = phasesOf(c.configuration);
  return phases && same(storedConfiguration(phases), c.configuration) ? phases : undefined;
}

/** The schedule a scheduler configuration holds, when the Schedule resource writes exactly that configuration for it. */
function asSchedule(c: Configuration) {
  const s = scheduleFromConfiguration(c.configuration);
  return s && same(schedulerConfiguration(s), c.configuration) ? s : undefined;
}

function exportVariables(manifest: ManifestInput, vars: Configuration, branchField: { branchId?: string }, taken: Set<string>): string {
  const key = uniqueKey(vars.name, vars.id, taken);
  const variables: unknown = vars.configuration.variables;
  const declared = Array.isArray(variables)
    ? variables.map((v: unknown) => ({ name: String(field(v, "name")), type: field(v, "type") === "int" ? ("int" as const) : ("string" as const) }))
    : [];
  const row = valuesRowOf(vars);
  const values: unknown = row?.configuration.values;
  const list: unknown[] | undefined = row && Array.isArray(values) ? values : undefined;
  const valueOf = (v: unknown): Array<[string, string]> => {
    const name = field(v, "name");
    return typeof name === "string" && declared.some((d) => d.name === name) ? [[name, String(field(v, "value") ?? "")]] : [];
  };
  const defaultValues = list ? Object.fromEntries(list.flatMap(valueOf)) : undefined;
  (manifest.variables ??= {})[key] = {
    ...branchField,
    configId: vars.id,
    name: vars.name,
    ...(vars.description ? { description: vars.description } : {}),
    variables: declared,
    ...(defaultValues ? { defaultValues } : {}),
    adoptExisting: true,
  };
  return key;
}
