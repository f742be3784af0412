// The resource kinds: one row each. Everything that lists kinds is derived from this table: the
// `ResourceKind` type, the runtime's lazy loading of a kind's module (provider/kinds/<file>), the class
// name in error messages, the catalog (schema.json) and each kind's provider object module
// (dist/kinds/<file>.js, written at build by scripts/gen-kinds.ts, exported by package.json's
// `./kinds/*`). What TypeScript cannot derive, the class export in index.ts, is
// checked against it by test/unit/kinds.test.ts.
//
// Adding a kind: its file under provider/kinds/ (schema, class, handler), one row here, the
// class's export line in index.ts, and its tests.

export const KINDS = {
  source: { type: "Source", file: "source", module: "source/kind" },
  sink: { type: "Sink", file: "sink", module: "sink/kind" },
  sourceSettings: { type: "SourceSettings", file: "source-settings", module: "settings/source-settings" },
  sinkSettings: { type: "SinkSettings", file: "sink-settings", module: "settings/sink-settings" },
  componentConfig: { type: "ComponentConfig", file: "component-config", module: "component-config/kind" },
  variableConfig: { type: "VariableConfig", file: "variable-config", module: "variable-config/kind" },
  jobRun: { type: "JobRun", file: "job-run", module: "job-run/kind" },
  flow: { type: "Flow", file: "flow", module: "flow/kind" },
  schedule: { type: "Schedule", file: "schedule", module: "schedule/kind" },
  bucket: { type: "Bucket", file: "bucket", module: "bucket/kind" },
  table: { type: "Table", file: "table", module: "table/kind" },
  branch: { type: "Branch", file: "branch", module: "branch/kind" },
} as const satisfies Record<string, { type: string; file: string; module: string }>;

export type ResourceKind = keyof typeof KINDS;

/** Whether a name is a kind of the table above (its own key, not one inherited from Object). */
function isResourceKind(name: string): name is ResourceKind {
  return Object.hasOwn(KINDS, name);
}

export const KIND_NAMES: readonly ResourceKind[] = Object.keys(KINDS).filter(isResourceKind);

/** The kind whose row has this class name. */
export function kindOfType(type: string): ResourceKind {
  const kind = KIND_NAMES.find((k) => KINDS[k].type === type);
  if (!kind) throw new Error(`No row of the kinds table (provider/lifecycle/kinds.ts) has the type ${type}.`);
  return kind;
}
