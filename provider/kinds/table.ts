// The resource kinds: one row each (the files beside this one are the kinds' provider objects). Everything that lists kinds is derived from this table: the
// `ResourceKind` type, the runtime's lazy loading of a kind's module, the class name in error
// messages, the catalog (schema.json) and the per-kind provider objects under kinds/. What cannot be
// derived (package.json's `exports` of `keboola-pulumi/kinds/<file>`, the class exports of index.ts)
// is checked against it by test/unit/kinds.test.ts.
//
// Adding a kind: its resource file under resources/ (schema, class, handler), one row here, a
// one-line kinds/<file>.ts, its package.json export, and its tests.

export const KINDS = {
  source: { type: "Source", file: "source" },
  sink: { type: "Sink", file: "sink" },
  sourceSettings: { type: "SourceSettings", file: "source-settings" },
  sinkSettings: { type: "SinkSettings", file: "sink-settings" },
  componentConfig: { type: "ComponentConfig", file: "component-config" },
  variableConfig: { type: "VariableConfig", file: "variable-config" },
  jobRun: { type: "JobRun", file: "job-run" },
} as const satisfies Record<string, { type: string; file: string }>;

export type ResourceKind = keyof typeof KINDS;

export const KIND_NAMES = Object.keys(KINDS) as ResourceKind[];
