import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator/server";
import { parseCommandLine } from "../../emulator/cli-options";
import { call, pollUntil } from "./helpers";

// Branch and configuration metadata, the configuration search, events, project features, the
// token list and the services of an empty project. Expected answers from
// keboola/storage-api-php-client (apiary.apib; tests/Common/BranchMetadataTest.php,
// ConfigurationMetadataTest.php, SearchComponentsConfigurationsTest.php, EventsTest.php at commit
// f1d929a7), keboola/sapi-python-client tests/mocks (branches_responses.py, token_responses.py)
// and keboola-sdk-go pkg/keboola (storage_branch.go, storage_config.go, storage_events.go,
// clean.go, api_endpoints.go).

let emu: Emulator;
const api = (method: string, path: string, opts: Parameters<typeof call>[3] = {}) => call(emu.url, method, path, { token: "master", ...opts });
const limited = (method: string, path: string, json?: unknown) => call(emu.url, method, path, { token: "limited", json });
const CONFIGS = "/v2/storage/branch/default/components/keboola.ex-generic-v2/configs";

beforeAll(async () => {
  emu = await startEmulator({ token: "master", limitedToken: "limited", taskDurationMs: 5 });
});
afterAll(() => emu.close());

describe("branch metadata", () => {
  it("sets, updates by key and deletes entries without a provider", async () => {
    const set = await api("POST", "/v2/storage/branch/default/metadata", {
      json: { metadata: [{ key: "KBC.SomeEnity.metadataKey", value: "some-value" }, { key: "someMetadataKey", value: "some-value" }] },
    });
    expect(set.status).toBe(201);
    expect(set.body).toEqual([
      { id: expect.stringMatching(/^\d+$/), key: "KBC.SomeEnity.metadataKey", value: "some-value", timestamp: expect.any(String) },
      { id: expect.stringMatching(/^\d+$/), key: "someMetadataKey", value: "some-value", timestamp: expect.any(String) },
    ]);
    const updated = await api("POST", "/v2/storage/branch/101/metadata", { json: { metadata: [{ key: "KBC.SomeEnity.metadataKey", value: "some-value-2" }] } });
    expect(updated.body).toHaveLength(2);
    expect(updated.body[0]).toMatchObject({ id: set.body[0].id, value: "some-value-2" });

    expect((await api("DELETE", `/v2/storage/branch/default/metadata/${set.body[0].id}`)).status).toBe(204);
    expect((await api("GET", "/v2/storage/branch/default/metadata")).body.map((m: { key: string }) => m.key)).toEqual(["someMetadataKey"]);
    const again = await api("DELETE", `/v2/storage/branch/default/metadata/${set.body[0].id}`);
    expect(again.status).toBe(404);
    expect(again.body.error).toBe(`Metadata with id "${set.body[0].id}" not found`);
  });

  it("needs the branch in the path, and a master token to write", async () => {
    expect((await api("GET", "/v2/storage/metadata")).status).toBe(404);
    const denied = await limited("POST", "/v2/storage/branch/default/metadata", { metadata: [{ key: "k", value: "v" }] });
    expect(denied.status).toBe(403);
    expect((await api("POST", "/v2/storage/branch/default/metadata", { json: { metadata: [] } })).status).toBe(400);
  });
});

