import type { EmulatorContext } from "../core/context";
import { streamPublicUrls } from "./public-urls";
import type { StreamAtBy, StreamBy, StreamColumn, StreamDisabled, StreamSink, StreamSource, StreamVersion } from "../../keboola/stream";
import type { AtBy, ByRecord, ColumnRecord, DisabledRecord, SinkRecord, SourceRecord, VersionRecord } from "./state";

// Response bodies of sources and sinks, with the field order and the optional fields of the real
// service (`disabled` only while disabled, `allowedSignals` only when not empty, `rawString`
// always on path and template columns, `defaultValue` only when set). Each is typed by the
// service's contract (keboola/stream.ts), the one the provider's client reads.

function byView(by: ByRecord): StreamBy {
  const out: StreamBy = { type: by.type };
  if (by.tokenId) out.tokenId = by.tokenId;
  if (by.tokenDesc) out.tokenDesc = by.tokenDesc;
  if (by.userId) out.userId = by.userId;
  if (by.userName) out.userName = by.userName;
  return out;
}

export const versionView = (v: VersionRecord): StreamVersion => ({
  number: v.number,
  hash: v.hash,
  description: v.description,
  at: v.at,
  by: byView(v.by),
});

const atByView = (v: AtBy): StreamAtBy => ({ at: v.at, by: byView(v.by) });

const disabledView = (v: DisabledRecord): StreamDisabled => ({ at: v.at, by: byView(v.by), reason: v.reason });

export function ingestionUrls(ctx: EmulatorContext, source: SourceRecord): Pick<StreamSource, "http" | "otlp"> {
  const base = streamPublicUrls(ctx).in;
  if (source.type === "http") return { http: { url: `${base}/stream/${source.projectId}/${source.sourceId}/${source.secret}` } };
  const baseUrl = `${base}/otlp/${source.projectId}/${source.sourceId}`;
  return { otlp: { url: `${baseUrl}/${source.secret}`, baseUrl, secret: source.secret } };
}

export function sourceView(ctx: EmulatorContext, source: SourceRecord): StreamSource {
  const out: StreamSource = {
    projectId: source.projectId,
    branchId: source.branchId,
    sourceId: source.sourceId,
    type: source.type,
    name: source.name,
    description: source.description,
    ...ingestionUrls(ctx, source),
    version: versionView(source.version),
    created: atByView(source.created),
  };
  if (source.deleted) out.deleted = atByView(source.deleted);
  if (source.disabled) out.disabled = disabledView(source.disabled);
  return out;
}

export function columnView(col: ColumnRecord): StreamColumn {
  // primaryKey is rendered only when set: keboola/keboola-as-code
  // test/stream/api/sink/create-015-path-template/005-get-sink/expected-response.json shows columns without it.
  const key = col.primaryKey ? { primaryKey: true } : {};
  if (col.type === "path") {
    const defaultValue = col.defaultValue !== undefined ? { defaultValue: col.defaultValue } : {};
    return { type: col.type, name: col.name, ...key, path: col.path ?? "", ...defaultValue, rawString: col.rawString ?? false };
  }
  if (col.type === "template") {
    return { type: col.type, name: col.name, ...key, rawString: col.rawString ?? false, template: { language: "jsonnet", content: col.template?.content ?? "" } };
  }
  return { type: col.type, name: col.name, ...key };
}

export function sinkView(sink: SinkRecord): StreamSink {
  const out: StreamSink = {
    projectId: sink.projectId,
    branchId: sink.branchId,
    sourceId: sink.sourceId,
    sinkId: sink.sinkId,
    type: sink.type,
    name: sink.name,
    description: sink.description,
    ...(sink.allowedSignals.length > 0 ? { allowedSignals: [...sink.allowedSignals] } : {}),
    table: {
      type: sink.table.type,
      tableId: sink.table.tableId,
      mapping: { columns: sink.table.mapping.columns.map(columnView) },
    },
    version: versionView(sink.version),
    created: atByView(sink.created),
  };
  if (sink.deleted) out.deleted = atByView(sink.deleted);
  if (sink.disabled) out.disabled = disabledView(sink.disabled);
  return out;
}

/**
 * Whether a key lies after the offset as the service's etcd iterator starts there: an excluded
 * start offset begins at the end of the offset's prefix range, so a key that starts with the
 * offset is skipped too (keboola-as-code internal/pkg/service/common/etcdop/iterator/option.go,
 * `start`: `etcd.GetPrefixRangeEnd(prefix + startOffset)`).
 */
export const afterOffset = (key: string, offset: string): boolean => offset === "" || (key > offset && !key.startsWith(offset));

const byKey = <T>(idOf: (item: T) => string) => (a: T, b: T) => (idOf(a) < idOf(b) ? -1 : idOf(a) > idOf(b) ? 1 : 0);

/** Pagination of the list endpoints: ascending by id, items after `afterId`, `lastId` of the page. */
export function paginate<T>(items: T[], idOf: (item: T) => string, afterId: string, limit: number) {
  const sorted = [...items].sort(byKey(idOf));
  const page = sorted.filter((item) => afterOffset(idOf(item), afterId)).slice(0, limit);
  return {
    page: { limit, totalCount: sorted.length, afterId, lastId: page.length > 0 ? idOf(page[page.length - 1]) : "" },
    items: page,
  };
}
