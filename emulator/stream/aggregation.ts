import type { EmulatorContext } from "../core/context";
import type { StreamAggregatedSink, StreamAggregatedSource } from "../../keboola/stream";
import { decode, endpoint, inBranch } from "./request";
import { jsonResponse } from "./respond";
import { pageParams } from "./sources";
import { aggregateSink } from "./stats";
import { filesNewestFirst, totalsView } from "./statistics";
import { activeSources, sinksOf } from "./store";
import type { SinkRecord } from "./state";
import { paginate, sinkView, sourceView } from "./views";

// `GET /v1/branches/{branchId}/aggregation/sources` (keboola-as-code
// internal/pkg/service/stream/api/service/aggregation.go, api/mapper/aggregation.go,
// aggregation/repository/repository.go): the page of active sources, as the list has it, each with
// its active sinks, each sink with its statistics (as statistics/total answers them) and all its
// files with their statistics, newest first (no reset filter here).

function aggregatedSink(ctx: EmulatorContext, sink: SinkRecord): StreamAggregatedSink {
  return { ...sinkView(sink), statistics: { ...totalsView(aggregateSink(ctx, sink)), files: filesNewestFirst(ctx, sink) } };
}

export const aggregationSources = (ctx: EmulatorContext) =>
  endpoint.createHandlers(decode(pageParams), inBranch(ctx, "read"), (c) => {
    const { input, scope } = c.var;
    const { page, items } = paginate(activeSources(ctx, scope.branchId), (s) => s.sourceId, input.afterId, input.limit);
    const sources: StreamAggregatedSource[] = items.map((source) => ({
      ...sourceView(ctx, source),
      sinks: sinksOf(ctx, scope.branchId, source.sourceId)
        .sort((a, b) => (a.sinkId < b.sinkId ? -1 : a.sinkId > b.sinkId ? 1 : 0))
        .map((sink) => aggregatedSink(ctx, sink)),
    }));
    return jsonResponse(200, { projectId: scope.projectId, branchId: scope.branchId, page, sources });
  });
