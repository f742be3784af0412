// Stream API of the emulator: sources, sinks, settings, tasks, auth and errors, checked against
// the real service's statuses, shapes and messages.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator/server";
import { ensureTable, getBucket, getTable } from "../../emulator/storage/tables";
import { call, pollUntil, type CallOptions } from "./helpers";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const BY = { type: "user", tokenId: "1001", tokenDesc: "Master token", userId: "1", userName: "Emulated Admin" };
const MISSING_TOKEN = { statusCode: 400, error: "stream.api.missingField", message: '"X-StorageApi-Token" is missing from header.' };
const APPLICATION_ERROR = /^Application error\. Please contact our support support@keboola\.com with exception id \(keboola-stream-api-[0-9a-zA-Z]{15}\) attached\.$/;

let em: Emulator;
/** Tasks of this emulator stay "processing" for the whole test run. */
let slow: Emulator;

beforeAll(async () => {
  em = await startEmulator({ token: "master", limitedToken: "limited", taskDurationMs: 20 });
  slow = await startEmulator({ token: "master", taskDurationMs: 60_000 });
});

afterAll(async () => {
  await em?.close();
  await slow?.close();
});

const api = (method: string, path: string, opts: CallOptions = {}, on: Emulator = em) =>
  call(on.urls.stream, method, path, { token: "master", ...opts });

async function wait(task: { url: string }): Promise<any> {
  const res = await pollUntil(
    () => call(task.url, "GET", "", { token: "master" }),
    (r) => r.status !== 200 || r.body.isFinished === true,
  );
  expect(res.status, res.text).toBe(200);
  return res.body;
}

async function createSource(body: Record<string, unknown>): Promise<any> {
  const res = await api("POST", "/v1/branches/default/sources", { json: body });
  expect(res.status, res.text).toBe(202);
  return wait(res.body);
}

const sinkBody = (name: string, tableId: string, columns: unknown[], extra: Record<string, unknown> = {}) => ({
  name,
  type: "table",
  ...extra,
  table: { type: "keboola", tableId, mapping: { columns } },
});

async function createSink(sourceId: string, body: Record<string, unknown>): Promise<any> {
  const res = await api("POST", `/v1/branches/default/sources/${sourceId}/sinks`, { json: body });
  expect(res.status, res.text).toBe(202);
  return wait(res.body);
}

const UUID_BODY = [
  { type: "uuid", name: "id" },
  { type: "body", name: "body" },
];

describe("public URLs", () => {
  it("writes the configured public URLs into its answers, as STREAM_API_PUBLIC_URL and STREAM_SOURCE_HTTP_PUBLIC_URL do", async () => {
    // keboola-as-code test/stream/api/api_test.go configures these two for every recorded case;
    // the cases' answers (e.g. test/stream/api/base/api-startup, source/create-001-minimal-and-get)
    // carry them in the documentation link, task and object urls and the ingestion url.
    const pub = await startEmulator({
      token: "master",
      taskDurationMs: 1,
      streamPublicUrls: { api: "https://stream.keboola.local", in: "https://stream-in.keboola.local" },
    });
    try {
      const index = await call(pub.urls.stream, "GET", "/v1");
      expect(index.body).toEqual({ api: "stream", documentation: "https://stream.keboola.local/v1/documentation" });
      const created = await api("POST", "/v1/branches/default/sources", { json: { name: "Public", type: "http" } }, pub);
      expect(created.body.url).toMatch(/^https:\/\/stream\.keboola\.local\/v1\/tasks\/api\.create\.source\/101\/public\//);
      // The task is still served at the emulator's own address, under the public url's path.
      const done = await pollUntil(
        () => call(pub.urls.stream, "GET", new URL(created.body.url).pathname, { token: "master" }),
        (r) => r.body.isFinished === true,
      );
      expect(done.body.outputs.url).toBe("https://stream.keboola.local/v1/branches/101/sources/public");
      const source = await api("GET", "/v1/branches/default/sources/public", {}, pub);
      expect(source.body.http.url).toMatch(/^https:\/\/stream-in\.keboola\.local\/stream\/4242\/public\/[0-9a-zA-Z]{48}$/);
    } finally {
      await pub.close();
    }
  });
});

describe("service", () => {
  it("redirects / to the index and answers unknown paths", async () => {
    const index = await call(em.urls.stream, "GET", "/");
    expect(index.status).toBe(200);
    expect(index.body).toEqual({ api: "stream", documentation: `${em.urls.stream}/v1/documentation` });

    const unknown = await call(em.urls.stream, "GET", "/foo/bar");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ statusCode: 404, error: "stream.api.endpointNotFound", message: 'No endpoint found for path "/foo/bar".' });

    const wrongMethod = await api("POST", "/v1/branches/default/sources/x");
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("Allow")).toBe("GET, PATCH, DELETE");
  });

  it("checks the token: missing, invalid, not master, not admin", async () => {
    for (const [method, path] of [
      ["GET", "/v1/branches/default/sources"],
      ["POST", "/v1/branches/default/sources/x/test"],
      ["DELETE", "/v1/branches/default/sources/x"],
      ["PUT", "/v1/branches/default/sources/x/disable"],
      ["GET", "/v1/tasks/foo/bar"],
    ]) {
      const res = await api(method, path, { token: null });
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(res.body).toEqual(MISSING_TOKEN);
    }

    const invalid = await api("GET", "/v1/branches/default/sources", { token: "nope" });
    expect(invalid.status).toBe(401);
    expect(invalid.body).toMatchObject({ statusCode: 401, error: "storage.tokenInvalid", message: "Invalid access token." });
    expect(invalid.body.exceptionId).toMatch(/^exception-[0-9a-f]{32}$/);

    // The project scope of the real service requires a master token, for reads too.
    for (const method of ["GET", "POST"]) {
      const limited = await api(method, "/v1/branches/default/sources", { token: "limited", json: method === "POST" ? { name: "X", type: "http" } : undefined });
      expect(limited.status).toBe(401);
      expect(limited.body).toEqual({
        statusCode: 401,
        error: "stream.api.masterTokenRequired",
        message: "Please provide a master token of a project administrator.",
      });
    }

    // A master token of a user without the admin role may read but not write.
    em.state.tokens.push({ ...em.state.tokens[0], id: "1003", token: "guest", description: "Guest", admin: { id: 2, name: "Guest", role: "guest" } } as never);
    expect((await api("GET", "/v1/branches/default/sources", { token: "guest" })).status).toBe(200);
    const write = await api("POST", "/v1/branches/default/sources", { token: "guest", json: { name: "Guest Source", type: "http" } });
    expect(write.status).toBe(403);
    expect(write.body).toEqual({ statusCode: 403, error: "stream.api.forbidden", message: "Only admin token can do write operations on streams." });

    // "Bearer <token>" is accepted as well.
    const bearer = await api("GET", "/v1/branches/default/sources", { token: null, headers: { "X-StorageApi-Token": "Bearer master" } });
    expect(bearer.status).toBe(200);
  });

  it("resolves branches: default, the default branch id, others", async () => {
    for (const branch of ["default", "101"]) {
      const res = await api("GET", `/v1/branches/${branch}/sources`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ projectId: 4242, branchId: 101 });
    }
    const unknown = await api("GET", "/v1/branches/999/sources");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ statusCode: 404, error: "devBranch.notFound", message: 'Branch id:"999" was not found.' });
    const invalid = await api("GET", "/v1/branches/main/sources");
    expect(invalid.status).toBe(400);
    expect(invalid.body).toEqual({ statusCode: 400, error: "stream.api.badRequest", message: 'Invalid branch: expected "default" or <int>, given "main".' });
  });
});

