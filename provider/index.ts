// Public API of keboola-pulumi: the resource classes a Pulumi program uses.
export { Source, type SourceArgs, type SourceInputs } from "./resources/source";
export { Sink, type SinkArgs, type SinkInputs } from "./resources/sink";
export { SourceSettings, type SourceSettingsArgs, type SourceSettingsInputs } from "./resources/source-settings";
export { SinkSettings, type SinkSettingsArgs, type SinkSettingsInputs } from "./resources/sink-settings";
export { VariableConfig, type VariableConfigArgs, type VariableConfigInputs, type VariablesBinding } from "./resources/variable-config";
export { ComponentConfig, type ComponentConfigArgs, type ComponentConfigInputs } from "./resources/component-config";
export { JobRun, type JobRunArgs, type JobRunInputs } from "./resources/job-run";
export { Flow, type FlowArgs, type FlowInputs } from "./resources/flow";
export { Schedule, type ScheduleArgs, type ScheduleInputs } from "./resources/schedule";
export { Bucket, type BucketArgs, type BucketInputs } from "./resources/bucket";
export { Table, type TableArgs, type TableInputs } from "./resources/table";
export { Branch, type BranchArgs, type BranchInputs } from "./resources/branch";
export { stackBranch, stackBranchName } from "./resources/stack-branch";
export { deployManifest, declareManifest, type DeployedManifest, type DeployOptions } from "./manifest/deploy";
export { loadManifest, parseManifest, type ManifestProblem } from "./manifest/parse";
export { exportProject, type ExportOptions, type ExportResult } from "./manifest/export";
export type { Manifest, ManifestInput } from "./manifest/schema";
