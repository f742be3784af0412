import type { JsonValue } from "../../keboola/json";
import type { ResourceChange } from "./changes";
import { keboolaId } from "./kinds";
import { VARIABLES_COMPONENT } from "../../keboola/storage";
import { UNKNOWN } from "./values";

// Which resource refers to which: what a replacement's warning lists ("referenced by") and what the
// diagram draws. A reference is an input that names another object. Pulumi records it when the
// input was another resource's output (propertyDependencies, per input); an id written as a
// literal (`sourceId: "my-source"` in a program) is matched to the resource that has that id.
// A sink's table that no Table resource declares is a storage table of its own (`table:<id>`).

export interface Reference {
  /** URN of the resource whose input names the other. */
  from: string;
  /** URN of the resource named, or `table:<tableId>` for a storage table no resource declares. */
  to: string;
  /** The input naming it (`sourceId`, `phases`, `target`, ...). */
  input: string;
}

type Facts = Record<string, JsonValue | undefined>;

/**
 * What is known of a resource as the change leaves it (as it was, for a delete): the new inputs
 * over the ids recorded in state (except for a replacement, whose ids may be new).
 */
export function factsOf(r: ResourceChange): Facts {
  if (r.op === "delete" || !r.new) return { ...r.old?.inputs, ...r.old?.outputs };
  if (r.op === "replace" || r.op === "create") return { ...r.new.outputs, ...r.new.inputs };
  return { ...r.old?.outputs, ...r.new.inputs };
}

const str = (v: JsonValue | undefined): string | undefined => (typeof v === "string" && v !== UNKNOWN ? v : undefined);
const record = (v: JsonValue | undefined): Record<string, JsonValue> | undefined => (typeof v === "object" && v !== null && !Array.isArray(v) ? v : undefined);
const list = (v: JsonValue | undefined): JsonValue[] => (Array.isArray(v) ? v : []);

/** The ids that name a resource of this kind: `source:<id>`, `config:<component>/<config>`, ... */
function idKeys(r: ResourceChange, facts: Facts): string[] {
  const kind = r.kind;
  if (!kind) return [];
  const id = keboolaId(kind, facts);
  if (!id) return [];
  switch (kind) {
    case "Source":
      return [`source:${id}`];
    case "Sink":
      return [`sink:${id}`];
    case "Table":
      return [`table:${id}`];
    case "Bucket":
      return [`bucket:${id}`];
    case "Branch":
      return [`branch:${id}`];
    case "ComponentConfig":
    case "VariableConfig":
    case "Flow":
      return [`config:${id}`];
    default:
      return [];
  }
}

/** The ids each input of a resource names, by input: what literal ids are matched on. */
function namedIds(kind: string, facts: Facts): Array<{ input: string; key: string }> {
  const out: Array<{ input: string; key: string }> = [];
  const add = (input: string, key: string | undefined) => key && out.push({ input, key });
  const config = (component: JsonValue | undefined, id: JsonValue | undefined) => (str(component) && str(id) ? `config:${str(component)}/${str(id)}` : undefined);
  const branch = str(facts.branchId);
  if (branch && branch !== "default" && kind !== "Branch") add("branchId", `branch:${branch}`);
  switch (kind) {
    case "Sink":
      add("sourceId", str(facts.sourceId) && `source:${str(facts.sourceId)}`);
      add("tableId", str(facts.tableId) && `table:${str(facts.tableId)}`);
      break;
    case "SourceSettings":
      add("sourceId", str(facts.sourceId) && `source:${str(facts.sourceId)}`);
      break;
    case "SinkSettings":
      add("sinkId", str(facts.sourceId) && str(facts.sinkId) && `sink:${str(facts.sourceId)}/${str(facts.sinkId)}`);
      break;
    case "Table":
      add("bucketId", str(facts.bucketId) && `bucket:${str(facts.bucketId)}`);
      break;
    case "ComponentConfig":
      add("variables", config(VARIABLES_COMPONENT, record(facts.variables)?.configId));
      for (const row of list(facts.rows)) add("rows", config(VARIABLES_COMPONENT, record(record(row)?.variables)?.configId));
      break;
    case "JobRun":
      add("configId", config(facts.componentId, facts.configId));
      break;
    case "Flow":
      for (const phase of list(facts.phases)) for (const task of list(record(phase)?.tasks)) add("phases", config(record(task)?.componentId, record(task)?.configId));
      break;
    case "Schedule":
      add("target", config(record(facts.target)?.componentId, record(facts.target)?.configId));
      break;
  }
  return out;
}

/** Every reference between the resources of the review (and to those it only names). */
export function referencesOf(resources: readonly ResourceChange[]): Reference[] {
  const byId = new Map<string, string>();
  for (const r of resources) for (const key of idKeys(r, factsOf(r))) if (!byId.has(key)) byId.set(key, r.urn);
  const out = new Map<string, Reference>();
  const add = (ref: Reference) => {
    if (ref.from !== ref.to) out.set(`${ref.from}\n${ref.to}\n${ref.input}`, ref);
  };
  for (const r of resources) {
    if (!r.kind) continue;
    const state = r.op === "delete" ? r.old : (r.new ?? r.old);
    const deps = state?.inputDependencies ?? {};
    for (const [input, urns] of Object.entries(deps)) for (const to of urns) add({ from: r.urn, to, input });
    for (const { input, key } of namedIds(r.kind, factsOf(r))) {
      const to = byId.get(key);
      if (to) add({ from: r.urn, to, input });
      // A sink's table that no Table resource declares (and none it depends on).
      else if (input === "tableId" && !deps.tableId) add({ from: r.urn, to: key, input });
    }
  }
  return [...out.values()].sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : a.to < b.to ? -1 : a.to > b.to ? 1 : a.input < b.input ? -1 : a.input > b.input ? 1 : 0));
}

/** The resources whose inputs name this one, with the inputs that do. */
export function referrersOf(urn: string, references: readonly Reference[]): Array<{ urn: string; inputs: string[] }> {
  const by = new Map<string, Set<string>>();
  for (const ref of references) if (ref.to === urn) by.set(ref.from, (by.get(ref.from) ?? new Set()).add(ref.input));
  return [...by].map(([from, inputs]) => ({ urn: from, inputs: [...inputs].sort() }));
}
