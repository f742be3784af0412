import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator/server";
import { call, pollUntil } from "./helpers";

// Bucket create/update/delete with the real validation and errors, and the metadata API of
// buckets and tables.

let emu: Emulator;
const api = (method: string, path: string, opts: Parameters<typeof call>[3] = {}) => call(emu.url, method, path, { token: "master", ...opts });

beforeAll(async () => {
  emu = await startEmulator({ token: "master", taskDurationMs: 5 });
});
afterAll(() => emu.close());

async function waitJob(job: { id: number }) {
  return (await pollUntil(() => api("GET", `/v2/storage/jobs/${job.id}`), (r) => r.body.status === "success" || r.body.status === "error")).body;
}

describe("buckets", () => {
  it("validates name, stage and display name with the real messages and codes", async () => {
    const create = (json: unknown) => api("POST", "/v2/storage/buckets", { json });
    expect((await create({ stage: "in" })).body).toMatchObject({ code: "storage.buckets.validation", error: "Invalid parameters - name: This field is missing." });
    expect((await create({ name: "a.b", stage: "in" })).body).toMatchObject({
      code: "storage.buckets.validation",
      error: "Invalid parameters - name: Only alphanumeric characters dash and underscores are allowed in bucket name.",
    });
    expect((await create({ name: "a", stage: "sys" })).body).toMatchObject({
      code: "storage.buckets.validation",
      error: "Invalid parameters - stage: The value you selected is not a valid choice.",
    });
    expect((await create({ name: "a", stage: "in", displayName: "$$$$$" })).body).toMatchObject({
      code: "storage.buckets.validation",
      error: "Invalid data - displayName: Only alphanumeric characters dash and underscores are allowed.",
    });
    expect((await create({ name: "a", stage: "in", backend: "redshit" })).body.code).toBe("storage.buckets.validation");

    const made = await create({ name: "ref", stage: "in", description: "Reference data", displayName: "Reference" });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ id: "in.c-ref", name: "c-ref", displayName: "Reference", description: "Reference data", metadata: [] });
    const again = await create({ name: "ref", stage: "in" });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ code: "storage.buckets.alreadyExists", error: "The bucket in.c-ref already exists." });
    const sameDisplay = await create({ name: "other", stage: "in", displayName: "Reference" });
    expect(sameDisplay.body).toMatchObject({ code: "storage.buckets.alreadyExists", error: 'The display name "Reference" already exists in project.' });
    expect((await create({ name: "ref", stage: "out" })).status).toBe(201);
  });

  it("updates the display name (sync and async)", async () => {
    const r = await api("PUT", "/v2/storage/buckets/in.c-ref", { json: { displayName: "Ref-2" } });
    expect(r.status).toBe(200);
    expect(r.body.displayName).toBe("Ref-2");
    const job = await api("PUT", "/v2/storage/buckets/in.c-ref?async=1", { json: { displayName: "Ref-3" } });
    expect(job.status).toBe(202);
    expect(await waitJob(job.body)).toMatchObject({ status: "success", operationName: "bucketUpdate" });
    expect((await api("GET", "/v2/storage/buckets/in.c-ref")).body.displayName).toBe("Ref-3");
  });

  it("drops a non-empty bucket only with force; async answers a bucketDelete job", async () => {
    await api("POST", "/v2/storage/buckets", { json: { name: "drop", stage: "in" } });
    await waitJob((await api("POST", "/v2/storage/buckets/in.c-drop/tables-definition", { json: { name: "t", columns: [{ name: "a" }] } })).body);
    const refused = await waitJob((await api("DELETE", "/v2/storage/buckets/in.c-drop?async=true")).body);
    expect(refused).toMatchObject({
      status: "error",
      operationName: "bucketDelete",
      error: { code: "buckets.deleteNotEmpty", message: "Only empty buckets can be deleted. There are 1 tables in the bucket." },
    });
    const forced = await api("DELETE", "/v2/storage/buckets/in.c-drop?force=true&async=true");
    expect(forced.status).toBe(202);
    expect(forced.body.operationParams).toEqual({ params: { idBucket: "in.c-drop", force: true } });
    expect(await waitJob(forced.body)).toMatchObject({ status: "success" });
    expect((await api("GET", "/v2/storage/buckets/in.c-drop")).status).toBe(404);
    expect((await api("GET", "/v2/storage/tables/in.c-drop.t")).status).toBe(404);
  });
});

