// Stream API of the emulator: the statistics and files of sinks, their reset, and the aggregation
// of sources with their sinks. The expected answers come from keboola/keboola-as-code: the
// recorded cases under test/stream/api/sink/statistics-{total,files,clear}-*,
// test/stream/api/source/{statistics-clear-*,aggregation-*}, and the service behind them,
// internal/pkg/service/stream/api/service/{sink,source,aggregation}.go, api/mapper/sink.go and
// storage/statistics (Value.With, AggregateIn, ResetSinkStats).
import { describe, expect, it } from "vitest";
import { putFile } from "../../emulator/stream/files";
import { putStats } from "../../emulator/stream/stats";
import { call, pollUntil } from "./helpers";
import { useStreamEmulator } from "./stream-harness";
import { startEmulator } from "../../emulator/server";

const { emulator, api, task } = useStreamEmulator();

const SRC = "/v1/branches/default/sources";
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ZERO_TOTAL = { total: { recordsCount: 0, compressedSize: 0, uncompressedSize: 0 }, levels: {} };

async function sourceWithSink(sourceId: string, sinkId = "my-sink"): Promise<string> {
  await task("POST", SRC, { name: sourceId, type: "http" });
  await task("POST", `${SRC}/${sourceId}/sinks`, {
    sinkId,
    name: "My Sink",
    type: "table",
    table: { type: "keboola", tableId: `in.c-${sourceId}.t`, mapping: { columns: [{ type: "body", name: "body" }] } },
  });
  return `${SRC}/${sourceId}/sinks/${sinkId}`;
}