describe("sources", () => {
  it("creates a source in a task, the id derived from the name", async () => {
    const res = await api("POST", "/v1/branches/default/sources", { json: { name: "My Source", type: "http" } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      taskId: expect.stringMatching(/^api\.create\.source\/101\/my-source\/\d{4}-.*Z_[0-9a-zA-Z]{5}$/),
      type: "api.create.source",
      url: `${em.urls.stream}/v1/tasks/${res.body.taskId}`,
      status: "processing",
      isFinished: false,
      createdAt: expect.stringMatching(ISO),
    });
    const task = await wait(res.body);
    expect(task).toEqual({
      ...res.body,
      status: "success",
      isFinished: true,
      finishedAt: expect.stringMatching(ISO),
      duration: expect.any(Number),
      result: "Source has been created successfully.",
      outputs: { url: `${em.urls.stream}/v1/branches/101/sources/my-source`, projectId: 4242, branchId: 101, sourceId: "my-source" },
    });

    const get = await call(task.outputs.url, "GET", "", { token: "master" });
    expect(get.status).toBe(200);
    expect(get.body).toEqual({
      projectId: 4242,
      branchId: 101,
      sourceId: "my-source",
      type: "http",
      name: "My Source",
      description: "",
      http: { url: expect.stringMatching(new RegExp(`^${em.urls.streamIn}/stream/4242/my-source/[0-9a-zA-Z]{48}$`)) },
      version: { number: 1, hash: expect.stringMatching(/^[0-9a-f]{16}$/), description: "New source.", at: expect.stringMatching(ISO), by: BY },
      created: { at: expect.stringMatching(ISO), by: BY },
    });
  });

  it("normalises given ids and creates OTLP sources", async () => {
    const weird = await createSource({ sourceId: "!!!!~~~~weird|||id##", name: "My Source", type: "http", description: "Some description ...." });
    expect(weird.outputs.sourceId).toBe("weird-id");
    expect((await api("GET", "/v1/branches/default/sources/weird-id")).body.description).toBe("Some description ....");

    const otlp = await createSource({ name: "My OTLP Source", type: "otlp" });
    const get = await api("GET", `/v1/branches/default/sources/${otlp.outputs.sourceId}`);
    const base = `${em.urls.streamIn}/otlp/4242/my-otlp-source`;
    expect(get.body.otlp).toEqual({ url: `${base}/${get.body.otlp.secret}`, baseUrl: base, secret: expect.stringMatching(/^[0-9a-zA-Z]{48}$/) });
    expect(get.body.http).toBeUndefined();

    const empty = await api("POST", "/v1/branches/default/sources", { json: { name: "!!!", type: "http" } });
    expect(empty.body).toEqual({ statusCode: 400, error: "stream.api.badRequest", message: '"sourceId" must not be empty.' });
  });

  it("validates the create body with the recorded messages", async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ name: "My Source", type: "foo" }, "invalidEnumValue", 'Value of body.type must be one of "http", "otlp" but got value "foo".'],
      [{ sourceId: "", name: "Foo Bar", type: "http" }, "invalidLength", 'Length of body.sourceId must be greater or equal than 1 but got value "" (len=0)'],
      [
        { sourceId: "123456789-123456789-123456789-123456789-123456789", name: "Custom Name", type: "http" },
        "invalidLength",
        'Length of body.sourceId must be lesser or equal than 48 but got value "123456789-123456789-123456789-123456789-123456789" (len=49)',
      ],
      [{ name: "", type: "http" }, "invalidLength", 'Length of body.name must be greater or equal than 1 but got value "" (len=0)'],
      [
        { name: "123456789-123456789-123456789-123456789-1", type: "http" },
        "invalidLength",
        'Length of body.name must be lesser or equal than 40 but got value "123456789-123456789-123456789-123456789-1" (len=41)',
      ],
      [{ type: "http" }, "missingField", '"name" is missing from body.'],
      [{ name: 5, type: "http" }, "decodePayload", "Json: cannot unmarshal number into Go struct field CreateSourceRequestBody.name of type string."],
    ];
    for (const [body, code, message] of cases) {
      const res = await api("POST", "/v1/branches/default/sources", { json: body });
      expect(res.status, message).toBe(400);
      expect(res.body).toEqual({ statusCode: 400, error: `stream.api.${code}`, message });
    }
    const noBody = await api("POST", "/v1/branches/default/sources", { headers: { "Content-Type": "application/json" } });
    expect(noBody.body).toEqual({ statusCode: 400, error: "stream.api.missingPayload", message: "Missing required payload." });
    // Body problems are reported before a missing token.
    const both = await api("POST", "/v1/branches/default/sources", { token: null, json: { name: "", type: "http" } });
    expect(both.body.error).toBe("stream.api.invalidLength");
  });

  it("refuses an existing id: 409 once created, an unexpected error while the create task runs", async () => {
    await createSource({ name: "Dup Source", type: "http" });
    const again = await api("POST", "/v1/branches/default/sources", { json: { name: "Dup Source", type: "http" } });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ statusCode: 409, error: "stream.api.sourceAlreadyExists", message: 'Source "dup-source" already exists in the branch.' });

    const first = await api("POST", "/v1/branches/default/sources", { json: { name: "Running", type: "http" } }, slow);
    expect(first.status).toBe(202);
    // Not readable before the task completes.
    expect((await api("GET", "/v1/branches/default/sources/running", {}, slow)).status).toBe(404);
    const second = await api("POST", "/v1/branches/default/sources", { json: { name: "Running", type: "http" } }, slow);
    expect(second.status).toBe(500);
    expect(second.body).toMatchObject({ statusCode: 500, error: "stream.api.internalError", message: expect.stringMatching(APPLICATION_ERROR) });
  });

  it("lists sources page by page", async () => {
    const fresh = await startEmulator({ token: "master", taskDurationMs: 1 });
    try {
      const on = (m: string, p: string, o: CallOptions = {}) => api(m, p, o, fresh);
      const tasks = [];
      for (let i = 1; i <= 5; i++) tasks.push((await on("POST", "/v1/branches/default/sources", { json: { name: `My Source ${i}`, type: "http" } })).body);
      for (const t of tasks) expect((await wait(t)).status).toBe("success");

      const all = await on("GET", "/v1/branches/default/sources");
      expect(all.body.page).toEqual({ limit: 100, totalCount: 5, afterId: "", lastId: "my-source-5" });
      expect(all.body.sources.map((s: any) => s.sourceId)).toEqual(["my-source-1", "my-source-2", "my-source-3", "my-source-4", "my-source-5"]);

      const page2 = await on("GET", "/v1/branches/default/sources?limit=2&afterId=my-source-2");
      expect(page2.body.page).toEqual({ limit: 2, totalCount: 5, afterId: "my-source-2", lastId: "my-source-4" });
      expect(page2.body.sources.map((s: any) => s.sourceId)).toEqual(["my-source-3", "my-source-4"]);

      const end = await on("GET", "/v1/branches/default/sources?afterId=my-source-5");
      expect(end.body).toEqual({ projectId: 4242, branchId: 101, page: { limit: 100, totalCount: 5, afterId: "my-source-5", lastId: "" }, sources: [] });

      // The list starts at the end of afterId's prefix range, so ids that begin with afterId are
      // skipped too: keboola-as-code internal/pkg/service/common/etcdop/iterator/option.go `start`
      // (etcd.GetPrefixRangeEnd), whose iterator_test.go "startOffset(excluded)" logs the range
      // ["some/prefix/foo003", ...) for the offset "foo002".
      const prefix = await on("GET", "/v1/branches/default/sources?afterId=my-source");
      expect(prefix.body.sources).toEqual([]);
      expect(prefix.body.page).toEqual({ limit: 100, totalCount: 5, afterId: "my-source", lastId: "" });

      const zero = await on("GET", "/v1/branches/default/sources?limit=0");
      expect(zero.body).toEqual({ statusCode: 400, error: "stream.api.invalidRange", message: "Limit must be greater or equal than 1 but got value 0." });
      const text = await on("GET", "/v1/branches/default/sources?limit=abc");
      expect(text.body.message).toBe('Invalid value "abc" for "limit", must be a integer; limit must be greater or equal than 1 but got value 0.');
    } finally {
      await fresh.close();
    }
  });

  it("updates a source: versions, descriptions, type change with a new secret", async () => {
    await createSource({ name: "Upd Source", type: "http" });
    const path = "/v1/branches/default/sources/upd-source";
    const before = (await api("GET", path)).body;

    const t1 = await wait((await api("PATCH", path, { json: { name: "Upd Source Updated" } })).body);
    expect(t1).toMatchObject({ type: "api.update.source", status: "success", result: "Source has been updated successfully." });
    const v2 = (await api("GET", path)).body;
    expect(v2).toMatchObject({ name: "Upd Source Updated", version: { number: 2, description: "Updated." } });
    expect(v2.created).toEqual(before.created);

    await wait((await api("PATCH", path, { json: { changeDescription: "Super cool modification.", description: "New description." } })).body);
    expect((await api("GET", path)).body).toMatchObject({ description: "New description.", version: { number: 3, description: "Super cool modification." } });

    // Same type: the secret stays; another type: a new secret.
    await wait((await api("PATCH", path, { json: { type: "http" } })).body);
    const v4 = (await api("GET", path)).body;
    expect(v4.version.number).toBe(4);
    expect(v4.http.url).toBe(before.http.url);
    await wait((await api("PATCH", path, { json: { type: "otlp" } })).body);
    const v5 = (await api("GET", path)).body;
    expect(v5.http).toBeUndefined();
    expect(v5.otlp.secret).not.toBe(before.http.url.split("/").pop());

    const invalid = await api("PATCH", path, { json: { name: "" } });
    expect(invalid.body).toEqual({ statusCode: 400, error: "stream.api.invalidLength", message: 'Length of body.name must be greater or equal than 1 but got value "" (len=0)' });
    const missing = await api("PATCH", "/v1/branches/default/sources/nope", { json: { name: "X" } });
    expect(missing.body).toEqual({ statusCode: 404, error: "stream.api.sourceNotFound", message: 'Source "nope" not found in the branch.' });
  });

  it("disables and enables a source", async () => {
    await createSource({ name: "Sw Source", type: "http" });
    const path = "/v1/branches/default/sources/sw-source";
    const off = await wait((await api("PUT", `${path}/disable`)).body);
    expect(off).toMatchObject({ type: "api.disable.source", result: "Source has been disabled successfully." });
    const disabled = (await api("GET", path)).body;
    expect(disabled.version).toMatchObject({ number: 2, description: "Disabled." });
    expect(disabled.disabled).toEqual({ at: expect.stringMatching(ISO), by: BY, reason: "API" });

    const on = await wait((await api("PUT", `${path}/enable`)).body);
    expect(on.result).toBe("Source has been enabled successfully.");
    const enabled = (await api("GET", path)).body;
    expect(enabled.version).toMatchObject({ number: 3, description: "Enabled." });
    expect(enabled.disabled).toBeUndefined();

    for (const action of ["disable", "enable"]) {
      const res = await api("PUT", `/v1/branches/default/sources/nope/${action}`);
      expect(res.body).toEqual({ statusCode: 404, error: "stream.api.sourceNotFound", message: 'Source "nope" not found in the branch.' });
    }
  });

  // keboola-as-code test/stream/api/source/rotate-secret-{ok,not-found-404,missing-storage-token-400}.
  it("rotates a source's secret synchronously; the old ingestion URL is refused at once", async () => {
    await createSource({ name: "Rot Source", type: "http" });
    const path = "/v1/branches/default/sources/rot-source";
    const before = (await api("GET", path)).body;
    const rotated = await api("POST", `${path}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({
      ...before,
      http: { url: expect.stringMatching(new RegExp(`^${em.urls.streamIn}/stream/4242/rot-source/[0-9a-zA-Z]{48}$`)) },
      version: { number: 2, hash: expect.stringMatching(/^[0-9a-f]{16}$/), description: "Rotated secret.", at: expect.stringMatching(ISO), by: BY },
    });
    expect(rotated.body.http.url).not.toBe(before.http.url);
    expect((await api("GET", path)).body).toEqual(rotated.body);

    const oldPost = await call(before.http.url, "POST", "", { body: "{}" });
    expect(oldPost.status).toBe(404);
    expect(oldPost.body).toMatchObject({ statusCode: 404, error: "stream.in.noSourceFound", message: "The specified combination of projectID, sourceID and secret was not found." });
    expect((await call(rotated.body.http.url, "POST", "", { body: "{}" })).status).not.toBe(404);

    const otlp = await createSource({ name: "Rot OTLP", type: "otlp" });
    const otlpPath = `/v1/branches/default/sources/${otlp.outputs.sourceId}`;
    const otlpBefore = (await api("GET", otlpPath)).body.otlp;
    const otlpAfter = (await api("POST", `${otlpPath}/rotate-secret`)).body.otlp;
    expect(otlpAfter.secret).toMatch(/^[0-9a-zA-Z]{48}$/);
    expect(otlpAfter).toEqual({ url: `${otlpBefore.baseUrl}/${otlpAfter.secret}`, baseUrl: otlpBefore.baseUrl, secret: otlpAfter.secret });
    expect(otlpAfter.secret).not.toBe(otlpBefore.secret);

    const missing = await api("POST", "/v1/branches/default/sources/my-source-x/rotate-secret");
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ statusCode: 404, error: "stream.api.sourceNotFound", message: 'Source "my-source-x" not found in the branch.' });
    const noToken = await api("POST", `${path}/rotate-secret`, { token: null });
    expect(noToken.status).toBe(400);
    expect(noToken.body).toEqual(MISSING_TOKEN);
    expect((await api("GET", `${path}/rotate-secret`)).status).toBe(405);
  });

  it("soft-deletes a source; creating the id again brings it back with a new secret", async () => {
    await createSource({ name: "Del Source", type: "http" });
    await createSink("del-source", sinkBody("Del Sink", "in.c-del.t", UUID_BODY));
    const path = "/v1/branches/default/sources/del-source";
    const before = (await api("GET", path)).body;

    const task = await wait((await api("DELETE", path)).body);
    expect(task).toMatchObject({ type: "api.delete.source", result: "Source has been deleted successfully." });
    expect((await api("GET", path)).status).toBe(404);
    expect((await api("DELETE", path)).body).toEqual({ statusCode: 404, error: "stream.api.sourceNotFound", message: 'Source "del-source" not found in the branch.' });
    expect(getTable(em.context, 101, "in.c-del.t")).toBeDefined();

    await createSource({ name: "Del Source", type: "http" });
    const after = (await api("GET", path)).body;
    expect(after.http.url).not.toBe(before.http.url);
    expect(after.created).toEqual(before.created);
    expect(after.version).toMatchObject({ number: 2, description: "New source." });
    // Its sinks stay deleted.
    expect((await api("GET", `${path}/sinks`)).body.sinks).toEqual([]);
  });

  it("deletes a source with its sinks in one task, as recorded (test/stream/api/source/delete-001-ok)", async () => {
    // keboola/keboola-as-code: the source's delete soft-deletes every active sink of it in the same
    // operation, `deleted.directly: false` (definition/repository/sink/sink_delete.go,
    // deleteSinksOnSourceDelete; fixtures/sink_delete_snapshot_002.txt); a sink deleted before keeps
    // `directly: true`. A sink of a deleted source is then "source not found" (sink_exists.go).
    await createSource({ name: "With Sinks", type: "http" });
    for (const name of ["First", "Second", "Gone Before"]) await createSink("with-sinks", sinkBody(name, `in.c-withsinks.${name.replace(" ", "_")}`, UUID_BODY));
    await wait((await api("DELETE", "/v1/branches/default/sources/with-sinks/sinks/gone-before")).body);
    const before = structuredClone(em.state.stream.sinks["101/with-sinks/gone-before"]!.deleted);

    const res = await api("DELETE", "/v1/branches/default/sources/with-sinks");
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      taskId: expect.stringMatching(/^api\.delete\.source\/101\/with-sinks\/\d{4}-.*Z_[0-9a-zA-Z]{5}$/),
      type: "api.delete.source",
      url: `${em.urls.stream}/v1/tasks/${res.body.taskId}`,
      status: "processing",
      isFinished: false,
      createdAt: expect.stringMatching(ISO),
    });
    expect(await wait(res.body)).toEqual({
      ...res.body,
      status: "success",
      isFinished: true,
      finishedAt: expect.stringMatching(ISO),
      duration: expect.any(Number),
      result: "Source has been deleted successfully.",
      outputs: { url: `${em.urls.stream}/v1/branches/101/sources/with-sinks`, projectId: 4242, branchId: 101, sourceId: "with-sinks" },
    });

    const source = em.state.stream.sources["101/with-sinks"]!;
    expect(source.deleted).toEqual({ at: expect.stringMatching(ISO), by: BY, directly: true });
    for (const sinkId of ["first", "second"]) {
      expect(em.state.stream.sinks[`101/with-sinks/${sinkId}`]!.deleted, sinkId).toEqual({ ...source.deleted, directly: false });
      expect(em.state.stream.sinkTokens[`101/with-sinks/${sinkId}`], sinkId).toBeUndefined();
    }
    expect(em.state.stream.sinks["101/with-sinks/gone-before"]!.deleted).toEqual(before);
    expect(before).toMatchObject({ directly: true });

    // Whatever addresses a sink of the deleted source answers 404: nothing is left to delete or reset.
    // Reading a sink's settings looks the sink up alone (sink.go GetSinkSettings), the rest the source first.
    const noSource = { statusCode: 404, error: "stream.api.sourceNotFound", message: 'Source "with-sinks" not found in the branch.' };
    const reset = { settings: [{ key: "storage.level.staging.upload.trigger.count", value: null }] };
    for (const [method, path, json, body] of [
      ["GET", "/sinks/first", undefined, noSource],
      ["DELETE", "/sinks/first", undefined, noSource],
      ["PATCH", "/sinks/second/settings", reset, noSource],
      ["PATCH", "/settings", reset, noSource],
      ["GET", "/sinks/second/settings", undefined, { statusCode: 404, error: "stream.api.sinkNotFound", message: 'Sink "second" not found in the source.' }],
    ] as const) {
      const r = await api(method, `/v1/branches/default/sources/with-sinks${path}`, json ? { json } : {});
      expect({ [`${method} ${path}`]: r.body }).toEqual({ [`${method} ${path}`]: body });
      expect(r.status).toBe(404);
    }
  });

  it("deletes a source with cascade: sinks purged, tables and bucket deleted", async () => {
    await createSource({ name: "Cas Source", type: "http" });
    await createSink("cas-source", sinkBody("Cas Sink", "in.c-cas.t1", UUID_BODY));
    ensureTable(em.context, 101, "in.c-cas.other", ["x"]);
    const task = await wait((await api("DELETE", "/v1/branches/default/sources/cas-source?cascade=true")).body);
    expect(task.result).toBe("Source and its destination tables and bucket have been deleted.");
    expect(getTable(em.context, 101, "in.c-cas.t1")).toBeUndefined();
    expect(getTable(em.context, 101, "in.c-cas.other")).toBeUndefined();
    expect(getBucket(em.context, 101, "in.c-cas")).toBeUndefined();

    await createSource({ name: "Cas Source", type: "http" });
    expect((await api("GET", "/v1/branches/default/sources/cas-source")).body.version.number).toBe(1);

    const badCascade = await api("DELETE", "/v1/branches/default/sources/cas-source?cascade=maybe");
    expect(badCascade.body.message).toBe('Invalid value "maybe" for "cascade", must be a boolean.');
  });

  it("fails a create task chosen by fault injection, leaving nothing behind", async () => {
    em.setFaults({ failTasks: ["api.create.source"] });
    try {
      const res = await api("POST", "/v1/branches/default/sources", { json: { name: "Failing Source", type: "http" } });
      const task = await wait(res.body);
      expect(task).toEqual({
        taskId: res.body.taskId,
        type: "api.create.source",
        url: res.body.url,
        status: "error",
        isFinished: true,
        createdAt: res.body.createdAt,
        finishedAt: expect.stringMatching(ISO),
        duration: expect.any(Number),
        error: "Unknown error",
      });
      expect((await api("GET", "/v1/branches/default/sources/failing-source")).status).toBe(404);
    } finally {
      em.setFaults({});
    }
  });

  it("limits a branch to 100 sources (the create task fails)", async () => {
    const fresh = await startEmulator({ token: "master", taskDurationMs: 1 });
    try {
      let last: any;
      for (let i = 0; i < 100; i++) last = (await api("POST", "/v1/branches/default/sources", { json: { name: `S ${i}`, type: "http" } }, fresh)).body;
      await wait(last);
      const over = await api("POST", "/v1/branches/default/sources", { json: { name: "S 100", type: "http" } }, fresh);
      expect(over.status).toBe(202);
      const task = await wait(over.body);
      expect(task).toMatchObject({ status: "error", error: "Source count limit reached in the branch, the maximum is 100." });
      expect(task.outputs).toBeUndefined();
    } finally {
      await fresh.close();
    }
  });
});

describe("tasks", () => {
  it("has no endpoint without a task id", async () => {
    // The router's catch-all `/v1/tasks/*taskId` (httptreemux, keboola-as-code
    // internal/pkg/service/common/httpserver/muxer.go) does not match an empty value: httptreemux
    // v5 README, "A catch-all path will not match an empty string". Not even the token is checked.
    for (const path of ["/v1/tasks", "/v1/tasks/"]) {
      const res = await api("GET", path, { token: null });
      expect(res.status, path).toBe(404);
      expect(res.body).toEqual({ statusCode: 404, error: "stream.api.endpointNotFound", message: `No endpoint found for path "${path}".` });
    }
  });

  it("answers an unknown task id as an unexpected error, like the real service", async () => {
    const res = await api("GET", "/v1/tasks/api.create.source/101/x/2024-01-01T00:00:00.000Z_abcde");
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ error: "stream.api.internalError", message: expect.stringMatching(APPLICATION_ERROR) });
    expect(res.body.exceptionId).toMatch(/^keboola-stream-api-/);
  });
});

describe("sinks", () => {
  beforeAll(async () => {
    await createSource({ name: "Sink Source", type: "http" });
  });
  const base = "/v1/branches/default/sources/sink-source";

  it("creates a sink, its table with the mapping's columns and a token", async () => {
    const task = await createSink("sink-source", sinkBody("My Sink", "in.c-my-bucket.my-table", [
      { type: "uuid", name: "id" },
      { type: "path", name: "path", path: "key", defaultValue: "unknown", rawString: true },
      { type: "template", name: "jsonnet", template: { language: "jsonnet", content: 'Body("key")' }, rawString: true },
      { type: "path", name: "plain", path: "a.b" },
    ]));
    expect(task).toMatchObject({
      type: "api.create.sink",
      status: "success",
      result: "Sink has been created successfully.",
      outputs: { url: `${em.urls.stream}/v1/branches/101/sources/sink-source/sinks/my-sink`, projectId: 4242, branchId: 101, sourceId: "sink-source", sinkId: "my-sink" },
    });
    const get = await api("GET", `${base}/sinks/my-sink`);
    expect(get.body).toEqual({
      projectId: 4242,
      branchId: 101,
      sourceId: "sink-source",
      sinkId: "my-sink",
      type: "table",
      name: "My Sink",
      description: "",
      table: {
        type: "keboola",
        tableId: "in.c-my-bucket.my-table",
        mapping: {
          columns: [
            { type: "uuid", name: "id" },
            { type: "path", name: "path", path: "key", defaultValue: "unknown", rawString: true },
            { type: "template", name: "jsonnet", rawString: true, template: { language: "jsonnet", content: 'Body("key")' } },
            { type: "path", name: "plain", path: "a.b", rawString: false },
          ],
        },
      },
      version: { number: 1, hash: expect.stringMatching(/^[0-9a-f]{16}$/), description: "New sink.", at: expect.stringMatching(ISO), by: BY },
      created: { at: expect.stringMatching(ISO), by: BY },
    });
    expect(getTable(em.context, 101, "in.c-my-bucket.my-table")?.columns).toEqual(["id", "path", "jsonnet", "plain"]);
    expect(em.state.stream.sinkTokens["101/sink-source/my-sink"]).toMatchObject({
      description: "[_internal] Stream Sink sink-source/my-sink",
      bucketId: "in.c-my-bucket",
    });
  });

  it("refuses an existing sink: 409 once created and while the create task runs", async () => {
    await createSink("sink-source", sinkBody("Dup Sink", "in.c-dup.t", UUID_BODY));
    const again = await api("POST", `${base}/sinks`, { json: sinkBody("Dup Sink", "in.c-dup.t", UUID_BODY) });
    expect(again.body).toEqual({ statusCode: 409, error: "stream.api.sinkAlreadyExists", message: 'Sink "dup-sink" already exists in the source.' });

    const src = await api("POST", "/v1/branches/default/sources", { json: { name: "Slow Source", type: "http" } }, slow);
    expect(src.status).toBe(202);
    // The slow emulator's source task never completes in the test: finish it by hand.
    slow.state.deferred.forEach((d) => (d.at = 0));
    await wait(src.body);
    const path = "/v1/branches/default/sources/slow-source/sinks";
    expect((await api("POST", path, { json: sinkBody("My Sink", "in.c-s.t", UUID_BODY) }, slow)).status).toBe(202);
    const during = await api("POST", path, { json: sinkBody("My Sink", "in.c-s.t", UUID_BODY) }, slow);
    expect(during.status).toBe(409);
    expect(during.body).toEqual({ statusCode: 409, error: "stream.api.sinkAlreadyExists", message: 'Sink "4242/101/slow-source/my-sink" already exists in the source.' });
  });

  it("validates sink bodies with the real messages", async () => {
    const cases: Array<[Record<string, unknown>, number, string, string]> = [
      [{ name: "My Sink", type: "foo" }, 400, "invalidEnumValue", 'Value of body.type must be one of "table" but got value "foo".'],
      [sinkBody("", "in.c-a.b", UUID_BODY), 400, "invalidLength", 'Length of body.name must be greater or equal than 1 but got value "" (len=0)'],
      [
        sinkBody("X", "in.c-a.b", [{ type: "uuid", name: "id" }, { type: "template", name: "jsonnet", template: { language: "jsonnet", content: "Invalid()" } }]),
        400,
        "badRequest",
        'Column "jsonnet" template is invalid: 1:1-8 Unknown variable: Invalid.',
      ],
      [
        sinkBody("X", "in.c-a.b", [{ type: "foo", name: "x" }]),
        400,
        "invalidEnumValue",
        'Value of body.table.mapping.columns[0].type must be one of "uuid", "datetime", "ip", "body.table.mapping.columns[0]", "headers", "path", "template" but got value "foo".',
      ],
      [sinkBody("X", "in.c-a.b", []), 400, "invalidLength", "Length of body.table.mapping.columns must be greater or equal than 1 but got value []*server.TableColumnRequestBody{} (len=0)"],
      [sinkBody("X", "in.c-a.b", [{ type: "path", name: "p" }]), 400, "badRequest", 'Column "p" is missing path.'],
      [sinkBody("X", "foo", UUID_BODY), 400, "badRequest", 'Invalid "tableId" value "foo": invalid table ID "foo": unexpected number of fragments.'],
      [{ name: "X", type: "table" }, 400, "badRequest", '"table" must be configured for the "table" sink type.'],
      [sinkBody("X", "in.c-a.b", UUID_BODY, { allowedSignals: ["logz"] }), 400, "invalidEnumValue", 'Value of body.allowedSignals[0].allowedSignals[*] must be one of "logs", "metrics", "traces" but got value "logz".'],
    ];
    for (const [body, status, code, message] of cases) {
      const res = await api("POST", `${base}/sinks`, { json: body });
      expect(res.status, message).toBe(status);
      expect(res.body).toEqual({ statusCode: status, error: `stream.api.${code}`, message });
    }
    const tooMany = await api("POST", `${base}/sinks`, { json: sinkBody("X", "in.c-a.b", Array.from({ length: 101 }, (_, i) => ({ type: "uuid", name: `c${i}` }))) });
    expect(tooMany.body.message).toMatch(/^Length of body\.table\.mapping\.columns must be lesser or equal than 100 but got value .* \(len=101\)$/);
  });

  it("answers a null column as the service's panic: Goa skips its validation and the mapper reads it", async () => {
    // keboola/keboola-as-code internal/pkg/service/stream/api/mapper/sink_request.go (newTableSinkMappingEntity).
    const res = await api("POST", `${base}/sinks`, { json: sinkBody("Null Column", "in.c-a.nul", [{ type: "uuid", name: "id" }, null]) });
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ statusCode: 500, error: "stream.api.panicError", message: expect.stringMatching(APPLICATION_ERROR) });
    expect((await api("GET", `${base}/sinks/null-column`)).status).toBe(404);
  });

  it("answers missing sources and sinks", async () => {
    const noSource = await api("GET", "/v1/branches/default/sources/nope/sinks/my-sink");
    expect(noSource.body).toEqual({ statusCode: 404, error: "stream.api.sourceNotFound", message: 'Source "nope" not found in the branch.' });
    for (const [method, suffix] of [["GET", ""], ["DELETE", ""], ["PUT", "/disable"], ["PUT", "/enable"], ["PATCH", ""]]) {
      const res = await api(method, `${base}/sinks/nope${suffix}`, method === "PATCH" ? { json: { name: "X" } } : {});
      expect(res.body, `${method} ${suffix}`).toEqual({ statusCode: 404, error: "stream.api.sinkNotFound", message: 'Sink "nope" not found in the source.' });
    }
    const list = await api("GET", "/v1/branches/default/sources/nope/sinks");
    expect(list.body.error).toBe("stream.api.sourceNotFound");
  });

  it("fails the create task when the table exists with other columns", async () => {
    ensureTable(em.context, 101, "in.c-mismatch.t", ["a", "b"]);
    const task = await createSink("sink-source", sinkBody("Mismatch", "in.c-mismatch.t", UUID_BODY));
    expect(task).toMatchObject({ status: "error", error: 'Columns of the table "in.c-mismatch.t" do not match expected ["id","body"], found ["a","b"]' });
    expect((await api("GET", `${base}/sinks/mismatch`)).status).toBe(404);

    ensureTable(em.context, 101, "in.c-match.t", ["id", "body"]);
    expect((await createSink("sink-source", sinkBody("Match", "in.c-match.t", UUID_BODY))).status).toBe("success");
  });

  // keboola/keboola-as-code internal/pkg/service/stream/sink/type/tablesink/keboola/bridge/table.go:
  // ensureTableExists gets or creates the table, then addTableMetadata writes provider "stream"
  // entries KBC.stream.sink.id / KBC.stream.source.id (only when missing), then checks the columns.
  it("marks the sink's table, made or found, with the sink and source in metadata of provider stream, once", async () => {
    await createSink("sink-source", sinkBody("Marked", "in.c-marked.t", UUID_BODY));
    const metadata = (tableId: string) => (getTable(em.context, 101, tableId)?.metadata ?? []).map(({ key, value, provider }) => ({ key, value, provider }));
    const marks = (sink: string) => [
      { key: "KBC.stream.sink.id", value: sink, provider: "stream" },
      { key: "KBC.stream.source.id", value: "sink-source", provider: "stream" },
    ];
    expect(metadata("in.c-marked.t")).toEqual(marks("marked"));
    // Through the Storage API as every client reads it.
    const detail = await call(em.urls.storage, "GET", "/v2/storage/tables/in.c-marked.t", { token: "master" });
    expect(detail.body.metadata.map((m: { key: string }) => m.key)).toEqual(["KBC.stream.sink.id", "KBC.stream.source.id"]);
    // A table found (made before the sink) is marked too; saving the sink again adds nothing.
    ensureTable(em.context, 101, "in.c-found.t", ["id", "body"]);
    await createSink("sink-source", sinkBody("Found", "in.c-found.t", UUID_BODY));
    await wait((await api("PATCH", `${base}/sinks/found`, { json: { name: "Found again" } })).body);
    expect(metadata("in.c-found.t")).toEqual(marks("found"));
  });

  it("fails a sink create task by fault injection without creating the table", async () => {
    em.setFaults({ failTasks: ["api.create.sink"] });
    try {
      const task = await createSink("sink-source", sinkBody("Faulty", "in.c-faulty.t", UUID_BODY));
      expect(task).toMatchObject({ status: "error", error: "Unknown error" });
      expect(task.outputs).toBeUndefined();
    } finally {
      em.setFaults({});
    }
    expect(getTable(em.context, 101, "in.c-faulty.t")).toBeUndefined();
    expect((await api("GET", `${base}/sinks/faulty`)).status).toBe(404);
  });

  it("updates a sink: mapping replaced, allowedSignals set and cleared, table required with its id", async () => {
    await createSink("sink-source", sinkBody("Upd Sink", "in.c-upd.t", UUID_BODY, { allowedSignals: ["logs"] }));
    const path = `${base}/sinks/upd-sink`;
    expect((await api("GET", path)).body.allowedSignals).toEqual(["logs"]);

    await wait((await api("PATCH", path, { json: { name: "Upd Sink 2", allowedSignals: [] } })).body);
    const v2 = (await api("GET", path)).body;
    expect(v2).toMatchObject({ name: "Upd Sink 2", version: { number: 2, description: "Updated." } });
    expect(v2.allowedSignals).toBeUndefined();

    const newTable = { type: "keboola", tableId: "in.c-upd.t2", mapping: { columns: [{ type: "datetime", name: "dt" }] } };
    const t = await wait((await api("PATCH", path, { json: { changeDescription: "New table.", table: newTable } })).body);
    expect(t).toMatchObject({ type: "api.update.sink", result: "Sink has been updated successfully." });
    const v3 = (await api("GET", path)).body;
    expect(v3.table).toEqual(newTable);
    expect(v3.version).toMatchObject({ number: 3, description: "New table." });
    expect(getTable(em.context, 101, "in.c-upd.t2")?.columns).toEqual(["dt"]);

    const noTableId = await wait((await api("PATCH", path, { json: { table: { mapping: { columns: UUID_BODY } } } })).body);
    expect(noTableId).toMatchObject({ status: "error", error: "Unknown error" });
    expect((await api("GET", path)).body.version.number).toBe(3);

    const invalid = await api("PATCH", path, { json: { table: { mapping: { columns: [{ type: "template", name: "t", template: { language: "jsonnet", content: "Invalid()" } }] } } } });
    expect(invalid.body.message).toBe('Column "t" template is invalid: 1:1-8 Unknown variable: Invalid.');
  });

  it("disables and enables a sink; enabling issues a new token", async () => {
    await createSink("sink-source", sinkBody("Sw Sink", "in.c-sw.t", UUID_BODY));
    const path = `${base}/sinks/sw-sink`;
    const tokenBefore = em.state.stream.sinkTokens["101/sink-source/sw-sink"];
    expect(tokenBefore).toBeDefined();

    expect(await wait((await api("PUT", `${path}/disable`)).body)).toMatchObject({ type: "api.disable.sink", result: "Sink has been disabled successfully." });
    const off = (await api("GET", path)).body;
    expect(off.disabled).toEqual({ at: expect.stringMatching(ISO), by: BY, reason: "API" });
    expect(off.version).toMatchObject({ number: 2, description: "Disabled." });
    expect(em.state.stream.sinkTokens["101/sink-source/sw-sink"]).toBeUndefined();

    expect(await wait((await api("PUT", `${path}/enable`)).body)).toMatchObject({ result: "Sink has been enabled successfully." });
    const on = (await api("GET", path)).body;
    expect(on.disabled).toBeUndefined();
    expect(on.version).toMatchObject({ number: 3, description: "Enabled." });
    const tokenAfter = em.state.stream.sinkTokens["101/sink-source/sw-sink"];
    expect(tokenAfter.tokenId).not.toBe(tokenBefore.tokenId);
    expect(tokenAfter.token).not.toBe(tokenBefore.token);
  });

  it("disables sinks with their source and enables them with it", async () => {
    await createSource({ name: "Parent", type: "http" });
    await createSink("parent", sinkBody("Child", "in.c-parent.t", UUID_BODY));
    await wait((await api("PUT", "/v1/branches/default/sources/parent/disable")).body);
    const child = (await api("GET", "/v1/branches/default/sources/parent/sinks/child")).body;
    expect(child.disabled.reason).toBe("Auto-disabled with the parent source.");
    expect(child.version.number).toBe(1);
    await wait((await api("PUT", "/v1/branches/default/sources/parent/enable")).body);
    expect((await api("GET", "/v1/branches/default/sources/parent/sinks/child")).body.disabled).toBeUndefined();
    expect(em.state.stream.sinkTokens["101/parent/child"]).toBeDefined();
  });

  it("deletes a sink", async () => {
    await createSink("sink-source", sinkBody("Del Sink", "in.c-delsink.t", UUID_BODY));
    const task = await wait((await api("DELETE", `${base}/sinks/del-sink`)).body);
    expect(task).toMatchObject({ type: "api.delete.sink", result: "Sink has been deleted successfully." });
    expect((await api("GET", `${base}/sinks/del-sink`)).status).toBe(404);
    expect(em.state.stream.sinkTokens["101/sink-source/del-sink"]).toBeUndefined();
  });

  it("lists sinks page by page and limits a source to 100 sinks", async () => {
    await createSource({ name: "Many", type: "http" });
    const path = "/v1/branches/default/sources/many/sinks";
    let last: any;
    for (let i = 0; i < 100; i++) {
      last = (await api("POST", path, { json: sinkBody(`Sink ${String(i).padStart(3, "0")}`, `in.c-many.t${i}`, UUID_BODY) })).body;
    }
    await wait(last);
    const page = await api("GET", `${path}?limit=2&afterId=sink-001`);
    expect(page.body.page).toEqual({ limit: 2, totalCount: 100, afterId: "sink-001", lastId: "sink-003" });
    expect(page.body.sinks.map((s: any) => s.sinkId)).toEqual(["sink-002", "sink-003"]);

    const over = await wait((await api("POST", path, { json: sinkBody("Sink 100", "in.c-many.t100", UUID_BODY) })).body);
    expect(over).toMatchObject({ status: "error", error: "Sink count limit reached in the source, the maximum is 100." });
  });
});

describe("settings", () => {
  beforeAll(async () => {
    await createSource({ name: "Set Source", type: "http" });
    await createSink("set-source", sinkBody("Set Sink", "in.c-set.t", UUID_BODY));
  });
  const source = "/v1/branches/default/sources/set-source";
  const sink = `${source}/sinks/set-sink`;

  it("lists every key with its type, default, protection and validation", async () => {
    const res = await api("GET", `${source}/settings`);
    expect(res.status).toBe(200);
    const settings = res.body.settings;
    expect(settings).toHaveLength(27);
    expect(settings.map((s: any) => s.key)).toEqual([...settings.map((s: any) => s.key)].sort());
    expect(settings[0]).toEqual({
      key: "storage.level.local.encoding.compression.gzip.blockSize",
      type: "string",
      description: "GZIP parallel block size.",
      value: "256KB",
      defaultValue: "256KB",
      overwritten: false,
      protected: true,
      validation: "required,minBytes=16kB,maxBytes=100MB",
    });
    expect(settings.find((s: any) => s.key === "storage.level.local.encoding.compression.gzip.concurrency")).not.toHaveProperty("validation");
    const editable = settings.filter((s: any) => !s.protected).map((s: any) => [s.key, s.defaultValue]);
    expect(editable).toEqual([
      ["storage.level.local.encoding.sync.wait", true],
      ["storage.level.staging.upload.trigger.count", 10000],
      ["storage.level.staging.upload.trigger.interval", "30s"],
      ["storage.level.staging.upload.trigger.size", "5MB"],
      ["storage.level.target.import.trigger.count", 50000],
      ["storage.level.target.import.trigger.interval", "1m0s"],
      ["storage.level.target.import.trigger.size", "50MB"],
    ]);
  });

  it("patches, merges and resets source settings in tasks", async () => {
    const empty = await api("PATCH", `${source}/settings`, { json: {} });
    expect(empty.status).toBe(202);
    expect(await wait(empty.body)).toMatchObject({ type: "api.update.sourceSettings", result: "Source settings have been updated successfully." });

    const patch = { settings: [{ key: "storage.level.staging.upload.trigger.interval", value: "90s" }, { key: "storage.level.staging.upload.trigger.size", value: "12MB" }] };
    await wait((await api("PATCH", `${source}/settings`, { json: patch })).body);
    await wait((await api("PATCH", `${source}/settings`, { json: { settings: [{ key: "storage.level.target.import.trigger.count", value: 100 }] } })).body);
    const get = (await api("GET", `${source}/settings`)).body.settings;
    const byKey = (k: string) => get.find((s: any) => s.key === `storage.level.${k}`);
    expect(byKey("staging.upload.trigger.interval")).toMatchObject({ value: "1m30s", defaultValue: "30s", overwritten: true });
    expect(byKey("staging.upload.trigger.size")).toMatchObject({ value: "12MB", overwritten: true });
    expect(byKey("target.import.trigger.count")).toMatchObject({ value: 100, overwritten: true });
    expect((await api("GET", source)).body.version).toMatchObject({ number: 4, description: "Updated settings." });

    // An empty duration or size resets the key.
    await wait((await api("PATCH", `${source}/settings`, { json: { settings: [{ key: "storage.level.staging.upload.trigger.size", value: "" }] } })).body);
    expect((await api("GET", `${source}/settings`)).body.settings.find((s: any) => s.key.endsWith("staging.upload.trigger.size"))).toMatchObject({ value: "5MB", overwritten: false });

    // Sink settings show the sink's own overrides only.
    const sinkSettings = (await api("GET", `${sink}/settings`)).body.settings;
    expect(sinkSettings.find((s: any) => s.key.endsWith("staging.upload.trigger.interval"))).toMatchObject({ value: "30s", overwritten: false });
  });

  it("rejects invalid values, unknown and protected keys; null is an unexpected error", async () => {
    const invalid = await api("PATCH", `${source}/settings`, {
      json: { settings: [{ key: "storage.level.staging.upload.trigger.interval", value: "foo" }, { key: "storage.level.staging.upload.trigger.size", value: "bar" }] },
    });
    expect(invalid.body).toEqual({
      statusCode: 400,
      error: "stream.api.badRequest",
      message:
        '- Invalid "storage.level.staging.upload.trigger.size" value "bar": invalid syntax.\n- Invalid "storage.level.staging.upload.trigger.interval": time: invalid duration "foo".',
    });
    const wrongType = await api("PATCH", `${sink}/settings`, { json: { settings: [{ key: "storage.level.local.encoding.sync.wait", value: "yes" }] } });
    expect(wrongType.body.message).toBe('Invalid "storage.level.local.encoding.sync.wait" value: found type "string", expected "bool".');
    const unknown = await api("PATCH", `${sink}/settings`, { json: { settings: [{ key: "foo.bar", value: 1 }] } });
    expect(unknown.body).toEqual({ statusCode: 400, error: "stream.api.badRequest", message: 'Key not found: "foo.bar".' });
    const protectedKey = await api("PATCH", `${sink}/settings`, { json: { settings: [{ key: "storage.level.local.encoding.compression.gzip.blockSize", value: "128KB" }] } });
    expect(protectedKey.body).toEqual({
      statusCode: 403,
      error: "stream.api.forbidden",
      message: 'Cannot modify protected keys: "storage.level.local.encoding.compression.gzip.blockSize".',
    });
    const nullValue = await api("PATCH", `${sink}/settings`, { json: { settings: [{ key: "storage.level.staging.upload.trigger.count", value: null }] } });
    expect(nullValue.status).toBe(500);
    expect(nullValue.body).toMatchObject({ error: "stream.api.panicError", message: expect.stringMatching(APPLICATION_ERROR) });
  });

  it("checks value ranges only when a sink opens a file", async () => {
    // Accepted on the source (no file is opened)...
    const sourceTask = await wait((await api("PATCH", `${source}/settings`, { json: { settings: [{ key: "storage.level.target.import.trigger.interval", value: "1s" }] } })).body);
    expect(sourceTask.status).toBe("success");
    // ...but a sink under it cannot open a file any more.
    const sinkTask = await wait((await api("PATCH", `${sink}/settings`, { json: { settings: [{ key: "storage.level.staging.upload.trigger.count", value: 5 }] } })).body);
    expect(sinkTask).toMatchObject({ type: "api.update.sinkSettings", status: "error", error: "Unknown error" });
    await wait((await api("PATCH", `${source}/settings`, { json: { settings: [{ key: "storage.level.target.import.trigger.interval", value: "2m" }] } })).body);
    const ok = await wait((await api("PATCH", `${sink}/settings`, { json: { settings: [{ key: "storage.level.staging.upload.trigger.count", value: 5 }] } })).body);
    expect(ok).toMatchObject({ status: "success", result: "Sink settings have been updated successfully." });
    expect((await api("GET", `${sink}/settings`)).body.settings.find((s: any) => s.key.endsWith("staging.upload.trigger.count"))).toMatchObject({ value: 5, overwritten: true });
  });
});