describe("metadata", () => {
  it("sets, updates, lists and deletes bucket metadata; the detail carries it", async () => {
    const first = await api("POST", "/v2/storage/buckets/out.c-ref/metadata", {
      json: { provider: "keboola-pulumi", metadata: [{ key: "owner", value: "stack-a" }, { key: "KBC.description", value: "d" }] },
    });
    expect(first.status).toBe(201);
    expect(first.body).toEqual([
      { id: expect.any(String), key: "owner", value: "stack-a", provider: "keboola-pulumi", timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
      { id: expect.any(String), key: "KBC.description", value: "d", provider: "keboola-pulumi", timestamp: expect.any(String) },
    ]);
    // Same provider and key: updated in place (same id); another provider: a new entry.
    const form = new URLSearchParams({ provider: "keboola-pulumi", "metadata[0][key]": "owner", "metadata[0][value]": "stack-b" });
    const second = await api("POST", "/v2/storage/buckets/out.c-ref/metadata", { body: form.toString(), headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    expect(second.body[0]).toMatchObject({ id: first.body[0].id, value: "stack-b" });
    await api("POST", "/v2/storage/buckets/out.c-ref/metadata", { json: { provider: "user", metadata: [{ key: "owner", value: "me" }] } });
    const listed = (await api("GET", "/v2/storage/buckets/out.c-ref/metadata")).body;
    expect(listed.map((m: { provider: string; key: string }) => `${m.provider}:${m.key}`)).toEqual(["keboola-pulumi:owner", "keboola-pulumi:KBC.description", "user:owner"]);
    expect((await api("GET", "/v2/storage/buckets/out.c-ref")).body.metadata).toEqual(listed);

    expect((await api("DELETE", `/v2/storage/buckets/out.c-ref/metadata/${first.body[1].id}`)).status).toBe(204);
    expect((await api("GET", "/v2/storage/buckets/out.c-ref/metadata")).body).toHaveLength(2);
    const gone = await api("DELETE", `/v2/storage/buckets/out.c-ref/metadata/${first.body[1].id}`);
    expect(gone.status).toBe(404);
    const noProvider = await api("POST", "/v2/storage/buckets/out.c-ref/metadata", { json: { metadata: [{ key: "k", value: "v" }] } });
    expect(noProvider.body).toMatchObject({ code: "storage.metadata.validation", error: "Invalid parameters - provider: This field is missing." });
  });

  it("sets table and column metadata; JSON answers {metadata, columnsMetadata} as the Go SDK reads it", async () => {
    await waitJob((await api("POST", "/v2/storage/buckets/out.c-ref/tables-definition", { json: { name: "t", columns: [{ name: "a" }, { name: "b" }] } })).body);
    const r = await api("POST", "/v2/storage/tables/out.c-ref.t/metadata", {
      json: { provider: "keboola-pulumi", metadata: [{ key: "owner", value: "stack-a" }], columnsMetadata: { all: [{ columnName: "b", key: "KBC.datatype.basetype", value: "STRING" }] } },
    });
    expect(r.status).toBe(201);
    expect(r.body.metadata).toMatchObject([{ key: "owner", value: "stack-a", provider: "keboola-pulumi" }]);
    expect(r.body.columnsMetadata).toMatchObject({ b: [{ key: "KBC.datatype.basetype", value: "STRING" }] });
    const detail = (await api("GET", "/v2/storage/tables/out.c-ref.t")).body;
    expect(detail.metadata).toMatchObject([{ key: "owner" }]);
    expect(detail.columnMetadata).toMatchObject({ b: [{ key: "KBC.datatype.basetype" }] });
    const onlyTable = await api("POST", "/v2/storage/tables/out.c-ref.t/metadata", { json: { provider: "p", metadata: [{ key: "k", value: "v" }] } });
    expect(onlyTable.body.columnsMetadata).toMatchObject({ b: expect.any(Array) });
    expect((await api("DELETE", `/v2/storage/tables/out.c-ref.t/metadata/${r.body.metadata[0].id}`)).status).toBe(204);
    expect((await api("GET", "/v2/storage/tables/out.c-ref.t/metadata")).body.map((m: { key: string }) => m.key)).toEqual(["k"]);
  });
});
