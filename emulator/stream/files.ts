import type { EmulatorContext } from "../core/context";
import { isoTime } from "./ids";
import { openSliceStats } from "./stats";
import { streamState, type FileRecord, type SinkRecord } from "./state";

// The files of a sink, as the real service's storage keeps them (keboola-as-code
// internal/pkg/service/stream/storage/model/repository/file: file_open.go, file_rotate.go,
// file_close.go): a sink that becomes active opens a file ("writing"), a change of an active sink
// rotates (a new file is opened, the writing ones are closed), a sink that stops being active
// closes its writing files. The real service then uploads and imports
// a closed file; the emulator has written every record into the table already, so a closed file
// is imported at once.

type SinkIds = Pick<SinkRecord, "branchId" | "sourceId" | "sinkId">;

const sinkPrefix = (s: SinkIds) => `${s.branchId}/${s.sourceId}/${s.sinkId}/`;
const fileKey = (f: FileRecord) => `${sinkPrefix(f)}${f.openedAt}`;

/** The sink's files, oldest first. */
export function sinkFiles(ctx: EmulatorContext, sink: SinkIds): FileRecord[] {
  const prefix = sinkPrefix(sink);
  return Object.entries(streamState(ctx.state).files)
    .filter(([key]) => key.startsWith(prefix))
    .map(([, file]) => file)
    .sort((a, b) => (a.openedAt < b.openedAt ? -1 : a.openedAt > b.openedAt ? 1 : 0));
}

/** The file records are written to now (the newest writing one), if the sink is active. */
export function writingFile(ctx: EmulatorContext, sink: SinkIds): FileRecord | undefined {
  return sinkFiles(ctx, sink)
    .filter((f) => f.state === "writing")
    .pop();
}

export function putFile(ctx: EmulatorContext, file: FileRecord): void {
  streamState(ctx.state).files[fileKey(file)] = file;
}

/** `closeFilesInSink`: the writing files are closed (and, here, imported at once). */
export function closeSinkFiles(ctx: EmulatorContext, sink: SinkIds, nowMs: number, except?: FileRecord): void {
  const at = isoTime(nowMs);
  for (const file of sinkFiles(ctx, sink)) {
    if (file.state !== "writing" || file === except) continue;
    Object.assign(file, { state: "imported", closingAt: at, importingAt: at, importedAt: at });
  }
}

/**
 * Opens a new writing file; `rotate` (a change of an active sink) then closes the other writing
 * ones. The file's first slice is opened with empty statistics, as the real writer registers it.
 */
export function openSinkFile(ctx: EmulatorContext, sink: SinkIds, nowMs: number, rotate: boolean): FileRecord {
  // A file is keyed by its opening time: a second one in the same millisecond opens a moment later.
  const taken = new Set(sinkFiles(ctx, sink).map((f) => f.openedAt));
  let at = nowMs;
  while (taken.has(isoTime(at))) at++;
  const file: FileRecord = { branchId: sink.branchId, sourceId: sink.sourceId, sinkId: sink.sinkId, openedAt: isoTime(at), state: "writing" };
  putFile(ctx, file);
  openSliceStats(ctx, file);
  if (rotate) closeSinkFiles(ctx, sink, nowMs, file);
  return file;
}
