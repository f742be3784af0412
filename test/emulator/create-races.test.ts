// Creates of the same id sent at the same time: exactly one wins, the others get what the real
// services answer (checked against keboola/keboola-as-code for Stream and
// keboola/storage-api-php-client for Storage), never a second object.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator/server";
import { call, type CallResult } from "./helpers";

const APPLICATION_ERROR = /^Application error\. Please contact our support support@keboola\.com with exception id \(keboola-stream-api-[0-9a-zA-Z]{15}\) attached\.$/;

/** Tasks of this emulator stay "processing" until a test finishes them. */
let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ token: "master", taskDurationMs: 60_000 });
});
afterAll(() => emu.close());

const stream = (method: string, path: string, json?: unknown) => call(emu.urls.stream, method, path, { token: "master", json });
const storage = (method: string, path: string, json?: unknown) => call(emu.url, method, path, { token: "master", json });

/** Sends the same request `n` times at once. */
const race = (n: number, send: () => Promise<CallResult>) => Promise.all(Array.from({ length: n }, send));

/** Completes every running task now. */
function finishTasks(): Promise<unknown> {
  emu.state.deferred.forEach((d) => (d.at = 0));
  return stream("GET", "/v1/branches/default/sources");
}

const statuses = (results: CallResult[]) => results.map((r) => r.status).sort();

describe("stream creates racing on one id", () => {
  const SOURCES = "/v1/branches/default/sources";
  const SINKS = `${SOURCES}/race-source/sinks`;
  const sinkBody = { name: "Race Sink", type: "table", table: { type: "keboola", tableId: "in.c-race.t", mapping: { columns: [{ type: "body", name: "b" }] } } };

  it("sources: one task starts; the others fail while it runs, then get 409", async () => {
    const during = await race(4, () => stream("POST", SOURCES, { name: "Race Source", type: "http" }));
    expect(statuses(during)).toEqual([202, 500, 500, 500]);
    // keboola/keboola-as-code internal/pkg/service/stream/api/service/source.go: CreateSource
    // passes the task lock error (internal/pkg/service/common/task/node.go, "task already
    // running") on unmapped, so the API answers it as an unexpected error; only CreateSink
    // maps it to 409 (api/service/sink.go).
    for (const r of during.filter((x) => x.status === 500)) {
      expect(r.body).toMatchObject({ statusCode: 500, error: "stream.api.internalError", message: expect.stringMatching(APPLICATION_ERROR) });
    }

    await finishTasks();
    const after = await race(3, () => stream("POST", SOURCES, { name: "Race Source", type: "http" }));
    // keboola/keboola-as-code test/stream/api/source/create-011-exists-409/003-create-source/expected-response.json
    for (const r of after) {
      expect(r.status).toBe(409);
      expect(r.body).toEqual({ statusCode: 409, error: "stream.api.sourceAlreadyExists", message: 'Source "race-source" already exists in the branch.' });
    }
    const listed = await stream("GET", SOURCES);
    expect(listed.body.sources.filter((s: { sourceId: string }) => s.sourceId === "race-source")).toHaveLength(1);
  });

  it("sinks: one task starts; the others get 409 with the full sink key while it runs, then with the id", async () => {
    const during = await race(4, () => stream("POST", SINKS, sinkBody));
    expect(statuses(during)).toEqual([202, 409, 409, 409]);
    // keboola/keboola-as-code internal/pkg/service/stream/api/service/sink.go (TaskLockError ->
    // NewResourceAlreadyExistsError("sink", sink.SinkKey.String(), "source")) and
    // test/stream/api/sink/create-013-duplicite-creation/004-create-duplicate-sink/expected-response.json
    for (const r of during.filter((x) => x.status === 409)) {
      expect(r.body).toEqual({ statusCode: 409, error: "stream.api.sinkAlreadyExists", message: 'Sink "4242/101/race-source/race-sink" already exists in the source.' });
    }

    await finishTasks();
    const after = await race(3, () => stream("POST", SINKS, sinkBody));
    // keboola/keboola-as-code test/stream/api/sink/create-011-exists-409/005-create-sink-exists/expected-response.json
    for (const r of after) {
      expect(r.status).toBe(409);
      expect(r.body).toEqual({ statusCode: 409, error: "stream.api.sinkAlreadyExists", message: 'Sink "race-sink" already exists in the source.' });
    }
    expect((await stream("GET", SINKS)).body.sinks).toHaveLength(1);
  });
});

describe("storage creates racing on one id", () => {
  const CONFIGS = "/v2/storage/branch/default/components/keboola.ex-generic-v2/configs";

  it("configurations: one is created, the others get configurationAlreadyExists", async () => {
    const results = await race(4, () => storage("POST", CONFIGS, { name: "Race", configurationId: "race-cfg" }));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    // keboola/storage-api-php-client tests/Common/ComponentsTest.php testDuplicateConfigShouldNotBeCreated
    // asserts a client error with the string code (not the status or message).
    for (const r of results.filter((x) => x.status !== 201)) {
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
      expect(r.body).toMatchObject({ status: "error", code: "configurationAlreadyExists" });
    }
    const listed = await storage("GET", CONFIGS);
    expect(listed.body.filter((c: { id: string }) => c.id === "race-cfg")).toHaveLength(1);
  });

  it("an id in the trash: one create renews it, the others get configurationAlreadyExists", async () => {
    await storage("POST", CONFIGS, { name: "Trashed", configurationId: "race-trash" });
    await storage("POST", `${CONFIGS}/race-trash/rows`, { rowId: "r1", name: "Row" });
    expect((await storage("DELETE", `${CONFIGS}/race-trash`)).status).toBe(204);

    const results = await race(3, () => storage("POST", CONFIGS, { name: "Renewed", configurationId: "race-trash" }));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) expect(r.body.code).toBe("configurationAlreadyExists");
    // keboola/storage-api-php-client tests/Common/ComponentsTest.php testComponentConfigRenew:
    // creating a trashed id brings it back (out of the trash) with the version continuing
    // (create 1, row 2, delete 3 -> 4), "Configuration created" and no rows.
    const created = results.find((r) => r.status === 201)!;
    expect(created.body).toMatchObject({ id: "race-trash", name: "Renewed", version: 4, changeDescription: "Configuration created", isDeleted: false });
    expect((await storage("GET", `${CONFIGS}/race-trash`)).body.rows).toEqual([]);
    expect((await storage("GET", `${CONFIGS}?isDeleted=true`)).body.map((c: { id: string }) => c.id)).not.toContain("race-trash");
  });

  it("rows: one is created, the others get configurationRowAlreadyExists", async () => {
    await storage("POST", CONFIGS, { name: "Rows", configurationId: "race-rows" });
    const results = await race(4, () => storage("POST", `${CONFIGS}/race-rows/rows`, { rowId: "race-row", name: "Row" }));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    // The code as keboola/keboola-as-code internal/pkg/state/remote/manager.go expects it from
    // the Storage API for an existing row id.
    for (const r of results.filter((x) => x.status !== 201)) {
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
      expect(r.body).toMatchObject({ status: "error", code: "configurationRowAlreadyExists" });
    }
    const cfg = await storage("GET", `${CONFIGS}/race-rows`);
    expect(cfg.body).toMatchObject({ version: 2, rows: [expect.objectContaining({ id: "race-row" })] });
    expect(cfg.body.rows).toHaveLength(1);
  });
});
