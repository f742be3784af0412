// Development branches in the services beside Storage's branch API: what the Stream API, Storage,
// the Job Queue and the Scheduler do with a development branch, each as the public sources named
// in the test say the real services do.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator/server";
import { appendRows, ensureTable, getTable } from "../../emulator/storage/tables";
import { call, pollUntil, type CallOptions } from "./helpers";
import { putFile, type FileWithCredentials } from "./s3-helpers";

let emu: Emulator;

beforeAll(async () => {
  emu = await startEmulator({ token: "master", limitedToken: "limited", taskDurationMs: 5 });
});
afterAll(() => emu.close());

const storage = (method: string, path: string, opts: CallOptions = {}) => call(emu.url, method, path, { token: "master", ...opts });
const stream = (method: string, path: string, opts: CallOptions = {}) => call(emu.urls.stream, method, path, { token: "master", ...opts });

async function storageJob(job: { id: number }) {
  return (await pollUntil(() => storage("GET", `/v2/storage/jobs/${job.id}`), (r) => r.body.status === "success" || r.body.status === "error")).body;
}

async function createBranch(name: string): Promise<number> {
  const r = await storage("POST", "/v2/storage/dev-branches", { json: { name } });
  expect(r.status, r.text).toBe(202);
  const job = await storageJob(r.body);
  expect(job.status, JSON.stringify(job)).toBe("success");
  return job.results.id;
}

async function deleteBranch(id: number): Promise<void> {
  const r = await storage("DELETE", `/v2/storage/dev-branches/${id}`);
  expect(r.status, r.text).toBe(202);
  expect((await storageJob(r.body)).status).toBe("success");
}

async function streamTask(method: string, path: string, json: unknown): Promise<any> {
  const r = await stream(method, path, { json });
  expect(r.status, r.text).toBe(202);
  const done = await pollUntil(() => call(r.body.url, "GET", "", { token: "master" }), (t) => t.body.isFinished === true);
  expect(done.body.status, done.text).toBe("success");
  return done.body;
}

