import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import { startTwoProjects, type ProjectAccess, type TwoProjects } from "../../emulator/two-projects";
import { call, pollUntil, type CallOptions } from "./helpers";
import { putFile, s3ClientFor, type FileWithCredentials } from "./s3-helpers";

// Two projects on one emulator, as a real stack hosts many behind one host: the token decides
// which project a request sees (emulator/core/dispatch.ts), and nothing of one project is visible
// in the other. A missing object is answered as the emulator answers any missing object (the
// same status and error code as for an id no project has), since a real stack cannot tell a
// token that its object exists in another project.

let two: TwoProjects;
let a: ProjectAccess;
let b: ProjectAccess;

beforeAll(async () => {
  two = await startTwoProjects({ taskDurationMs: 10 });
  ({ a, b } = two);
});
afterAll(() => two.close());

const storage = (p: ProjectAccess, method: string, path: string, opts: CallOptions = {}) => call(two.emulator.url, method, path, { token: p.token, ...opts });
const stream = (p: ProjectAccess, method: string, path: string, opts: CallOptions = {}) => call(two.emulator.urls.stream, method, path, { token: p.token, ...opts });
const queue = (p: ProjectAccess, method: string, path: string, opts: CallOptions = {}) => call(two.emulator.urls.queue, method, path, { token: p.token, ...opts });
const scheduler = (p: ProjectAccess, method: string, path: string, opts: CallOptions = {}) => call(two.emulator.urls.scheduler, method, path, { token: p.token, ...opts });
const configs = (component: string) => `/v2/storage/branch/default/components/${component}/configs`;
const GENERIC = "keboola.ex-generic-v2";

async function storageJob(p: ProjectAccess, job: { id: number }) {
  const done = await pollUntil(() => storage(p, "GET", `/v2/storage/jobs/${job.id}`), (r) => r.body.status === "success" || r.body.status === "error");
  expect(done.body.status, done.text).toBe("success");
  return done.body;
}

async function createBucket(p: ProjectAccess, name: string): Promise<string> {
  const r = await storage(p, "POST", "/v2/storage/buckets", { json: { name, stage: "in" } });
  expect(r.status, r.text).toBe(201);
  return r.body.id;
}

/** prepare (with credentials) -> PutObject -> the file answer. */
async function upload(p: ProjectAccess, content: string, name = "data.csv"): Promise<FileWithCredentials & { id: number }> {
  const prep = await storage(p, "POST", "/v2/storage/files/prepare", { json: { name, federationToken: true, sizeBytes: content.length } });
  expect(prep.status, prep.text).toBe(201);
  await putFile(prep.body, content);
  return prep.body;
}

async function createTable(p: ProjectAccess, bucketId: string, name: string, csv: string) {
  const file = await upload(p, csv);
  const r = await storage(p, "POST", `/v2/storage/buckets/${bucketId}/tables-async`, { json: { dataFileId: file.id, name } });
  expect(r.status, r.text).toBe(202);
  return storageJob(p, r.body);
}

async function createConfig(p: ProjectAccess, component: string, body: Record<string, unknown>) {
  const r = await storage(p, "POST", configs(component), { json: body });
  expect(r.status, r.text).toBe(201);
  return r.body as { id: string };
}

/** Starts a Stream task and waits for it to succeed. */
async function streamTask(p: ProjectAccess, method: string, path: string, json: unknown) {
  const res = await stream(p, method, path, { json });
  expect(res.status, res.text).toBe(202);
  const done = await pollUntil(() => call(res.body.url, "GET", "", { token: p.token }), (r) => r.body.isFinished === true);
  expect(done.body.status, done.text).toBe("success");
}

async function runJob(p: ProjectAccess, config: string) {
  const created = await queue(p, "POST", "/jobs", { json: { component: GENERIC, mode: "run", config } });
  expect(created.status, created.text).toBe(201);
  const done = await pollUntil(() => queue(p, "GET", `/jobs/${created.body.id}`), (r) => r.body.isFinished === true);
  return done.body as { id: string; status: string; project: { id: string; name: string }; result: { message: string } };
}

