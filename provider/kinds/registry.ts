import type { KindModule } from "../lifecycle/dispatch";
import type { KindRow } from "./row";
import { branchRow } from "./branch/row";
import { sourceRow } from "./source/row";
import { sourceSettingsRow, sinkSettingsRow } from "./settings/row";
import { sinkRow } from "./sink/row";
import { bucketRow } from "./bucket/row";
import { tableRow } from "./table/row";
import { variableConfigRow } from "./variable-config/row";
import { componentConfigRow } from "./component-config/row";
import { flowRow } from "./flow/row";
import { scheduleRow } from "./schedule/row";
import { jobRunRow } from "./job-run/row";

// The resource kinds: one row each, in the order every list of kinds takes (what a kind needs
// first comes first: a branch, a source before its sink, a bucket before its tables, variables
// before the configurations bound to them). Everything that lists kinds is derived from this
// table: the plugin's type tokens and package schema, the package index (provider/index.ts),
// the review's order and wording, the reference docs, drift's reads, the manifest's sections and
// the modules earlier versions' state requires.
//
// A kind is a folder under provider/kinds/: kind.ts (its schema and lifecycle, which the provider
// processes load), resource.ts (its class, which a program loads), row.ts (what its row says,
// row.ts describes it), and its own helpers beside them. Adding a kind is that folder and one
// line here (test/unit/registry.test.ts registers a throwaway kind and finds it in every list).

export type { KindRow };

/** A table of kinds: this one, or (in a test) this one with a kind more. */
export type KindTable = Readonly<Record<string, KindRow>>;

export const KINDS = {
  branch: branchRow,
  source: sourceRow,
  sourceSettings: sourceSettingsRow,
  sink: sinkRow,
  sinkSettings: sinkSettingsRow,
  bucket: bucketRow,
  table: tableRow,
  variableConfig: variableConfigRow,
  componentConfig: componentConfigRow,
  flow: flowRow,
  schedule: scheduleRow,
  jobRun: jobRunRow,
} as const satisfies Record<string, KindRow>;

export type ResourceKind = keyof typeof KINDS;

/** A kind's row, as the row type says it (each row's literal type narrows its optional fields away). */
export function rowOf(kind: ResourceKind): KindRow {
  return KINDS[kind];
}

/** Whether a name is a kind of the table above (its own key, not one inherited from Object). */
export function isResourceKind(name: string): name is ResourceKind {
  return Object.hasOwn(KINDS, name);
}

export const KIND_NAMES: readonly ResourceKind[] = Object.keys(KINDS).filter(isResourceKind);

/** The kind whose row has this class name. */
export function kindOfType(type: string): ResourceKind {
  const kind = KIND_NAMES.find((k) => KINDS[k].type === type);
  if (!kind) throw new Error(`No row of the kinds table (provider/kinds/registry.ts) has the type ${type}.`);
  return kind;
}

const loaded = new Map<ResourceKind, Promise<KindModule>>();

/** A kind's schema and lifecycle (loaded once per process). */
export function loadKind(kind: ResourceKind): Promise<KindModule> {
  let mod = loaded.get(kind);
  if (!mod) loaded.set(kind, (mod = KINDS[kind].load()));
  return mod;
}

/**
 * A kind's name in files and URLs: its class name in kebab case (`SourceSettings`:
 * `source-settings`), as its reference page (docs/resources/<slug>.md) and the module that state of
 * earlier versions requires (`keboola-pulumi/kinds/<slug>`, scripts/gen-kinds.ts) are named.
 */
export function slugOf(kind: ResourceKind): string {
  return slugOfType(KINDS[kind].type);
}

/** slugOf a class name. */
export function slugOfType(type: string): string {
  return type.replace(/(?<=[a-z0-9])([A-Z])/g, "-$1").toLowerCase();
}
