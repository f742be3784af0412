// Generated from provider/kinds/registry.ts by scripts/gen-kinds.ts (`npm run generate`): do not edit.
// Public API of keboola-pulumi: the resource classes a Pulumi program uses, and the manifest's.
export * from "./kinds/branch/resource";
export * from "./kinds/source/resource";
export * from "./kinds/settings/resource";
export * from "./kinds/sink/resource";
export * from "./kinds/bucket/resource";
export * from "./kinds/table/resource";
export * from "./kinds/variable-config/resource";
export * from "./kinds/component-config/resource";
export * from "./kinds/flow/resource";
export * from "./kinds/schedule/resource";
export * from "./kinds/job-run/resource";
export { deployManifest, declareManifest, type DeployedManifest, type DeployOptions } from "./manifest/deploy";
export { loadManifest, parseManifest, type ManifestProblem } from "./manifest/parse";
export { exportProject, type ExportOptions, type ExportResult } from "./manifest/export";
export type { Manifest, ManifestInput } from "./manifest/schema";