/** The status and error code of an answer (a missing object's answer, compared across projects). */
const refusal = (r: { status: number; body: { code?: unknown } }) => ({ status: r.status, code: r.body.code });

describe("two projects on one host", () => {
  it("answer tokens/verify with each token's own project, and the request log names the project of each request", async () => {
    expect([a.id, b.id]).toEqual([4242, 4343]);
    two.emulator.clearRequests();
    const verifyA = await storage(a, "GET", "/v2/storage/tokens/verify");
    const verifyB = await storage(b, "GET", "/v2/storage/tokens/verify");
    expect(verifyA.body.owner).toMatchObject({ id: a.id, name: a.name });
    expect(verifyB.body.owner).toMatchObject({ id: b.id, name: b.name });
    expect([verifyA.body.isMasterToken, verifyB.body.isMasterToken]).toEqual([true, true]);
    // Token ids are the stack's: the two master tokens differ.
    expect(verifyA.body.id).not.toBe(verifyB.body.id);
    const unknown = await call(two.emulator.url, "GET", "/v2/storage/tokens/verify", { token: "nobody's-token" });
    expect(unknown.status).toBe(401);

    expect(two.emulator.requests().map((r) => [r.status, r.projectId])).toEqual([
      [200, a.id],
      [200, b.id],
      [401, undefined],
    ]);
    const onlyB = await call(two.emulator.url, "GET", `/_emulator/requests?projectId=${b.id}`);
    expect(onlyB.body.map((r: { method: string; path: string }) => `${r.method} ${r.path}`)).toEqual(["GET /v2/storage/tokens/verify"]);
  });

  it("keep a bucket name of both projects apart: each holds its own tables", async () => {
    const inA = await createBucket(a, "shared");
    const inB = await createBucket(b, "shared");
    expect([inA, inB]).toEqual(["in.c-shared", "in.c-shared"]);
    await createTable(a, inA, "only_a", "id\n1\n");
    await createTable(b, inB, "only_b", "id,name\n2,x\n");
    const tables = async (p: ProjectAccess) => (await storage(p, "GET", "/v2/storage/buckets/in.c-shared/tables")).body.map((t: { id: string }) => t.id);
    expect(await tables(a)).toEqual(["in.c-shared.only_a"]);
    expect(await tables(b)).toEqual(["in.c-shared.only_b"]);
    const elsewhere = await storage(b, "GET", "/v2/storage/tables/in.c-shared.only_a");
    expect(refusal(elsewhere)).toEqual(refusal(await storage(b, "GET", "/v2/storage/tables/in.c-shared.no_such_table")));
    expect(elsewhere.status).toBe(404);
  });

  it("answer a token of one project asking for the other's bucket as for a bucket that does not exist", async () => {
    await createBucket(b, "b-private");
    const other = await storage(a, "GET", "/v2/storage/buckets/in.c-b-private");
    const missing = await storage(a, "GET", "/v2/storage/buckets/in.c-never-made");
    expect(other.status).toBe(404);
    expect(refusal(other)).toEqual(refusal(missing));
    expect(other.body.error).toBe(`The bucket "in.c-b-private" was not found in the project "${a.id}"`);
    expect((await storage(a, "GET", "/v2/storage/buckets")).body.map((x: { id: string }) => x.id)).not.toContain("in.c-b-private");
  });

  it("keep configurations apart: one created in A is 404 in B, an id given by the client may repeat, generated ids do not", async () => {
    await createConfig(a, GENERIC, { name: "Only A", configurationId: "cfg-a", configuration: { parameters: { of: "a" } } });
    const inB = await storage(b, "GET", `${configs(GENERIC)}/cfg-a`);
    expect(inB.status).toBe(404);
    expect(refusal(inB)).toEqual(refusal(await storage(b, "GET", `${configs(GENERIC)}/cfg-never-made`)));
    expect((await storage(b, "GET", configs(GENERIC))).body.map((c: { id: string }) => c.id)).not.toContain("cfg-a");
    // The same id in B is B's own configuration.
    await createConfig(b, GENERIC, { name: "B's", configurationId: "cfg-a", configuration: { parameters: { of: "b" } } });
    expect((await storage(a, "GET", `${configs(GENERIC)}/cfg-a`)).body.configuration).toEqual({ parameters: { of: "a" } });
    expect((await storage(b, "GET", `${configs(GENERIC)}/cfg-a`)).body.configuration).toEqual({ parameters: { of: "b" } });
    // Numeric ids the stack generates are unique on the host.
    const generatedA = await createConfig(a, GENERIC, { name: "Numbered" });
    const generatedB = await createConfig(b, GENERIC, { name: "Numbered" });
    expect(generatedA.id).not.toBe(generatedB.id);
  });

  it("give each project its own default branch id, and development branch ids unique on the host", async () => {
    const branches = async (p: ProjectAccess) => (await storage(p, "GET", "/v2/storage/dev-branches")).body as Array<{ id: number; isDefault: boolean }>;
    const mainA = (await branches(a)).find((x) => x.isDefault)!.id;
    const mainB = (await branches(b)).find((x) => x.isDefault)!.id;
    expect(mainA).toBe(101);
    expect(mainB).not.toBe(mainA);
    const devA = await storage(a, "POST", "/v2/storage/dev-branches", { json: { name: "dev" } });
    const devB = await storage(b, "POST", "/v2/storage/dev-branches", { json: { name: "dev" } });
    const [jobA, jobB] = [await storageJob(a, devA.body), await storageJob(b, devB.body)];
    const ids = [jobA.results.id, jobB.results.id];
    expect(new Set([mainA, mainB, ...ids]).size).toBe(4);
    expect((await branches(b)).map((x) => x.id)).not.toContain(jobA.results.id);
  });

  it("keep Stream sources per project: one name in both, each ingesting into its own project's table", async () => {
    const sink = (table: string) => ({ name: "Raw", type: "table", table: { type: "keboola", tableId: table, mapping: { columns: [{ type: "body", name: "body" }] } } });
    await streamTask(a, "POST", "/v1/branches/default/sources", { name: "Events", type: "http" });
    expect((await stream(b, "GET", "/v1/branches/default/sources")).body.sources).toEqual([]);
    expect((await stream(b, "GET", "/v1/branches/default/sources/events")).status).toBe(404);
    await streamTask(b, "POST", "/v1/branches/default/sources", { name: "Events", type: "http" });
    await streamTask(a, "POST", "/v1/branches/default/sources/events/sinks", sink("in.c-stream.events"));
    await streamTask(b, "POST", "/v1/branches/default/sources/events/sinks", sink("in.c-stream.events"));
    const urlA: string = (await stream(a, "GET", "/v1/branches/default/sources/events")).body.http.url;
    const urlB: string = (await stream(b, "GET", "/v1/branches/default/sources/events")).body.http.url;
    expect(urlA).toContain(`/stream/${a.id}/events/`);
    expect(urlB).toContain(`/stream/${b.id}/events/`);
    expect((await call(urlA, "POST", "", { json: { from: "a" } })).status).toBe(200);
    expect((await call(urlB, "POST", "", { json: { from: "b" } })).status).toBe(200);
    const rows = async (p: ProjectAccess) => (await storage(p, "GET", "/v2/storage/tables/in.c-stream.events/data-preview?format=rfc")).text;
    expect(await rows(a)).toBe('"body"\n"{""from"":""a""}"\n');
    expect(await rows(b)).toBe('"body"\n"{""from"":""b""}"\n');
    // Ingestion names its project in the URL; the log says so too.
    const ingested = two.emulator.requests().filter((r) => r.path.startsWith("/stream-in/"));
    expect(ingested.map((r) => r.projectId)).toEqual([a.id, b.id]);
  });

  it("keep Queue jobs per project: a job of A is not found with B's token nor listed there", async () => {
    await createConfig(a, GENERIC, { name: "Job A", configurationId: "job-a", configuration: { parameters: {} } });
    const job = await runJob(a, "job-a");
    expect(job.status).toBe("success");
    expect(job.project).toEqual({ id: String(a.id), name: a.name });
    const inB = await queue(b, "GET", `/jobs/${job.id}`);
    expect(inB.status).toBe(404);
    expect(inB.body.error).toBe(`Job "${job.id}" not found`);
    expect((await queue(b, "GET", "/search/jobs")).body.map((j: { id: string }) => j.id)).not.toContain(job.id);
    expect((await queue(a, "GET", "/search/jobs")).body.map((j: { id: string }) => j.id)).toContain(job.id);
  });

  it("keep Scheduler schedules per project", async () => {
    await createConfig(a, "keboola.scheduler", {
      name: "Nightly",
      configurationId: "nightly",
      configuration: { schedule: { cronTab: "0 3 * * *", timezone: "UTC", state: "disabled" }, target: { componentId: GENERIC, configurationId: "job-a", mode: "run" } },
    });
    const created = await scheduler(a, "POST", "/schedules", { json: { configurationId: "nightly" } });
    expect(created.status, created.text).toBe(200);
    expect((await scheduler(b, "GET", "/schedules")).body).toEqual([]);
    expect((await scheduler(b, "GET", `/schedules/${created.body.id}`)).status).toBe(404);
    expect((await scheduler(a, "GET", `/schedules/${created.body.id}`)).body.id).toBe(created.body.id);
    // B has no such configuration to schedule.
    expect((await scheduler(b, "POST", "/schedules", { json: { configurationId: "nightly" } })).status).toBe(404);
    // The schedule's token is A's, not B's.
    const tokenIds = async (p: ProjectAccess) => (await storage(p, "GET", "/v2/storage/tokens")).body.map((t: { id: string }) => t.id);
    expect(await tokenIds(a)).toContain(created.body.tokenId);
    expect(await tokenIds(b)).not.toContain(created.body.tokenId);
  });

  it("open a cipher made for project A in A's jobs only: B's job fails on it as on any value it cannot decrypt", async () => {
    const encrypt = await call(two.emulator.urls.encryption, "POST", `/encrypt?componentId=${GENERIC}&projectId=${a.id}`, {
      body: "a-secret",
      headers: { "Content-Type": "text/plain" },
    });
    expect(encrypt.status).toBe(200);
    const cipher = encrypt.text;
    expect(cipher).toMatch(/^KBC::ProjectSecure::/);
    const configuration = { parameters: { "#password": cipher } };
    await createConfig(a, GENERIC, { name: "Secret", configurationId: "secret", configuration });
    await createConfig(b, GENERIC, { name: "Secret", configurationId: "secret", configuration });
    const inA = await runJob(a, "secret");
    expect(inA.status).toBe("success");
    expect(two.emulator.jobInputs(inA.id)?.configuration).toEqual({ parameters: { "#password": "a-secret" } });
    const inB = await runJob(b, "secret");
    expect(inB.status).toBe("error");
    expect(inB.result.message).toBe(`Invalid cipher text for key #password Value "${cipher}" is not an encrypted value.`);
    expect(two.emulator.jobInputs(inB.id)).toBeUndefined();
    // The Encryption API is the stack's; its projectId says whose request it was.
    expect(two.emulator.requests().find((r) => r.path.startsWith("/encryption/"))?.projectId).toBe(a.id);
  });

  it("make a token created in A (POST /v2/storage/tokens) A's: it verifies as A's, reads A's buckets, not B's", async () => {
    await createBucket(a, "a-private");
    const created = await storage(a, "POST", "/v2/storage/tokens", { json: { description: "made in A", canManageBuckets: true } });
    expect(created.status, created.text).toBe(201);
    const token: ProjectAccess = { ...a, token: created.body.token };
    expect(token.token).toMatch(new RegExp(`^${a.id}-${created.body.id}-`));
    two.emulator.clearRequests();
    expect((await storage(token, "GET", "/v2/storage/tokens/verify")).body.owner).toMatchObject({ id: a.id, name: a.name });
    expect((await storage(token, "GET", "/v2/storage/buckets/in.c-a-private")).status).toBe(200);
    expect((await storage(token, "GET", "/v2/storage/buckets/in.c-b-private")).status).toBe(404);
    expect(two.emulator.requests().map((r) => r.projectId)).toEqual([a.id, a.id, a.id]);
    expect((await storage(b, "GET", "/v2/storage/tokens")).body.map((t: { id: string }) => t.id)).not.toContain(created.body.id);
    expect((await storage(b, "GET", `/v2/storage/tokens/${created.body.id}`)).status).toBe(404);
  });

  it("keep files and their objects per project: keys under the project's id, another project's credentials refused as S3 refuses them", async () => {
    const fileA = await upload(a, "from a", "a.txt");
    const fileB = await upload(b, "from b", "b.txt");
    expect(fileA.uploadParams?.key).toMatch(new RegExp(`^exp-15/${a.id}/`));
    expect(fileB.uploadParams?.key).toMatch(new RegExp(`^exp-15/${b.id}/`));
    expect(fileA.id).not.toBe(fileB.id);
    expect((await storage(a, "GET", `/v2/storage/files/${fileB.id}`)).status).toBe(404);
    expect((await storage(b, "GET", `/v2/storage/files/${fileB.id}`)).body.sizeBytes).toBe("from b".length);
    const puts = two.emulator.requests().filter((r) => r.method === "PUT" && r.path.startsWith("/files/"));
    expect(puts.slice(-2).map((r) => r.projectId)).toEqual([a.id, b.id]);
    // A's credentials allow A's key prefix only.
    const target = fileB.uploadParams!;
    await expect(s3ClientFor(fileA).send(new PutObjectCommand({ Bucket: target.bucket, Key: target.key, Body: "overwritten" }))).rejects.toMatchObject({ name: "AccessDenied" });
    // A download URL (signed by the stack's Storage, no token) reaches the object of its project.
    const detail = await storage(b, "GET", `/v2/storage/files/${fileB.id}`);
    expect(await (await fetch(detail.body.url)).text()).toBe("from b");
    expect(two.emulator.requests().at(-1)?.projectId).toBe(b.id);
  });

  it("take a browser form upload (a prepare without federationToken) into the project whose key the form names", async () => {
    const prep = await storage(b, "POST", "/v2/storage/files/prepare", { json: { name: "form.txt" } });
    expect(prep.status, prep.text).toBe(201);
    const params = prep.body.uploadParams as Record<string, string>;
    const form = new FormData();
    for (const field of ["key", "acl", "policy", "signature", "AWSAccessKeyId"]) form.append(field, params[field]!);
    form.append("file", new Blob(["form bytes"]), "form.txt");
    expect((await fetch(params.url!, { method: "POST", body: form })).status).toBe(204);
    expect(two.emulator.requests().at(-1)?.projectId).toBe(b.id);
    expect((await storage(b, "GET", `/v2/storage/files/${prep.body.id}`)).body.sizeBytes).toBe("form bytes".length);
  });

  it("inject faults into any project's requests and log them with the project", async () => {
    two.emulator.setFaults({ rate429: 1, retryAfterSeconds: 0, limit: 1 });
    try {
      expect((await storage(b, "GET", "/v2/storage/tokens/verify")).status).toBe(429);
    } finally {
      two.emulator.setFaults({});
    }
    expect(two.emulator.requests().at(-1)).toMatchObject({ status: 429, fault: "429", projectId: b.id });
  });
});
