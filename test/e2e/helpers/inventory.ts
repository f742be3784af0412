import type { Emulator } from "../../../emulator/server";

/** What is live in the emulator: one of each object, configurations by their rows' names, and what sits in the trash. */
export function inventory(e: Emulator) {
  const configs = Object.values(e.state.storage.configs);
  return {
    sources: Object.values(e.state.stream.sources).filter((s) => !s.deleted).map((s) => s.sourceId),
    sinks: Object.values(e.state.stream.sinks).filter((s) => !s.deleted).map((s) => s.sinkId),
    configs: configs.filter((c) => !c.isDeleted).map((c) => `${c.componentId}:${c.rows.map((r) => r.name).join(",")}`).sort(),
    trash: configs.filter((c) => c.isDeleted).length,
  };
}
