// Development branches in the services beside Storage's branch API: what the Stream API, Storage,
// the Job Queue and the Scheduler do with a development branch, each as the public sources named
// in the test say the real services do.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator/server";
import { getTable } from "../../emulator/storage/tables";
import { call, pollUntil, type CallOptions } from "./helpers";

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
