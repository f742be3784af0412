// Stream API of the emulator: the versions of sources and sinks (list, detail, rollback).
// The expected answers come from keboola/keboola-as-code: the recorded cases under
// test/stream/api/{source,sink}/{list-*-versions*,version-detail-*,rollback-version-*,
// create-013-disable-rollback,create-015-disable-rollback}, and the service behind them,
// internal/pkg/service/stream/api/service/{source,sink}.go (List*Versions, *VersionDetail,
// Rollback*Version) with the repositories' definition/repository/{source,sink}/*_version.go.
import { beforeAll, describe, expect, it } from "vitest";
import { getTable } from "../../emulator/storage/tables";
import { call, pollUntil } from "./helpers";
import { useStreamEmulator } from "./stream-harness";

const { emulator, api, task } = useStreamEmulator();

const SRC = "/v1/branches/default/sources";
const settings = (interval: string) => ({ settings: [{ key: "storage.level.staging.upload.trigger.interval", value: interval }] });
const sinkBody = (columns: unknown[]) => ({ name: "My Sink", type: "table", table: { type: "keboola", tableId: "in.c-versions.my-table", mapping: { columns } } });
const UUID_BODY = [
  { type: "uuid", name: "id" },
  { type: "body", name: "body" },
];

describe("source versions", () => {
  beforeAll(async () => {
    await task("POST", SRC, { name: "Versioned", type: "http" });
    await task("PATCH", `${SRC}/versioned/settings`, settings("45s"));
    await task("PATCH", `${SRC}/versioned/settings`, settings("50s"));
  });

  it("lists every saved version, paged by the padded number (test/stream/api/source/list-source-versions)", async () => {
    const all = await api("GET", `${SRC}/versioned/versions`);
    expect(all.status).toBe(200);
    expect(all.body.versions.map((v: any) => [v.number, v.description])).toEqual([
      [1, "New source."],
      [2, "Updated settings."],
      [3, "Updated settings."],
    ]);
    expect(all.body.versions[0]).toEqual({
      number: 1,
      hash: expect.stringMatching(/^[0-9a-f]{16}$/),
      description: "New source.",
      at: expect.any(String),
      by: { type: "user", tokenId: "1001", tokenDesc: "Master token", userId: "1", userName: "Emulated Admin" },
    });
    expect(all.body.page).toEqual({ limit: 100, totalCount: 3, afterId: "", lastId: "0000000003" });

    // 009-list-limit: the total counts all versions; the last id is the key's padded number.
    const limited = await api("GET", `${SRC}/versioned/versions?limit=2`);
    expect(limited.body.page).toEqual({ limit: 2, totalCount: 3, afterId: "", lastId: "0000000002" });
    // 007-list-afterId: the total counts the versions after afterId; the source shows it as given.
    const after = await api("GET", `${SRC}/versioned/versions?afterId=2`);
    expect(after.body.versions.map((v: any) => v.number)).toEqual([3]);
    expect(after.body.page).toEqual({ limit: 100, totalCount: 1, afterId: "2", lastId: "0000000003" });
    // 008-list-limit-empty
    const none = await api("GET", `${SRC}/versioned/versions?limit=2&afterId=0000000003`);
    expect(none.body).toEqual({ versions: [], page: { limit: 2, totalCount: 0, afterId: "0000000003", lastId: "" } });
  });

  it("answers one version, or the recorded 404s and 400 (test/stream/api/source/version-detail-*)", async () => {
    const two = await api("GET", `${SRC}/versioned/versions/2`);
    expect(two.status).toBe(200);
    expect(two.body).toMatchObject({ number: 2, description: "Updated settings." });

    const noSource = await api("GET", `${SRC}/missing/versions/25`);
    expect(noSource.status).toBe(404);
    expect(noSource.body).toEqual({ statusCode: 404, error: "stream.api.sourceNotFound", message: 'Source "missing" not found in the branch.' });

    const noVersion = await api("GET", `${SRC}/versioned/versions/25`);
    expect(noVersion.status).toBe(404);
    expect(noVersion.body).toEqual({
      statusCode: 404,
      error: "stream.api.sourceVersionNotFound",
      message: 'Source version "versioned/0000000025" not found in the branch.',
    });

    // Goa's decoding: a number that does not parse reads as 0, so both problems are reported.
    const invalid = await api("GET", `${SRC}/versioned/versions/2dsad5`);
    expect(invalid.status).toBe(400);
    expect(invalid.body).toEqual({
      statusCode: 400,
      error: "stream.api.invalidFieldType",
      message: 'Invalid value "2dsad5" for "versionNumber", must be a integer; versionNumber must be greater or equal than 1 but got value 0.',
    });
  });

  it("rolls back to a version, keeping the source disabled (test/stream/api/source/create-013-disable-rollback)", async () => {
    await task("POST", SRC, { name: "Rolled", type: "http" });
    const before = (await api("GET", `${SRC}/rolled`)).body;
    await task("PATCH", `${SRC}/rolled`, { name: "Renamed" });
    await task("PUT", `${SRC}/rolled/disable`);

    const res = await api("PUT", `${SRC}/rolled/versions/1/rollback`);
    expect(res.status).toBe(202);
    expect(res.body.type).toBe("api.rollback.sourceVersion");
    expect(res.body.taskId).toMatch(/^api\.rollback\.sourceVersion\/101\/rolled\//);
    const done = await pollUntil(
      () => call(res.body.url, "GET", "", { token: "master" }),
      (r) => r.body.isFinished === true,
    );
    expect(done.body.result).toBe("Source version was rolled back successfully.");

    const after = (await api("GET", `${SRC}/rolled`)).body;
    expect(after.name).toBe("Rolled");
    expect(after.http.url).toBe(before.http.url);
    expect(after.version).toMatchObject({ number: 4, description: 'Rollback to version "1".' });
    expect(after.disabled).toMatchObject({ reason: "API" });
  });

  it("refuses a rollback to a version that does not exist (test/stream/api/source/rollback-version-{400,404})", async () => {
    const missing = await api("PUT", `${SRC}/versioned/versions/12345/rollback`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      statusCode: 404,
      error: "stream.api.sourceVersionNotFound",
      message: 'Source version "versioned/0000012345" not found in the branch.',
    });
    const invalid = await api("PUT", `${SRC}/versioned/versions/asfasf/rollback`);
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toBe("stream.api.invalidFieldType");
  });
});