describe("configuration metadata and the search", () => {
  beforeAll(async () => {
    for (const [component, id] of [["keboola.ex-generic-v2", "main-1"], ["keboola.ex-generic-v2", "main-2"], ["keboola.ex-generic-v2", "deleted"], ["keboola.wr-db-snowflake", "main-2"]]) {
      await api("POST", `/v2/storage/branch/default/components/${component}/configs`, { json: { name: id, configurationId: id } });
    }
    await api("POST", `${CONFIGS}/main-1/metadata`, { json: { metadata: [{ key: "KBC.SomeEnity.metadataKey", value: "some-value" }, { key: "someMetadataKey", value: "some-value" }] } });
    await api("POST", `${CONFIGS}/main-2/metadata`, { json: { metadata: [{ key: "KBC.SomeEnity.metadataKey", value: "some-value" }, { key: "transformationMain2Key", value: "some-value" }] } });
    await api("POST", `${CONFIGS}/deleted/metadata`, { json: { metadata: [{ key: "KBC.SomeEnity.metadataKey", value: "x" }] } });
    await api("POST", "/v2/storage/branch/default/components/keboola.wr-db-snowflake/configs/main-2/metadata", { json: { metadata: [{ key: "KBC.SomeEnity.metadataKey", value: "w" }] } });
    await api("DELETE", `${CONFIGS}/deleted`);
  });

  it("keeps the metadata of a configuration in the trash for its restore", async () => {
    expect((await api("GET", `${CONFIGS}/deleted/metadata`)).body).toMatchObject({ code: "storage.configuration.notFound", error: 'Configuration "deleted" not found' });
    await api("POST", `${CONFIGS}/deleted/restore`);
    expect((await api("GET", `${CONFIGS}/deleted/metadata`)).body.map((m: { value: string }) => m.value)).toEqual(["x"]);
    await api("DELETE", `${CONFIGS}/deleted`);
  });

  it("names the configuration and branch of a metadata id it does not have", async () => {
    const r = await api("DELETE", `${CONFIGS}/main-1/metadata/999999`);
    expect(r.status).toBe(404);
    expect(r.body.error).toBe('Metadata with id "999999" not found for "keboola.ex-generic-v2" configuration "main-1" in branch "101"');
  });

  it("searches configurations by component, id and metadata keys, without the trash", async () => {
    const search = async (query: string) => (await api("GET", `/v2/storage/branch/default/search/component-configurations?${query}`)).body as Array<{ idComponent: string; configurationId: string; metadata?: Array<{ key: string }> }>;
    const keys = (items: Awaited<ReturnType<typeof search>>) => items.map((i) => `${i.idComponent}/${i.configurationId}:${(i.metadata ?? []).map((m) => m.key).join(",")}`).sort();
    expect(keys(await search("componentId=keboola.ex-generic-v2&include=filteredMetadata"))).toEqual([
      "keboola.ex-generic-v2/main-1:KBC.SomeEnity.metadataKey,someMetadataKey",
      "keboola.ex-generic-v2/main-2:KBC.SomeEnity.metadataKey,transformationMain2Key",
    ]);
    expect(keys(await search("configurationId=main-2&include=filteredMetadata"))).toEqual([
      "keboola.ex-generic-v2/main-2:KBC.SomeEnity.metadataKey,transformationMain2Key",
      "keboola.wr-db-snowflake/main-2:KBC.SomeEnity.metadataKey",
    ]);
    expect(keys(await search("metadataKeys[]=transformationMain2Key&include=filteredMetadata"))).toEqual(["keboola.ex-generic-v2/main-2:transformationMain2Key"]);
    expect(await search("componentId=keboola.wr-db-snowflake&metadataKeys[]=transformationMain2Key&include=filteredMetadata")).toEqual([]);
    const withoutInclude = await search("componentId=keboola.ex-generic-v2&configurationId=main-2");
    expect(withoutInclude).toEqual([{ idComponent: "keboola.ex-generic-v2", configurationId: "main-2" }]);
    const noBranch = await api("GET", "/v2/storage/search/component-configurations");
    expect(noBranch.status).toBe(501);
    expect(noBranch.body.error).toContain("Not implemented");
  });

  // keboola-sdk-go pkg/keboola/storage_config_test.go TestConfigApiCalls (v2.21.0): the search the
  // SDK's ListConfigMetadataRequest sends (include=filteredMetadata, no keys) lists exactly the
  // configuration given metadata, and is empty once its only entry is deleted.
  it("finds only configurations that have metadata, none after their only entry is deleted", async () => {
    const cfgs = "/v2/storage/branch/default/components/keboola.ex-http/configs";
    await api("POST", cfgs, { json: { name: "No metadata yet", configurationId: "meta-later" } });
    const found = async () => ((await api("GET", "/v2/storage/branch/default/search/component-configurations?componentId=keboola.ex-http&include=filteredMetadata")).body as Array<{ configurationId: string; metadata: Array<{ id: string; key: string }> }>);
    expect(await found()).toEqual([]);
    await api("POST", `${cfgs}/meta-later/metadata`, { json: { metadata: [{ key: "KBC.KaC.meta1", value: "value" }] } });
    const listed = await found();
    expect(listed.map((c) => [c.configurationId, c.metadata.map((m) => m.key)])).toEqual([["meta-later", ["KBC.KaC.meta1"]]]);
    expect((await api("DELETE", `${cfgs}/meta-later/metadata/${listed[0].metadata[0].id}`)).status).toBe(204);
    expect(await found()).toEqual([]);
  });

  it("refuses to delete a configuration's metadata in a development branch (501)", async () => {
    const job = await api("POST", "/v2/storage/dev-branches", { json: { name: "meta-branch" } });
    const done = (await pollUntil(() => api("GET", `/v2/storage/jobs/${job.body.id}`), (r) => r.body.status === "success")).body;
    const meta = (await api("GET", `/v2/storage/branch/${done.results.id}/components/keboola.ex-generic-v2/configs/main-1/metadata`)).body;
    const r = await api("DELETE", `/v2/storage/branch/${done.results.id}/components/keboola.ex-generic-v2/configs/main-1/metadata/${meta[0].id}`);
    expect(r.status).toBe(501);
    expect(r.body.error).toBe("Delete metadata is not implemented for development branch");
  });
});

