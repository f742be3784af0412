export { startEmulator, initialState, type Emulator } from "./server";
export type { EmulatorOptions, EmulatorState, RequestLogEntry, ServiceUrls } from "./core/context";
export type { JobInputs } from "./queue/components";
export { countFaults, type FaultCounts, type FaultKind, type FaultOptions } from "./core/faults";