describe("the Stream API in a development branch", () => {
  // keboola/keboola-as-code internal/pkg/service/stream/dependencies/reqbranch.go: a branch the
  // service does not know is read from the Storage API and refused unless it is the default one
  // (TestBranchRequestScope_NotDefaultBranch: `currently only default branch is supported, branch
  // "456" is not default`, a BadRequestError); api/service/auth.go resolves the branch of every
  // path with `{branchId}` while authenticating.
  const notDefault = (id: number) => ({
    statusCode: 400,
    error: "stream.api.badRequest",
    message: `Currently only default branch is supported, branch "${id}" is not default.`,
  });

  it("refuses every endpoint of a development branch with 400, and creates nothing", async () => {
    const dev = await createBranch("stream-dev");
    const b = `/v1/branches/${dev}`;
    const source = { name: "In Dev", type: "http" };
    const sink = { name: "Sink", type: "table", table: { type: "keboola", tableId: "in.c-dev.events", mapping: { columns: [{ type: "body", name: "body" }] } } };
    for (const [method, path, json] of [
      ["GET", `${b}/sources`, undefined],
      ["POST", `${b}/sources`, source],
      ["GET", `${b}/sources/deleted`, undefined],
      ["GET", `${b}/aggregation/sources`, undefined],
      ["GET", `${b}/sources/in-dev`, undefined],
      ["PATCH", `${b}/sources/in-dev`, { name: "x" }],
      ["DELETE", `${b}/sources/in-dev`, undefined],
      ["GET", `${b}/sources/in-dev/settings`, undefined],
      ["PATCH", `${b}/sources/in-dev/settings`, { settings: [] }],
      ["POST", `${b}/sources/in-dev/test`, {}],
      ["PUT", `${b}/sources/in-dev/disable`, undefined],
      ["POST", `${b}/sources/in-dev/rotate-secret`, undefined],
      ["GET", `${b}/sources/in-dev/versions`, undefined],
      ["GET", `${b}/sources/in-dev/sinks`, undefined],
      ["POST", `${b}/sources/in-dev/sinks`, sink],
      ["GET", `${b}/sources/in-dev/sinks/sink`, undefined],
      ["GET", `${b}/sources/in-dev/sinks/sink/statistics/total`, undefined],
    ] as const) {
      const r = await stream(method, path, json === undefined ? {} : { json });
      expect([method, path, r.status, r.body]).toEqual([method, path, 400, notDefault(dev)]);
    }
    expect(Object.values(emu.state.stream.sources).some((s) => s.branchId === dev)).toBe(false);
    expect(Object.values(emu.state.stream.tasks).some((t) => t.branchId === dev)).toBe(false);
  });

  it("authenticates before it resolves the branch, and resolves it before the admin check of a write", async () => {
    const dev = await createBranch("stream-order");
    const path = `/v1/branches/${dev}/sources`;
    // The token header is decoded first (400 missingField), then the token verified: a token that
    // is not a master token is refused whatever the branch (stream/auth.ts).
    expect((await stream("GET", path, { token: null })).body.error).toBe("stream.api.missingField");
    expect((await stream("GET", path, { token: "limited" })).body).toMatchObject({ statusCode: 401, error: "stream.api.masterTokenRequired" });
    // A user without the admin role: the branch's refusal comes before the write's 403.
    emu.state.tokens.push({ ...emu.state.tokens[0]!, id: "1003", token: "guest", description: "Guest", admin: { id: 3, name: "Guest", role: "guest" } });
    expect((await stream("POST", path, { token: "guest", json: { name: "x", type: "http" } })).body).toEqual(notDefault(dev));
    expect((await stream("POST", "/v1/branches/default/sources", { token: "guest", json: { name: "x", type: "http" } })).status).toBe(403);
  });

  it("answers Storage's 404 for a development branch that was deleted", async () => {
    const dev = await createBranch("stream-gone");
    await deleteBranch(dev);
    const r = await stream("GET", `/v1/branches/${dev}/sources`);
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ statusCode: 404, error: "devBranch.notFound", message: `Branch id:"${dev}" was not found.` });
  });

  it("ingests into the default branch's table only, never into a development branch's table of the same id", async () => {
    // A sink's table is the table of the sink's branch (internal/pkg/service/stream/sink/type/
    // tablesink/keboola/bridge/file.go: `keboola.TableKey{BranchID: sink.BranchID, ...}`), and a
    // sink can only be in the default branch.
    const dev = await createBranch("stream-isolation");
    const tableId = "in.c-isolated.events";
    await storage("POST", `/v2/storage/branch/${dev}/buckets`, { json: { name: "isolated", stage: "in" } });
    const created = await storage("POST", `/v2/storage/branch/${dev}/buckets/in.c-isolated/tables-definition`, {
      json: { name: "events", columns: [{ name: "body", definition: { type: "VARCHAR" } }] },
    });
    expect((await storageJob(created.body)).status).toBe("success");

    await streamTask("POST", "/v1/branches/default/sources", { sourceId: "isolation", name: "Isolation", type: "http" });
    await streamTask("POST", "/v1/branches/default/sources/isolation/sinks", {
      sinkId: "events",
      name: "Events",
      type: "table",
      table: { type: "keboola", tableId, mapping: { columns: [{ type: "body", name: "body" }] } },
    });
    const source = (await stream("GET", "/v1/branches/default/sources/isolation")).body;
    expect(source.branchId).toBe(emu.state.project.defaultBranchId);
    const post = await call(source.http.url, "POST", "", { body: '{"a":1}', headers: { "Content-Type": "application/json" } });
    expect(post.status, post.text).toBe(200);

    const main = getTable(emu.context, emu.state.project.defaultBranchId, tableId);
    expect(main?.rows).toEqual([['{"a":1}']]);
    expect(getTable(emu.context, dev, tableId)?.rows).toEqual([]);
  });
});