describe("events", () => {
  it("creates an external event as kbc sends it and answers its id and uuid", async () => {
    // keboola-as-code internal/pkg/service/cli/event/sender.go: params and results as JSON strings.
    const r = await api("POST", "/v2/storage/events", {
      json: { component: "keboola.keboola-as-code", type: "info", message: "Pull command done.", duration: 1.5, params: '{"command":"pull"}', results: '{"projectId":4242}', runId: "" },
    });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ id: expect.stringMatching(/^\d+$/), uuid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/) });
    const got = await api("GET", `/v2/storage/events/${r.body.uuid}`);
    expect(got.body).toMatchObject({
      id: r.body.id,
      event: "ext.keboola.keboola-as-code.",
      component: "keboola.keboola-as-code",
      message: "Pull command done.",
      type: "info",
      params: { command: "pull" },
      results: { projectId: 4242 },
      performance: { duration: 1.5 },
      idBranch: 101,
      token: { id: "1001", name: "Master token" },
    });
  });

  it("lists the branch's events newest first, filtered, and a token's own only for other tokens", async () => {
    await api("POST", "/v2/storage/events", { json: { component: "dummy", message: "dummy1", runId: "run-1" } });
    await api("POST", "/v2/storage/events", { json: { component: "dummy", message: "dummy2", runId: "run-1" } });
    await limited("POST", "/v2/storage/events", { component: "dummy", message: "by limited", runId: "run-1" });
    const all = (await api("GET", "/v2/storage/events?runId=run-1")).body.map((e: { message: string }) => e.message);
    expect(all).toEqual(["by limited", "dummy2", "dummy1"]);
    expect((await api("GET", "/v2/storage/events?runId=run-1&sortOrder=asc&limit=2")).body.map((e: { message: string }) => e.message)).toEqual(["dummy1", "dummy2"]);
    expect((await limited("GET", "/v2/storage/events?runId=run-1")).body.map((e: { message: string }) => e.message)).toEqual(["by limited"]);
  });

  it("refuses an event without a component, of an unknown type, or over 200 KB", async () => {
    expect((await api("POST", "/v2/storage/events", { json: { message: "x" } })).status).toBe(400);
    expect((await api("POST", "/v2/storage/events", { json: { component: "c", message: "x", type: "homeless" } })).status).toBe(400);
    const big = await api("POST", "/v2/storage/events", { json: { component: "c", message: "x".repeat(250000) } });
    expect(big.body.code).toBe("requestTooLarge");
  });
});

describe("tokens and the project", () => {
  it("lists the features of a real project by default, and others when asked", async () => {
    const verify = await api("GET", "/v2/storage/tokens/verify");
    expect(verify.body.owner.features).toEqual(["syrup-jobs-limit-10", "oauth-v3", "queuev2", "storage-types", "allow-ai", "alternat"]);
    const other = await startEmulator({ token: "t", projectFeatures: ["new-native-types"] });
    try {
      expect((await call(other.url, "GET", "/v2/storage/tokens/verify", { token: "t" })).body.owner.features).toEqual(["new-native-types"]);
    } finally {
      await other.close();
    }
    const cli = parseCommandLine(["--token", "t", "--project-feature", "a", "--project-feature", "b"]);
    expect(cli.kind === "options" && cli.options.projectFeatures).toEqual(["a", "b"]);
  });

  it("lists the project's tokens and deletes one that is not a master token", async () => {
    const list = await api("GET", "/v2/storage/tokens");
    expect(list.body.map((t: { id: string; isMasterToken: boolean }) => [t.id, t.isMasterToken])).toEqual([["1001", true], ["1002", false]]);
    expect(list.body[0]).not.toHaveProperty("owner");
    // A token without the right to manage tokens lists only itself (storage-api-php-client
    // tests/Common/TokensTest.php testTokenWithoutTokensManagePermissionCanListAndViewOnlySelf).
    const own = await limited("GET", "/v2/storage/tokens");
    expect(own.status).toBe(200);
    expect(own.body.map((t: { id: string }) => t.id)).toEqual(["1002"]);
    expect((await api("DELETE", "/v2/storage/tokens/1001")).status).toBe(403);
    expect((await api("DELETE", "/v2/storage/tokens/1002")).status).toBe(204);
    expect((await limited("GET", "/v2/storage/tokens/verify")).status).toBe(401);
  });
});

// The Notification service keeps subscriptions (notification-service.test.ts); a new project has none.
describe("services of an empty project", () => {
  it("lists notification, data-science and editor in the index, each answering an empty list for a new project", async () => {
    const index = (await call(emu.url, "GET", "/v2/storage?exclude=components")).body;
    const services = new Map<string, string>(index.services.map((s: { id: string; url: string }) => [s.id, s.url]));
    for (const id of ["notification", "data-science", "editor", "encryption", "queue", "scheduler", "stream", "import"]) expect(services.has(id)).toBe(true);
    for (const [id, path] of [["notification", "/project-subscriptions"], ["data-science", "/apps?type[]=python&limit=500"], ["editor", "/sql/sessions"]]) {
      const base = services.get(id)!;
      const r = await call(base, "GET", path, { token: "master" });
      expect(r.status).toBe(200);
      expect(r.body).toEqual([]);
      expect((await call(base, "GET", path, { token: null })).status).toBe(401);
    }
    expect((await api("GET", "/v2/storage/branch/default/workspaces")).body).toEqual([]);
  });
});
