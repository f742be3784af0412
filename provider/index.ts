// Public API of keboola-pulumi: the resource classes a Pulumi program uses.
export { Source, type SourceArgs, type SourceInputs } from "./resources/source";