async function ingest(sourceId: string, body: string): Promise<void> {
  const url = (await api("GET", `${SRC}/${sourceId}`)).body.http.url as string;
  const res = await fetch(url.replace(/^.*\/stream\//, `${emulator().urls.streamIn}/stream/`), { method: "POST", body });
  expect(res.status).toBe(200);
}

describe("sink statistics", () => {
  it("are empty for a new sink, whose writing file has empty statistics (test/stream/api/sink/statistics-total-003-empty, statistics-files-001-ok)", async () => {
    const sink = await sourceWithSink("fresh");
    const total = await api("GET", `${sink}/statistics/total`);
    expect(total.status).toBe(200);
    expect(total.body).toEqual(ZERO_TOTAL);

    const files = await api("GET", `${sink}/statistics/files`);
    expect(files.body).toEqual({ files: [{ state: "writing", openedAt: expect.stringMatching(ISO), statistics: { total: null, levels: {} } }] });
  });

  it("count ingested records, and a clear starts them over (test/stream/api/sink/statistics-clear-001-ok)", async () => {
    const sink = await sourceWithSink("counted");
    await ingest("counted", "one");
    await ingest("counted", "two");
    const total = (await api("GET", `${sink}/statistics/total`)).body;
    expect(total.total).toMatchObject({ recordsCount: 2, firstRecordAt: expect.stringMatching(ISO), lastRecordAt: expect.stringMatching(ISO) });
    expect(total.levels.target.recordsCount).toBe(2);
    expect(total.total.uncompressedSize).toBeGreaterThan(0);
    const file = (await api("GET", `${sink}/statistics/files`)).body.files[0];
    expect(file.statistics.total.recordsCount).toBe(2);

    const clear = await api("DELETE", `${sink}/statistics/clear`);
    expect(clear.status).toBe(200);
    expect(clear.text).toBe("");
    expect((await api("GET", `${sink}/statistics/total`)).body).toEqual(ZERO_TOTAL);
    // Files opened before the reset are not listed (statistics-files-001-ok, 007-statistics-files).
    expect((await api("GET", `${sink}/statistics/files`)).body).toEqual({ files: [] });

    await ingest("counted", "three");
    expect((await api("GET", `${sink}/statistics/total`)).body.total.recordsCount).toBe(1);
  });

  it("close the file of a disabled sink and open a new one on enable, imported files first (test/stream/api/sink/statistics-files-sort-result)", async () => {
    const sink = await sourceWithSink("rotated");
    await task("PUT", `${sink}/disable`);
    await task("PUT", `${sink}/enable`);
    const files = (await api("GET", `${sink}/statistics/files`)).body.files;
    expect(files.map((f: any) => f.state)).toEqual(["imported", "writing"]);
    expect(files[0]).toMatchObject({ closingAt: expect.stringMatching(ISO), importingAt: expect.stringMatching(ISO), importedAt: expect.stringMatching(ISO) });
  });

  it("sort and filter files as the service does: imported, then without a retry, then by opening (test/stream/api/sink/statistics-files-{sort-result,not-imported-files})", async () => {
    const sink = await sourceWithSink("sorted");
    const ids = { branchId: 101, sourceId: "sorted", sinkId: "my-sink" };
    const at = (h: string) => `2000-01-01T${h}:00.000Z`;
    putFile(emulator().context, { ...ids, openedAt: at("02:00"), state: "closing", closingAt: at("05:00"), retryAttempt: 2, retryReason: "some reason 2", retryAfter: at("07:08") });
    putFile(emulator().context, { ...ids, openedAt: at("03:00"), state: "importing", importingAt: at("12:00") });
    putFile(emulator().context, { ...ids, openedAt: at("08:00"), state: "imported", closingAt: at("05:00"), importingAt: at("12:00"), importedAt: at("13:00") });
    putFile(emulator().context, { ...ids, openedAt: at("04:00"), state: "imported", importedAt: at("13:00") });
    putStats(emulator().context, {
      ...ids,
      level: "local",
      fileOpenedAt: at("04:00"),
      slice: "my-volume/2000-01-20T00:00:00.000Z/value",
      value: { slicesCount: 1, firstRecordAt: at("00:00"), lastRecordAt: at("01:00"), recordsCount: 1, uncompressedSize: 1, compressedSize: 1 },
    });

    const files = (await api("GET", `${sink}/statistics/files`)).body.files;
    expect(files.map((f: any) => [f.state, f.openedAt.startsWith("2000") ? f.openedAt.slice(11, 16) : "now"])).toEqual([
      ["imported", "04:00"],
      ["imported", "08:00"],
      ["importing", "03:00"],
      ["writing", "now"],
      ["closing", "02:00"],
    ]);
    expect(files[0].statistics).toEqual({
      total: { firstRecordAt: at("00:00"), lastRecordAt: at("01:00"), recordsCount: 1, compressedSize: 1, uncompressedSize: 1 },
      levels: { local: { firstRecordAt: at("00:00"), lastRecordAt: at("01:00"), recordsCount: 1, compressedSize: 1, uncompressedSize: 1 } },
    });
    expect(files[1].statistics).toBeUndefined();
    expect(files[4]).toEqual({
      state: "closing",
      openedAt: at("02:00"),
      closingAt: at("05:00"),
      retryAttempt: 2,
      retryReason: "some reason 2",
      retryAfter: at("07:08"),
    });

    // failedFiles=true: the files not imported after a failed attempt.
    const failed = (await api("GET", `${sink}/statistics/files?failedFiles=true`)).body.files;
    expect(failed.map((f: any) => f.openedAt)).toEqual([at("02:00")]);
    const invalid = await api("GET", `${sink}/statistics/files?failedFiles=maybe`);
    expect(invalid.status).toBe(400);
    expect(invalid.body).toEqual({ statusCode: 400, error: "stream.api.invalidFieldType", message: 'Invalid value "maybe" for "failedFiles", must be a boolean.' });
  });

  it("answer 404 for a missing source or sink (test/stream/api/sink/statistics-{total,files,clear}-002-not-found)", async () => {
    for (const [method, suffix] of [
      ["GET", "statistics/total"],
      ["GET", "statistics/files"],
      ["DELETE", "statistics/clear"],
    ]) {
      const noSource = await api(method, `${SRC}/missing/sinks/my-sink/${suffix}`);
      expect(noSource.body, suffix).toEqual({ statusCode: 404, error: "stream.api.sourceNotFound", message: 'Source "missing" not found in the branch.' });
      const noSink = await api(method, `${SRC}/fresh/sinks/missing/${suffix}`);
      expect(noSink.body, suffix).toEqual({ statusCode: 404, error: "stream.api.sinkNotFound", message: 'Sink "missing" not found in the source.' });
    }
  });
});

describe("source statistics clear", () => {
  it("resets each sink of the source (test/stream/api/source/statistics-clear-001-ok)", async () => {
    const sink = await sourceWithSink("whole");
    await ingest("whole", "x");
    const res = await api("DELETE", `${SRC}/whole/statistics/clear`);
    expect(res.status).toBe(200);
    expect(res.text).toBe("");
    expect((await api("GET", `${sink}/statistics/total`)).body).toEqual(ZERO_TOTAL);
    const missing = await api("DELETE", `${SRC}/missing/statistics/clear`);
    expect(missing.body.error).toBe("stream.api.sourceNotFound");
  });
});

describe("aggregation", () => {
  it("lists sources with their sinks, statistics and files newest first (test/stream/api/source/aggregation-002-ok)", async () => {
    const other = await startEmulator({ token: "master", taskDurationMs: 10 });
    try {
      const on = (method: string, path: string, json?: unknown) => call(other.urls.stream, method, path, { token: "master", ...(json ? { json } : {}) });
      const empty = await on("GET", "/v1/branches/default/aggregation/sources");
      expect(empty.body).toEqual({ projectId: 4242, branchId: 101, page: { limit: 100, totalCount: 0, afterId: "", lastId: "" }, sources: [] });

      const wait = async (res: any) => {
        expect(res.status, res.text).toBe(202);
        await pollUntil(
          () => call(res.body.url, "GET", "", { token: "master" }),
          (r) => r.body.isFinished === true,
        );
      };
      await wait(await on("POST", SRC, { name: "Agg 1", type: "http" }));
      await wait(await on("POST", SRC, { name: "Agg 2", type: "http" }));
      await wait(
        await on("POST", `${SRC}/agg-1/sinks`, {
          name: "S",
          type: "table",
          table: { type: "keboola", tableId: "in.c-agg.t", mapping: { columns: [{ type: "body", name: "body" }] } },
        }),
      );
      await wait(await on("PUT", `${SRC}/agg-1/sinks/s/disable`));
      await wait(await on("PUT", `${SRC}/agg-1/sinks/s/enable`));

      const res = await on("GET", "/v1/branches/default/aggregation/sources?limit=1");
      expect(res.status).toBe(200);
      expect(res.body.page).toEqual({ limit: 1, totalCount: 2, afterId: "", lastId: "agg-1" });
      const [source] = res.body.sources;
      expect(source).toMatchObject({ sourceId: "agg-1", type: "http", http: { url: expect.any(String) }, version: { number: 1 } });
      expect(source.sinks).toHaveLength(1);
      const sink = source.sinks[0];
      expect(Object.keys(sink)).toEqual(["projectId", "branchId", "sourceId", "sinkId", "type", "name", "description", "table", "version", "created", "statistics"]);
      expect(sink.statistics.total).toEqual(ZERO_TOTAL.total);
      expect(sink.statistics.levels).toEqual({});
      expect(sink.statistics.files.map((f: any) => f.state)).toEqual(["writing", "imported"]);

      // A source without sinks has an empty list (aggregation-001-empty-ok, the generated encoder).
      const second = await on("GET", "/v1/branches/default/aggregation/sources?afterId=agg-1");
      expect(second.body.sources.map((s: any) => [s.sourceId, s.sinks])).toEqual([["agg-2", []]]);

      const noToken = await call(other.urls.stream, "GET", "/v1/branches/default/aggregation/sources");
      expect(noToken.status).toBe(400);
      expect(noToken.body.error).toBe("stream.api.missingField");
    } finally {
      await other.close();
    }
  });
});