describe("Storage in a development branch", () => {
  // What a branch sees of production's storage through the Storage API: nothing. In a project with
  // branched storage (the `storage-branches` feature) the branch-scoped endpoints answer the
  // branch's own objects only, with production's ids (keboola/mcp-server
  // feature_spec/branched_storage_support/implementation_plan.md, "verified via curl":
  // `branch/{id}/buckets` returns ONLY branched objects; test_results.md: 9 production and 2 branch
  // buckets seen apart); without it `branch/{id}/buckets` is empty (the same documents: branched
  // buckets live in the default endpoint, where jobs wrote them under prefixed names). The
  // keboola/storage-api-php-client tests (commit f1d929a7) assert the isolation:
  // tests/Backend/SOX/BranchStorageTest.php testCrossCrudBucket (a bucket of one branch is 404 in
  // the other, both ways; each branch creates and drops its own), testListingTablesBuckets (the
  // branch lists only the table it pulled, under production's ids), and
  // BranchFileStorageTest.php testCrossCrudFile (files likewise).
  const main = () => emu.state.project.defaultBranchId;

  async function productionTable(bucket: string, name: string, rows: string[][]): Promise<string> {
    await storage("POST", "/v2/storage/buckets", { json: { name: bucket, stage: "in" } });
    const tableId = `in.c-${bucket}.${name}`;
    appendRows(ensureTable(emu.context, main(), tableId, ["id", "name"]), rows.map(([id, n]) => ({ id: id!, name: n! })), Date.now());
    return tableId;
  }

  it("lists and reads none of production's buckets and tables; what the branch creates or drops stays in it", async () => {
    const tableId = await productionTable("prod-only", "languages", [["1", "en"]]);
    const dev = await createBranch("storage-isolation");
    const b = `/v2/storage/branch/${dev}`;
    expect((await storage("GET", `${b}/buckets`)).body).toEqual([]);
    expect((await storage("GET", `${b}/tables`)).body).toEqual([]);
    expect((await storage("GET", `${b}/buckets/in.c-prod-only`)).body).toMatchObject({ code: "storage.buckets.notFound" });
    expect((await storage("GET", `${b}/tables/${tableId}`)).status).toBe(404);

    // The same id in the branch is another bucket; dropping it leaves production's.
    const created = await storage("POST", `${b}/buckets`, { json: { name: "prod-only", stage: "in" } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: "in.c-prod-only", idBranch: dev });
    expect((await storage("GET", `${b}/buckets/in.c-prod-only/tables`)).body).toEqual([]);
    expect((await storage("DELETE", `${b}/buckets/in.c-prod-only`)).status).toBe(204);
    expect((await storage("GET", "/v2/storage/buckets/in.c-prod-only")).body).toMatchObject({ id: "in.c-prod-only", idBranch: main() });
    expect((await storage("GET", `/v2/storage/tables/${tableId}`)).body.rowsCount).toBe(1);

    // And the other way: a bucket of the branch is not production's.
    await storage("POST", `${b}/buckets`, { json: { name: "dev-only", stage: "out" } });
    expect((await storage("GET", "/v2/storage/buckets/out.c-dev-only")).status).toBe(404);
    expect((await storage("GET", "/v2/storage/buckets")).body.map((x: { id: string }) => x.id)).not.toContain("out.c-dev-only");
  });

  it("keeps each branch's files apart: a file of the other branch is not found", async () => {
    const dev = await createBranch("storage-files");
    const inMain = (await storage("POST", "/v2/storage/files/prepare", { json: { name: "main.txt" } })).body;
    const inDev = (await storage("POST", `/v2/storage/branch/${dev}/files/prepare`, { json: { name: "dev.txt" } })).body;
    expect((await storage("GET", `/v2/storage/branch/${dev}/files/${inMain.id}`)).body).toMatchObject({ code: "storage.files.notFound", error: "File not found." });
    expect((await storage("GET", `/v2/storage/files/${inDev.id}`)).status).toBe(404);
    expect((await storage("DELETE", `/v2/storage/files/${inDev.id}`)).status).toBe(404);
    expect((await storage("GET", `/v2/storage/branch/${dev}/files/${inDev.id}`)).body).toMatchObject({ id: inDev.id, name: "dev.txt" });
    expect((await storage("GET", `/v2/storage/branch/${dev}/files`)).body.map((f: { id: number }) => f.id)).toEqual([inDev.id]);
    expect((await storage("DELETE", `/v2/storage/branch/${dev}/files/${inDev.id}`)).status).toBe(204);
    expect((await storage("GET", `/v2/storage/files/${inMain.id}`)).status).toBe(200);
  });

  it("pulls a production table into the branch with its data and metadata, creating the branch's bucket", async () => {
    const tableId = await productionTable("pulled", "languages", [["1", "en"], ["2", "cs"]]);
    await storage("POST", `/v2/storage/tables/${tableId}/metadata`, {
      json: { provider: "test", metadata: [{ key: "key1", value: "testvalTable" }], columnsMetadata: { id: [{ key: "key1", value: "testvalCol" }] } },
    });
    const production = (await storage("GET", `/v2/storage/tables/${tableId}`)).body;
    const dev = await createBranch("storage-pull");
    // A minute later (the emulated clock), so the copy's `created` shows it is the pull's.
    expect((await call(emu.url, "POST", "/_emulator/clock", { json: { advance: "1m" } })).status).toBe(200);
    const b = `/v2/storage/branch/${dev}`;

    const r = await storage("POST", `${b}/tables/${tableId}/pull`);
    expect(r.status, r.text).toBe(202);
    // apiary.apib "Pull table from default branch to dev branch".
    expect(r.body).toMatchObject({ status: "waiting", tableId, operationName: "devBranchTablePull", operationParams: { sourceBranchId: main(), targetBranchId: dev }, results: null });
    const job = await storageJob(r.body);
    expect(job.status).toBe("success");
    expect(job.results.id).toBe(tableId);

    // PullTableTest testPullTableFromDefaultBranch.
    const pulled = (await storage("GET", `${b}/tables/${tableId}`)).body;
    expect(pulled).toMatchObject({ id: tableId, columns: ["id", "name"], rowsCount: 2, bucket: { id: "in.c-pulled", idBranch: dev } });
    expect(pulled.created).not.toBe(production.created);
    expect(pulled.metadata.map((m: { key: string; value: string }) => [m.key, m.value])).toEqual([["key1", "testvalTable"]]);
    expect(pulled.columnMetadata.id.map((m: { key: string; value: string }) => [m.key, m.value])).toEqual([["key1", "testvalCol"]]);
    const bucket = (await storage("GET", `${b}/buckets/in.c-pulled`)).body;
    const system = bucket.metadata.filter((m: { provider: string }) => m.provider === "system").map((m: { key: string; value: string }) => [m.key, m.value]);
    expect(system).toEqual([["KBC.createdBy.branch.id", String(dev)], ["KBC.lastUpdatedBy.branch.id", String(dev)]]);
    const events = (await storage("GET", `${b}/events`)).body as Array<{ event: string; objectId: string; params: unknown; idBranch: number }>;
    expect(events.filter((e) => e.event === "storage.bucketCreated").map((e) => [e.objectId, e.idBranch])).toEqual([["in.c-pulled", dev]]);
    expect(events.find((e) => e.event === "storage.tableCopyToBucket")).toMatchObject({
      objectId: tableId,
      params: { sourceBucketId: "in.c-pulled", sourceBucketBranch: main(), destinationBucketId: "in.c-pulled", destinationBucketBranch: dev },
    });

    // Writes in the branch stay there (BranchStorageTest testTableDeleteRowsOperations and the like).
    await storage("POST", `${b}/tables/${tableId}/metadata`, { json: { provider: "test", metadata: [{ key: "branch", value: "dev" }] } });
    getTable(emu.context, dev, tableId)!.rows.push(["3", "de"]);
    expect((await storage("GET", `/v2/storage/tables/${tableId}`)).body).toMatchObject({ rowsCount: 2, metadata: [expect.objectContaining({ key: "key1" })] });

    // Pulling again overwrites the branch's table, its metadata too (testCrossBranchStorageMetadata),
    // keeps the bucket and its metadata, and creates no second bucket event.
    await storage("POST", `${b}/buckets/in.c-pulled/metadata`, { json: { provider: "test", metadata: [{ key: "branch", value: "dev" }] } });
    expect((await storageJob((await storage("POST", `${b}/tables/${tableId}/pull`)).body)).status).toBe("success");
    const again = (await storage("GET", `${b}/tables/${tableId}`)).body;
    expect(again.rowsCount).toBe(2);
    expect(again.metadata.map((m: { key: string }) => m.key)).toEqual(["key1"]);
    expect((await storage("GET", `${b}/buckets/in.c-pulled/metadata`)).body).toHaveLength(3);
    const after = (await storage("GET", `${b}/events`)).body as Array<{ event: string }>;
    expect(after.filter((e) => e.event === "storage.bucketCreated")).toHaveLength(1);
    expect(after.filter((e) => e.event === "storage.tableCopyToBucket")).toHaveLength(2);
  });

  it("pulls a typed table with its definition (PullTableTest testPullTypedTableFromDefaultBranch)", async () => {
    await storage("POST", "/v2/storage/buckets", { json: { name: "typed-pull", stage: "in" } });
    const created = await storage("POST", "/v2/storage/buckets/in.c-typed-pull/tables-definition", {
      json: { name: "languages", primaryKeysNames: [], columns: [{ name: "id", definition: { type: "INTEGER", nullable: false } }, { name: "name", definition: { type: "VARCHAR" } }] },
    });
    expect((await storageJob(created.body)).status).toBe("success");
    const production = (await storage("GET", "/v2/storage/tables/in.c-typed-pull.languages")).body;
    const dev = await createBranch("storage-pull-typed");
    expect((await storageJob((await storage("POST", `/v2/storage/branch/${dev}/tables/in.c-typed-pull.languages/pull`)).body)).status).toBe("success");
    const pulled = (await storage("GET", `/v2/storage/branch/${dev}/tables/in.c-typed-pull.languages`)).body;
    expect(pulled.isTyped).toBe(true);
    expect(pulled.definition).toEqual(production.definition);
  });

  it("refuses a pull in the default branch, by a token that may not write buckets, and of a table production lacks", async () => {
    const tableId = await productionTable("pull-refusals", "t", []);
    const dev = await createBranch("storage-pull-refusals");
    const inMain = await storage("POST", `/v2/storage/branch/default/tables/${tableId}/pull`);
    expect(inMain.status).toBe(400);
    // PullTableTest testTokenWithoutPrivilegesCannotPullTable.
    const limited = await storage("POST", `/v2/storage/branch/${dev}/tables/${tableId}/pull`, { token: "limited" });
    expect([limited.status, limited.body.error]).toEqual([403, "You don't have access to the resource."]);
    const missing = await storage("POST", `/v2/storage/branch/${dev}/tables/in.c-pull-refusals.nope/pull`);
    expect([missing.status, missing.body.code]).toEqual([404, "storage.tables.notFound"]);
    expect(getTable(emu.context, dev, tableId)).toBeUndefined();
  });

  it("deletes with a branch its files' content and the default branch's buckets its jobs wrote, nothing else", async () => {
    const dev = await createBranch("storage-delete");
    // BranchFileStorageTest testDeleteBranchDeleteFiles: the object store answers 404 afterwards.
    const prepared = (await storage("POST", `/v2/storage/branch/${dev}/files/prepare`, { json: { name: "upload.txt", federationToken: true } })).body as FileWithCredentials & { id: number };
    await putFile(prepared, "content");
    const { url } = (await storage("GET", `/v2/storage/branch/${dev}/files/${prepared.id}`)).body as { url: string };
    expect((await call(url, "GET", "")).text).toBe("content");

    // BranchBucketsTest testDropAllDevBucketsWhenDropBranch: a default-branch bucket with the system
    // metadata `KBC.createdBy.branch.id` of the branch goes; one of another branch, and a table
    // carrying that metadata in a production bucket, stay.
    const other = await createBranch("storage-delete-other");
    const tagged = async (bucket: string, branch: number) => {
      await storage("POST", "/v2/storage/buckets", { json: { name: bucket, stage: "in" } });
      await storage("POST", `/v2/storage/buckets/in.c-${bucket}/metadata`, { json: { provider: "system", metadata: [{ key: "KBC.createdBy.branch.id", value: String(branch) }] } });
    };
    await tagged(`${dev}-written`, dev);
    await tagged(`${other}-written`, other);
    const kept = await productionTable("kept", "t", [["1", "x"]]);
    await storage("POST", `/v2/storage/tables/${kept}/metadata`, { json: { provider: "system", metadata: [{ key: "KBC.createdBy.branch.id", value: String(dev) }] } });

    await deleteBranch(dev);
    expect((await call(url, "GET", "")).status).toBe(404);
    expect((await storage("GET", `/v2/storage/buckets/in.c-${dev}-written`)).status).toBe(404);
    expect((await storage("GET", `/v2/storage/buckets/in.c-${other}-written`)).status).toBe(200);
    expect((await storage("GET", `/v2/storage/tables/${kept}`)).status).toBe(200);
  });
});

