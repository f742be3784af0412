// Stream API of the emulator: soft-deleted sources and sinks, their lists and their undelete.
// The expected answers come from keboola/keboola-as-code: the recorded cases under
// test/stream/api/source/{list-deleted-*,undelete-*} and test/stream/api/sink/{list-deleted-*,
// undelete-*}, and the service behind them, internal/pkg/service/stream/api/service/
// {source,sink}.go (ListDeleted*, Undelete*) with definition/repository/{source,sink}/*_undelete.go.
import { describe, expect, it } from "vitest";
import { useStreamEmulator } from "./stream-harness";

const { emulator, api, task } = useStreamEmulator();

const SRC = "/v1/branches/default/sources";
const sinkBody = (name: string) => ({
  name,
  type: "table",
  table: { type: "keboola", tableId: "in.c-undelete.t", mapping: { columns: [{ type: "uuid", name: "id" }, { type: "body", name: "body" }] } },
});
const tokenOf = (sourceId: string, sinkId: string) => emulator().state.stream.sinkTokens[`101/${sourceId}/${sinkId}`];

describe("deleted sources", () => {
  it("lists none, then the deleted ones with their deletion (test/stream/api/source/list-deleted-{empty-,}ok)", async () => {
    const empty = await api("GET", `${SRC}/deleted`);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ projectId: 4242, branchId: 101, page: { limit: 100, totalCount: 0, afterId: "", lastId: "" }, sources: [] });

    await task("POST", SRC, { name: "Gone 1", type: "http" });
    await task("POST", SRC, { name: "Gone 2", type: "http" });
    await task("DELETE", `${SRC}/gone-1`);
    await task("DELETE", `${SRC}/gone-2`);
    const listed = await api("GET", `${SRC}/deleted?limit=1`);
    expect(listed.body.page).toEqual({ limit: 1, totalCount: 2, afterId: "", lastId: "gone-1" });
    expect(listed.body.sources[0]).toMatchObject({ sourceId: "gone-1", deleted: { at: expect.any(String), by: { type: "user" } } });
    // "deleted" is the static segment, not a source id; the active list does not show them.
    expect((await api("GET", SRC)).body.sources.map((s: any) => s.sourceId)).not.toContain("gone-1");
  });

  it("undeletes a source as a new version, with the sinks deleted with it (test/stream/api/source/undelete-ok)", async () => {
    await task("POST", SRC, { name: "Back", type: "http" });
    await task("POST", `${SRC}/back/sinks`, sinkBody("Kept"));
    await task("DELETE", `${SRC}/back`);
    expect(tokenOf("back", "kept")).toBeUndefined();

    const done = await task("PUT", `${SRC}/back/undelete`);
    expect(done.type).toBe("api.undelete.source");
    expect(done.result).toBe("Source has been undeleted successfully.");
    const source = (await api("GET", `${SRC}/back`)).body;
    expect(source.deleted).toBeUndefined();
    expect(source.version).toMatchObject({ number: 2, description: 'Undeleted to version "1".' });
    // The sink comes back with its version unchanged, active again (a new token).
    const sink = (await api("GET", `${SRC}/back/sinks/kept`)).body;
    expect(sink.version).toMatchObject({ number: 1, description: "New sink." });
    expect(tokenOf("back", "kept")).toBeDefined();
    expect((await api("GET", `${SRC}/deleted`)).body.sources.map((s: any) => s.sourceId)).not.toContain("back");
  });

  it("answers 404 for a source that is not deleted, 400 without a token (test/stream/api/source/undelete-{not-found-404,missing-storage-token-400})", async () => {
    const missing = await api("PUT", `${SRC}/never/undelete`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ statusCode: 404, error: "stream.api.deletedSourceNotFound", message: 'Deleted source "never" not found in the branch.' });
    const noToken = await api("PUT", `${SRC}/never/undelete`, { token: null });
    expect(noToken.status).toBe(400);
    expect(noToken.body.error).toBe("stream.api.missingField");
  });
});

describe("deleted sinks", () => {
  it("lists and undeletes a sink (test/stream/api/sink/{list-deleted-ok,undelete-ok})", async () => {
    await task("POST", SRC, { name: "Holder", type: "http" });
    await task("POST", `${SRC}/holder/sinks`, sinkBody("Dropped"));
    await task("DELETE", `${SRC}/holder/sinks/dropped`);
    const listed = await api("GET", `${SRC}/holder/sinks/deleted`);
    expect(listed.body).toMatchObject({ sourceId: "holder", page: { totalCount: 1, lastId: "dropped" } });
    expect(listed.body.sinks[0]).toMatchObject({ sinkId: "dropped", deleted: { at: expect.any(String) } });
    expect((await api("GET", `${SRC}/holder/sinks/dropped`)).status).toBe(404);

    const done = await task("PUT", `${SRC}/holder/sinks/dropped/undelete`);
    expect(done.result).toBe("Sink has been undeleted successfully.");
    const sink = (await api("GET", `${SRC}/holder/sinks/dropped`)).body;
    expect(sink.version).toMatchObject({ number: 2, description: 'Undeleted to version "1".' });
    expect(tokenOf("holder", "dropped")).toBeDefined();
    expect((await api("GET", `${SRC}/holder/sinks/deleted`)).body.sinks).toEqual([]);
  });

  it("needs the source, then the deleted sink (test/stream/api/sink/{undelete-not-found-404,undelete-source-deleted})", async () => {
    const noSource = await api("PUT", `${SRC}/nowhere/sinks/x/undelete`);
    expect(noSource.body).toEqual({ statusCode: 404, error: "stream.api.sourceNotFound", message: 'Source "nowhere" not found in the branch.' });
    const noSink = await api("PUT", `${SRC}/holder/sinks/x/undelete`);
    expect(noSink.body).toEqual({ statusCode: 404, error: "stream.api.deletedSinkNotFound", message: 'Deleted sink "x" not found in the source.' });

    await task("POST", SRC, { name: "Parent", type: "http" });
    await task("POST", `${SRC}/parent/sinks`, sinkBody("Child"));
    await task("DELETE", `${SRC}/parent`);
    const parentGone = await api("PUT", `${SRC}/parent/sinks/child/undelete`);
    expect(parentGone.status).toBe(404);
    expect(parentGone.body.error).toBe("stream.api.sourceNotFound");
    // The deleted sinks of a deleted source are not listed either: the source must exist.
    expect((await api("GET", `${SRC}/parent/sinks/deleted`)).body.error).toBe("stream.api.sourceNotFound");
  });
});
