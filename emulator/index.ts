export { startEmulator, initialState, type Emulator, type EmulatorProject } from "./server";
export type { EmulatorOptions, EmulatorState, ProjectOptions, ProjectState, RequestLogEntry, ServiceUrls } from "./core/context";
export type { JobInputs } from "./queue/components";
export { ProjectsConflict } from "./core/projects";
export { countFaults, type FaultCounts, type FaultKind, type FaultOptions } from "./core/faults";
export { startTwoProjects, PROJECT_A, PROJECT_B, type ProjectAccess, type TwoProjects, type TwoProjectsOptions } from "./two-projects";