describe("Queue jobs in a development branch", () => {
  // POST /jobs {component, config, branchId}: the Queue reads the component and the configuration
  // through a Storage client of that branch (keboola/job-queue-internal-api-php-client
  // JobFactory/JobRuntimeResolver.php: `ClientOptions(branchId: ...)`, `getBranchClient()`), so the
  // branch's configuration, rows and variables run; a Storage error there is 400 "Cannot resolve job
  // parameters: <Storage's message>"; the job's branchId is the branch it ran in
  // (`resolveBranchType`: `branchId` from the client, `branchType` dev or default). The Queue API's
  // OpenAPI spec lists `branchId` as a job filter (api-evangelist/keboola
  // openapi/_original/keboola-queue-api-openapi.yml; keboola-sdk-go queue_api.go
  // WithSearchJobsBranch sends it).
  const queue = (method: string, path: string, opts: CallOptions = {}) => call(emu.urls.queue, method, path, { token: "master", ...opts });
  const COMPONENT = "keboola.ex-generic-v2";
  const configs = (branch: string | number, component = COMPONENT) => `/v2/storage/branch/${branch}/components/${component}/configs`;

  async function runJob(body: Record<string, unknown>): Promise<any> {
    const created = await queue("POST", "/jobs", { json: { component: COMPONENT, mode: "run", ...body } });
    expect(created.status, created.text).toBe(201);
    return (await pollUntil(() => queue("GET", `/jobs/${created.body.id}`), (r) => r.body.isFinished === true)).body;
  }

  it("runs the branch's configuration, rows and variables, and answers the job's branchId", async () => {
    await storage("POST", configs("default", "keboola.variables"), { json: { name: "Vars", configurationId: "dev-vars", configuration: { variables: [{ name: "city", type: "string" }] } } });
    await storage("POST", `${configs("default", "keboola.variables")}/dev-vars/rows`, { json: { rowId: "values", configuration: { values: [{ name: "city", value: "Brno" }] } } });
    await storage("POST", configs("default"), {
      json: { name: "Runs", configurationId: "runs", configuration: { variables_id: "dev-vars", variables_values_id: "values", parameters: { where: "main", city: "{{city}}" } } },
    });
    await storage("POST", `${configs("default")}/runs/rows`, { json: { rowId: "r1", configuration: { parameters: { row: "main" } } } });
    const dev = await createBranch("queue-dev");
    // The branch's copies change; production's stay.
    await storage("PUT", `${configs(dev)}/runs`, { json: { configuration: { variables_id: "dev-vars", variables_values_id: "values", parameters: { where: "dev", city: "{{city}}" } } } });
    await storage("PUT", `${configs(dev)}/runs/rows/r1`, { json: { configuration: { parameters: { row: "dev" } } } });
    await storage("PUT", `${configs(dev, "keboola.variables")}/dev-vars/rows/values`, { json: { configuration: { values: [{ name: "city", value: "Praha" }] } } });

    const inDev = await runJob({ config: "runs", branchId: dev });
    expect(inDev).toMatchObject({ status: "success", branchId: String(dev), config: "runs" });
    expect(emu.state.queue.resolved[inDev.id]).toMatchObject({ configuration: { parameters: { where: "dev", city: "Praha" } }, rows: [{ id: "r1", configuration: { parameters: { row: "dev" } } }] });
    const inMain = await runJob({ config: "runs" });
    expect(inMain.branchId).toBe(String(emu.state.project.defaultBranchId));
    expect(emu.state.queue.resolved[inMain.id]).toMatchObject({ configuration: { parameters: { where: "main", city: "Brno" } }, rows: [{ id: "r1", configuration: { parameters: { row: "main" } } }] });

    // The job lists filter by branch.
    for (const path of ["/jobs", "/search/jobs"]) {
      const listed = (await queue("GET", `${path}?branchId=${dev}&config=runs`)).body as Array<{ id: string; branchId: string }>;
      expect(listed.map((j) => [j.id, j.branchId])).toEqual([[inDev.id, String(dev)]]);
    }
    const main = (await queue("GET", `/search/jobs?branchId=${emu.state.project.defaultBranchId}&config=runs`)).body as Array<{ id: string }>;
    expect(main.map((j) => j.id)).toEqual([inMain.id]);
  });

  it("refuses a branch Storage does not know, and a configuration the branch does not have", async () => {
    const unknown = await queue("POST", "/jobs", { json: { component: COMPONENT, config: "runs", mode: "run", branchId: 999999 } });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ error: 'Cannot resolve job parameters: Branch id:"999999" was not found.', code: 400, status: "error" });
    // Created in production after the branch was: the branch has no copy.
    const dev = await createBranch("queue-missing");
    await storage("POST", configs("default"), { json: { name: "Later", configurationId: "later" } });
    const missing = await queue("POST", "/jobs", { json: { component: COMPONENT, config: "later", mode: "run", branchId: dev } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('Cannot resolve job parameters: Configuration "later" not found');
    expect((await runJob({ config: "later" })).status).toBe("success");
  });

  it("runs a flow's tasks in the flow's branch", async () => {
    await storage("POST", configs("default"), { json: { name: "Task", configurationId: "flow-task", configuration: { parameters: { where: "main" } } } });
    await storage("POST", configs("default", "keboola.flow"), {
      json: { name: "Flow", configurationId: "dev-flow", configuration: { phases: [{ id: 1, name: "P" }], tasks: [{ id: 1, name: "T", phase: 1, task: { componentId: COMPONENT, configId: "flow-task", mode: "run" } }] } },
    });
    const dev = await createBranch("queue-flow");
    await storage("PUT", `${configs(dev)}/flow-task`, { json: { configuration: { parameters: { where: "dev" } } } });
    const flow = await runJob({ component: "keboola.flow", config: "dev-flow", branchId: dev });
    expect(flow.status).toBe("success");
    const tasks = (await queue("GET", `/search/jobs?parentRunId=${flow.runId}`)).body as Array<{ id: string; branchId: string }>;
    expect(tasks.map((t) => t.branchId)).toEqual([String(dev)]);
    expect(emu.state.queue.resolved[tasks[0]!.id]?.configuration).toMatchObject({ parameters: { where: "dev" } });
  });
});