describe("sink versions", () => {
  const SINK = `${SRC}/with-sink/sinks/my-sink`;

  beforeAll(async () => {
    await task("POST", SRC, { name: "With Sink", type: "http" });
    await task("POST", `${SRC}/with-sink/sinks`, sinkBody(UUID_BODY));
    await task("PATCH", `${SINK}/settings`, settings("45s"));
  });

  it("lists the versions, the page showing afterId padded (test/stream/api/sink/list-sink-versions)", async () => {
    const all = await api("GET", `${SINK}/versions`);
    expect(all.body.versions.map((v: any) => v.description)).toEqual(["New sink.", "Updated settings."]);
    const after = await api("GET", `${SINK}/versions?limit=2&afterId=1`);
    expect(after.body.page).toEqual({ limit: 2, totalCount: 1, afterId: "0000000001", lastId: "0000000002" });
  });

  it("answers the recorded 404s: source, sink, version (test/stream/api/sink/version-detail-404)", async () => {
    expect((await api("GET", `${SRC}/nope/sinks/my-sink/versions/123`)).body.error).toBe("stream.api.sourceNotFound");
    expect((await api("GET", `${SRC}/with-sink/sinks/nope/versions/123`)).body.error).toBe("stream.api.sinkNotFound");
    const noVersion = await api("GET", `${SINK}/versions/123`);
    expect(noVersion.body).toEqual({
      statusCode: 404,
      error: "stream.api.sinkVersionNotFound",
      message: 'Sink version "my-sink/0000000123" not found in the source.',
    });
    expect((await api("GET", `${SINK}/versions/2`)).body).toMatchObject({ number: 2, description: "Updated settings." });
  });

  it("rolls back the mapping and settings, as a new version (test/stream/api/sink/rollback-version-ok)", async () => {
    await task("PATCH", SINK, { table: { type: "keboola", tableId: "in.c-versions.other", mapping: { columns: [...UUID_BODY, { type: "ip", name: "ip" }] } } });
    expect(getTable(emulator().context, 101, "in.c-versions.other")?.columns).toEqual(["id", "body", "ip"]);
    const done = await task("PUT", `${SINK}/versions/2/rollback`);
    expect(done.result).toBe("Sink version was rolled back successfully.");

    const sink = (await api("GET", SINK)).body;
    expect(sink.table).toEqual({ type: "keboola", tableId: "in.c-versions.my-table", mapping: { columns: UUID_BODY } });
    expect(sink.version).toMatchObject({ number: 4, description: 'Rollback to version "2".' });
    const settingsNow = (await api("GET", `${SINK}/settings`)).body.settings;
    expect(settingsNow.find((s: any) => s.key === "storage.level.staging.upload.trigger.interval").value).toBe("45s");
    const versions = (await api("GET", `${SINK}/versions`)).body.versions.map((v: any) => v.description);
    expect(versions).toEqual(["New sink.", "Updated settings.", "Updated.", 'Rollback to version "2".']);
  });

  it("keeps a disabled sink disabled (test/stream/api/sink/create-015-disable-rollback)", async () => {
    await task("PUT", `${SINK}/disable`);
    await task("PUT", `${SINK}/versions/1/rollback`);
    const sink = (await api("GET", SINK)).body;
    expect(sink.version).toMatchObject({ number: 6, description: 'Rollback to version "1".' });
    expect(sink.disabled).toMatchObject({ reason: "API" });
  });
});
