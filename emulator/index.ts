export { startEmulator, initialState, type Emulator } from "./server";
export type { EmulatorOptions, EmulatorState, RequestLogEntry, ServiceUrls } from "./core/context";
export type { FaultOptions } from "./core/faults";