describe("the Scheduler and development branches", () => {
  // The Scheduler API has no branch: activation names a configuration only (keboola-sdk-go
  // pkg/keboola/scheduler_api.go ActivateScheduleRequest sends `{configurationId,
  // configurationVersionId}`; the Scheduler's OpenAPI spec, api-evangelist/keboola
  // openapi/_original/keboola-scheduler-api-openapi.yml, has no branch parameter anywhere), and
  // keboola-as-code activates and deactivates schedules for the scheduler configurations of the
  // default branch only (internal/pkg/mapper/scheduler/remote.go isSchedulerConfigFromMainBranch),
  // so a development branch's scheduler configuration is never activated. The emulator reads the
  // configuration in the default branch: one that only a development branch has is not found, and
  // one both have is activated as production has it; its jobs run in the default branch.
  const scheduler = (method: string, path: string, opts: CallOptions = {}) => call(emu.urls.scheduler, method, path, { token: "master", ...opts });
  const schedulerConfigs = (branch: string | number) => `/v2/storage/branch/${branch}/components/keboola.scheduler/configs`;
  const target = { componentId: "keboola.ex-generic-v2", configurationId: "scheduled", mode: "run" };

  it("does not find a scheduler configuration only a development branch has", async () => {
    const dev = await createBranch("scheduler-dev-only");
    const created = await storage("POST", schedulerConfigs(dev), {
      json: { name: "Dev schedule", configurationId: "dev-only-schedule", configuration: { schedule: { cronTab: "0 * * * *", timezone: "UTC", state: "enabled" }, target } },
    });
    expect(created.status).toBe(201);
    const r = await scheduler("POST", "/schedules", { json: { configurationId: "dev-only-schedule" } });
    expect(r.status).toBe(404);
    expect((await scheduler("GET", "/schedules")).body.map((s: { configurationId: string }) => s.configurationId)).not.toContain("dev-only-schedule");
  });

  it("activates production's version of a scheduler configuration a branch changed, its jobs in the default branch", async () => {
    await storage("POST", "/v2/storage/branch/default/components/keboola.ex-generic-v2/configs", { json: { name: "Scheduled", configurationId: "scheduled" } });
    await storage("POST", schedulerConfigs("default"), {
      json: { name: "Hourly", configurationId: "both-schedule", configuration: { schedule: { cronTab: "0 * * * *", timezone: "UTC", state: "enabled" }, target } },
    });
    const dev = await createBranch("scheduler-both");
    await storage("PUT", `${schedulerConfigs(dev)}/both-schedule`, {
      json: { configuration: { schedule: { cronTab: "*/5 * * * *", timezone: "UTC", state: "disabled" }, target } },
    });
    const r = await scheduler("POST", "/schedules", { json: { configurationId: "both-schedule" } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.schedule).toEqual({ cronTab: "0 * * * *", timezone: "UTC", state: "enabled" });

    expect((await call(emu.url, "POST", "/_emulator/clock", { json: { advance: "1h" } })).status).toBe(200);
    const fired = (await scheduler("GET", `/schedules/${r.body.id}`)).body as { executions: Array<{ jobId: string }> };
    expect(fired.executions.length).toBeGreaterThan(0);
    const job = (await call(emu.urls.queue, "GET", `/jobs/${fired.executions[0]!.jobId}`, { token: "master" })).body;
    expect(job).toMatchObject({ config: "scheduled", branchId: String(emu.state.project.defaultBranchId) });
  });
});
