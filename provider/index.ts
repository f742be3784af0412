// Public API of keboola-pulumi: the resource classes a Pulumi program uses.
export { Source, type SourceArgs, type SourceInputs } from "./kinds/source";
export { Sink, type SinkArgs, type SinkInputs } from "./kinds/sink";
export { SourceSettings, type SourceSettingsArgs, type SourceSettingsInputs } from "./kinds/source-settings";
export { SinkSettings, type SinkSettingsArgs, type SinkSettingsInputs } from "./kinds/sink-settings";
export { VariableConfig, type VariableConfigArgs, type VariableConfigInputs, type VariablesBinding } from "./kinds/variable-config";
export { ComponentConfig, type ComponentConfigArgs, type ComponentConfigInputs } from "./kinds/component-config";
export { JobRun, type JobRunArgs, type JobRunInputs } from "./kinds/job-run";
export { Flow, type FlowArgs, type FlowInputs } from "./kinds/flow";
export { Schedule, type ScheduleArgs, type ScheduleInputs } from "./kinds/schedule";
export { Bucket, type BucketArgs, type BucketInputs } from "./kinds/bucket";
export { Table, type TableArgs, type TableInputs } from "./kinds/table";
export { Branch, type BranchArgs, type BranchInputs } from "./kinds/branch";
export { stackBranch, stackBranchName } from "./kinds/branch";
export { deployManifest, declareManifest, type DeployedManifest, type DeployOptions } from "./manifest/deploy";
export { loadManifest, parseManifest, type ManifestProblem } from "./manifest/parse";
export { exportProject, type ExportOptions, type ExportResult } from "./manifest/export";
export type { Manifest, ManifestInput } from "./manifest/schema";
