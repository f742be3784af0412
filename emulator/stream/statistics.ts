import type { EmulatorContext } from "../core/context";
import type { StreamSinkFile, StreamSinkStatisticsTotal, StreamStatisticsLevel, StreamStatisticsLevels } from "../../keboola/stream";
import { GoaErrors } from "./errors";
import { sinkFiles } from "./files";
import { decode, endpoint, inBranch } from "./request";
import { jsonResponse } from "./respond";
import { idParams, mustExistSink } from "./sinks";
import { mustGetSource, parseGoBool, sourceIdParam } from "./sources";
import { aggregateSink, lastReset, resetSinkStats, statsByFile, type Aggregated } from "./stats";
import { sinksOf } from "./store";
import type { FileRecord, SinkRecord, StatsValue } from "./state";
import type { Context } from "hono";

// The statistics endpoints of sinks (keboola-as-code internal/pkg/service/stream/api/service/
// sink.go SinkStatisticsTotal, SinkStatisticsFiles, SinkStatisticsClear; source.go
// SourceStatisticsClear) and their answers (api/mapper/sink.go).

/** mapValueToLevel: a level without records is not shown. */
function levelView(v: StatsValue): StreamStatisticsLevel | undefined {
  if (v.recordsCount === 0) return undefined;
  const out: StreamStatisticsLevel = { recordsCount: v.recordsCount, compressedSize: v.compressedSize, uncompressedSize: v.uncompressedSize };
  return { ...(v.firstRecordAt ? { firstRecordAt: v.firstRecordAt } : {}), ...(v.lastRecordAt ? { lastRecordAt: v.lastRecordAt } : {}), ...out };
}

function levelsView(a: Aggregated): StreamStatisticsLevels {
  const out: StreamStatisticsLevels = {};
  const local = levelView(a.local);
  const staging = levelView(a.staging);
  const target = levelView(a.target);
  if (local) out.local = local;
  if (staging) out.staging = staging;
  if (target) out.target = target;
  return out;
}

/** NewSinkStatisticsTotalResponse: the total is shown even without records, as zeros. */
export function totalsView(a: Aggregated): StreamSinkStatisticsTotal {
  return { total: levelView(a.total) ?? { recordsCount: 0, compressedSize: 0, uncompressedSize: 0 }, levels: levelsView(a) };
}

/** NewSinkFile (+ its statistics, when the file has any): the retry fields only after a failed attempt. */
export function fileView(file: FileRecord, stats: Aggregated | undefined): StreamSinkFile {
  const out: StreamSinkFile = { state: file.state, openedAt: file.openedAt };
  if (file.closingAt) out.closingAt = file.closingAt;
  if (file.importingAt) out.importingAt = file.importingAt;
  if (file.importedAt) out.importedAt = file.importedAt;
  if ((file.retryAttempt ?? 0) > 0) {
    out.retryAttempt = file.retryAttempt;
    out.retryReason = file.retryReason ?? "";
    out.retryAfter = file.retryAfter ?? "";
  }
  if (stats) out.statistics = { total: levelView(stats.total) ?? null, levels: levelsView(stats) };
  return out;
}

/** compareSinkFiles: imported files first, then those without a retry, then by opening time. */
function compareFiles(a: StreamSinkFile, b: StreamSinkFile): number {
  const imported = (f: StreamSinkFile) => (f.state === "imported" ? 0 : 1);
  const retried = (f: StreamSinkFile) => (f.retryReason === undefined ? 0 : 1);
  return imported(a) - imported(b) || retried(a) - retried(b) || (a.openedAt < b.openedAt ? -1 : a.openedAt > b.openedAt ? 1 : 0);
}

/** The sink's files with their statistics, newest first (as the aggregation lists them). */
export function filesNewestFirst(ctx: EmulatorContext, sink: SinkRecord): StreamSinkFile[] {
  const stats = statsByFile(ctx, sink);
  return sinkFiles(ctx, sink)
    .reverse()
    .map((f) => fileView(f, stats.get(f.openedAt)));
}

/** `failedFiles` as Goa decodes it: strconv.ParseBool when given. */
function failedFilesParam(c: Context, errs: GoaErrors): boolean {
  const raw = c.req.query("failedFiles") ?? "";
  if (raw === "") return false;
  const parsed = parseGoBool(raw);
  if (parsed === undefined) errs.invalidFieldType("failedFiles", raw, "boolean");
  return parsed ?? false;
}

// ---- Endpoints ----------------------------------------------------------------------------------

export const sinkStatisticsTotal = (ctx: EmulatorContext) =>
  endpoint.createHandlers(decode((c, errs) => idParams(c, errs)), inBranch(ctx, "read"), (c) => {
    const { input, scope } = c.var;
    const sink = mustExistSink(ctx, scope.branchId, input.sourceId, input.sinkId);
    return jsonResponse(200, totalsView(aggregateSink(ctx, sink)));
  });

/**
 * `GET .../statistics/files`: the files opened after the last reset (all without one), with
 * `failedFiles=true` only those not imported after a failed attempt.
 */
export const sinkStatisticsFiles = (ctx: EmulatorContext) =>
  endpoint.createHandlers(
    decode((c, errs) => ({ ...idParams(c, errs), failedFiles: failedFilesParam(c, errs) })),
    inBranch(ctx, "read"),
    (c) => {
      const { input, scope } = c.var;
      const sink = mustExistSink(ctx, scope.branchId, input.sourceId, input.sinkId);
      const resetAt = lastReset(ctx, sink);
      const stats = statsByFile(ctx, sink);
      const files = sinkFiles(ctx, sink)
        .filter((f) => resetAt === undefined || Date.parse(f.openedAt) > Date.parse(resetAt))
        .filter((f) => !input.failedFiles || (f.state !== "imported" && (f.retryAttempt ?? 0) > 0))
        .map((f) => fileView(f, stats.get(f.openedAt)))
        .sort(compareFiles);
      return jsonResponse(200, { files });
    },
  );

/** The answer of both clears: 200 without a body. */
const cleared = (): Response => new Response(null, { status: 200 });

export const sinkStatisticsClear = (ctx: EmulatorContext) =>
  endpoint.createHandlers(decode((c, errs) => idParams(c, errs)), inBranch(ctx, "write"), (c) => {
    const { input, scope } = c.var;
    const sink = mustExistSink(ctx, scope.branchId, input.sourceId, input.sinkId);
    resetSinkStats(ctx, sink, ctx.now());
    return cleared();
  });

/** `DELETE .../sources/{sourceId}/statistics/clear`: the statistics of each of its sinks. */
export const sourceStatisticsClear = (ctx: EmulatorContext) =>
  endpoint.createHandlers(decode((c, errs) => ({ sourceId: sourceIdParam(c, errs) })), inBranch(ctx, "write"), (c) => {
    const { input, scope } = c.var;
    mustGetSource(ctx, scope.branchId, input.sourceId);
    for (const sink of sinksOf(ctx, scope.branchId, input.sourceId)) resetSinkStats(ctx, sink, ctx.now());
    return cleared();
  });
