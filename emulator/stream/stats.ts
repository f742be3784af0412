import type { EmulatorContext } from "../core/context";
import { isoTime } from "./ids";
import { streamState, type FileRecord, type SinkRecord, type StatsRecord, type StatsValue, type StorageLevel } from "./state";

// The statistics of sinks, as the real service keeps and sums them (keboola-as-code
// internal/pkg/service/stream/storage/statistics: statistics.go `Value.With`/`Aggregated.Add`,
// repository/stats_get.go `AggregateIn`, stats_reset.go `ResetSinkStats`): one value per slice of
// a file at each level; a reset stores what the target level holds then, which the sums subtract
// from then on. The emulator writes each accepted record into the table at once (ingestion.ts),
// so it counts it at the target level of the sink's writing file; it does not compress, so the
// compressed size is the uncompressed one.

type SinkIds = Pick<SinkRecord, "branchId" | "sourceId" | "sinkId">;

export const STORAGE_LEVELS: readonly StorageLevel[] = ["local", "staging", "target"];

const sinkKeyOf = (s: SinkIds) => `${s.branchId}/${s.sourceId}/${s.sinkId}`;
const statsKey = (r: StatsRecord) => `${r.level}/${sinkKeyOf(r)}/${r.fileOpenedAt}/${r.slice}`;

export const emptyValue = (): StatsValue => ({ recordsCount: 0, uncompressedSize: 0, compressedSize: 0 });

const earlier = (a: string | undefined, b: string | undefined) => (a === undefined ? b : b === undefined ? a : Date.parse(b) < Date.parse(a) ? b : a);
const later = (a: string | undefined, b: string | undefined) => (a === undefined ? b : b === undefined ? a : Date.parse(b) > Date.parse(a) ? b : a);

/** `Value.add`: counts and sizes summed, the first and last record times widened. */
export function addValue(v: StatsValue, w: StatsValue): StatsValue {
  return {
    slicesCount: (v.slicesCount ?? 0) + (w.slicesCount ?? 0),
    firstRecordAt: earlier(v.firstRecordAt, w.firstRecordAt),
    lastRecordAt: later(v.lastRecordAt, w.lastRecordAt),
    recordsCount: v.recordsCount + w.recordsCount,
    uncompressedSize: v.uncompressedSize + w.uncompressedSize,
    compressedSize: v.compressedSize + w.compressedSize,
    stagingSize: (v.stagingSize ?? 0) + (w.stagingSize ?? 0),
  };
}

/** `Value.sub` (a reset): counts and sizes subtracted down to zero, the record times kept. */
function subValue(v: StatsValue, w: StatsValue): StatsValue {
  const minus = (a: number | undefined, b: number | undefined) => Math.max(0, (a ?? 0) - (b ?? 0));
  return {
    ...v,
    slicesCount: minus(v.slicesCount, w.slicesCount),
    recordsCount: minus(v.recordsCount, w.recordsCount),
    uncompressedSize: minus(v.uncompressedSize, w.uncompressedSize),
    compressedSize: minus(v.compressedSize, w.compressedSize),
    stagingSize: minus(v.stagingSize, w.stagingSize),
  };
}

/** `statistics.Aggregated`: per level and in total. */
export interface Aggregated {
  local: StatsValue;
  staging: StatsValue;
  target: StatsValue;
  total: StatsValue;
}

const emptyAggregated = (): Aggregated => ({ local: emptyValue(), staging: emptyValue(), target: emptyValue(), total: emptyValue() });

function aggregate(out: Aggregated, level: StorageLevel, value: StatsValue, reset = false): void {
  const op = reset ? subValue : addValue;
  out[level] = op(out[level], value);
  out.total = op(out.total, value);
}

/** The sink's statistics records (every level, every file). */
export function sinkStats(ctx: EmulatorContext, sink: SinkIds): StatsRecord[] {
  const key = sinkKeyOf(sink);
  return Object.values(streamState(ctx.state).stats).filter((r) => sinkKeyOf(r) === key);
}

/** `AggregateIn(sinkKey)`: every value of the sink, less its last reset at the target level. */
export function aggregateSink(ctx: EmulatorContext, sink: SinkIds): Aggregated {
  const out = emptyAggregated();
  for (const r of sinkStats(ctx, sink)) aggregate(out, r.level, r.value);
  const reset = streamState(ctx.state).statsResets[sinkKeyOf(sink)];
  if (reset) aggregate(out, "target", reset.value, true);
  return out;
}

/** `FilesStats`: the sums per file, for the files that have any statistics record. */
export function statsByFile(ctx: EmulatorContext, sink: SinkIds): Map<string, Aggregated> {
  const out = new Map<string, Aggregated>();
  for (const r of sinkStats(ctx, sink)) {
    let agg = out.get(r.fileOpenedAt);
    if (!agg) out.set(r.fileOpenedAt, (agg = emptyAggregated()));
    aggregate(agg, r.level, r.value);
  }
  return out;
}

export function putStats(ctx: EmulatorContext, record: StatsRecord): void {
  streamState(ctx.state).stats[statsKey(record)] = record;
}

/** A new file's first slice: its local statistics exist, empty, from the moment it opens. */
export function openSliceStats(ctx: EmulatorContext, file: FileRecord): void {
  putStats(ctx, { ...sinkIdsOf(file), level: "local", fileOpenedAt: file.openedAt, slice: `emulator/${file.openedAt}/value`, value: emptyValue() });
}

/** A record written to the table through the file: counted at the target level. */
export function countRecord(ctx: EmulatorContext, file: FileRecord, receivedAtMs: number, bytes: number): void {
  const slice = `emulator/${file.openedAt}/target`;
  const key = statsKey({ ...sinkIdsOf(file), level: "target", fileOpenedAt: file.openedAt, slice, value: emptyValue() });
  const at = isoTime(receivedAtMs);
  const previous = streamState(ctx.state).stats[key]?.value ?? emptyValue();
  const value = addValue(previous, { slicesCount: 0, firstRecordAt: at, lastRecordAt: at, recordsCount: 1, uncompressedSize: bytes, compressedSize: bytes });
  value.slicesCount = 1;
  putStats(ctx, { ...sinkIdsOf(file), level: "target", fileOpenedAt: file.openedAt, slice, value });
}

/** `ResetSinkStats`: remembers what the target level holds now (all its values, earlier resets aside). */
export function resetSinkStats(ctx: EmulatorContext, sink: SinkIds, nowMs: number): void {
  let sum = emptyValue();
  for (const r of sinkStats(ctx, sink)) if (r.level === "target") sum = addValue(sum, r.value);
  streamState(ctx.state).statsResets[sinkKeyOf(sink)] = { resetAt: isoTime(nowMs), value: sum };
}

/** When the sink's statistics were last reset. */
export function lastReset(ctx: EmulatorContext, sink: SinkIds): string | undefined {
  return streamState(ctx.state).statsResets[sinkKeyOf(sink)]?.resetAt;
}

function sinkIdsOf(s: SinkIds): SinkIds {
  return { branchId: s.branchId, sourceId: s.sourceId, sinkId: s.sinkId };
}
