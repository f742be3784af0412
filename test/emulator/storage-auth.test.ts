import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator/server";
import { call } from "./helpers";

let emu: Emulator;
const api = (method: string, path: string, opts: Parameters<typeof call>[3] = {}) => call(emu.url, method, path, { token: "master", ...opts });

beforeAll(async () => {
  emu = await startEmulator({ token: "master", limitedToken: "limited", taskDurationMs: 20 });
});
afterAll(() => emu.close());

describe("storage authentication", () => {
  it("answers 401 without a token, with no error code (as the real API)", async () => {
    const r = await api("GET", "/v2/storage/tokens/verify", { token: null });
    expect(r.status).toBe(401);
    expect(r.body.error).toBe("Access token must be set");
    expect(r.body.code).toBeUndefined();
    expect(r.body.status).toBe("error");
    expect(r.body.exceptionId).toMatch(/^exception-[0-9a-f]{32}$/);
  });

  it("answers 401 storage.tokenInvalid for an unknown token", async () => {
    const r = await api("GET", "/v2/storage/dev-branches", { token: "nope" });
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ error: "Invalid access token", code: "storage.tokenInvalid", status: "error" });
  });

  it("answers 404 for unknown storage paths", async () => {
    const r = await api("GET", "/v2/storage/no-such-thing");
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ code: "notFound", status: "error" });
    expect(r.body.error).toContain("resource not found");
  });
});

describe("token verification", () => {
  it("describes the master token", async () => {
    const r = await api("GET", "/v2/storage/tokens/verify");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: "1001",
      description: "Master token",
      isMasterToken: true,
      canManageBuckets: true,
      canManageTokens: true,
      canReadAllFileUploads: true,
      canPurgeTrash: true,
      isExpired: false,
      isDisabled: false,
      // The features of a real production project (keboola/sapi-python-client tests/mocks/token_responses.py).
      owner: { id: 4242, name: "Emulated Project", features: ["syrup-jobs-limit-10", "oauth-v3", "queuev2", "storage-types", "allow-ai", "alternat"], defaultBackend: "snowflake" },
      admin: { role: "admin" },
      organization: { id: "1" },
    });
    expect(r.body.componentAccess).toBeUndefined();
    expect(r.body.creatorToken).toBeUndefined();
  });

  it("describes the limited token: not master, no admin, no componentAccess key", async () => {
    const r = await api("GET", "/v2/storage/tokens/verify", { token: "limited" });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: "1002", isMasterToken: false, canManageBuckets: false, canPurgeTrash: false });
    expect(r.body.admin).toBeUndefined();
    expect("componentAccess" in r.body).toBe(false);
    expect(r.body.creatorToken).toEqual({ id: 1001, description: "Master token" });
    expect(r.body.bucketPermissions).toEqual([]);
  });

  it("works branch-scoped with `default` and the numeric id", async () => {
    for (const b of ["default", "101"]) {
      const r = await api("GET", `/v2/storage/branch/${b}/tokens/verify`);
      expect(r.status).toBe(200);
      expect(r.body.id).toBe("1001");
    }
    const r = await api("GET", "/v2/storage/branch/999/tokens/verify");
    expect(r.status).toBe(404);
    expect(r.body.error).toBe('Branch id:"999" was not found.');
  });
});

describe("index and branches", () => {
  it("lists the services at the emulator's URLs, without components when excluded", async () => {
    const r = await api("GET", "/v2/storage?exclude=components", { token: null });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ api: "storage", version: "v2" });
    expect(r.body.components).toBeUndefined();
    const services = Object.fromEntries((r.body.services as Array<{ id: string; url: string }>).map((s) => [s.id, s.url]));
    expect(services).toMatchObject({ queue: emu.urls.queue, stream: emu.urls.stream, import: emu.urls.import });
    const full = await api("GET", "/v2/storage");
    expect(Array.isArray(full.body.components)).toBe(true);
    expect(full.body.components.map((c: { id: string }) => c.id)).toContain("keboola.variables");
  });

  it("lists the default branch", async () => {
    const r = await api("GET", "/v2/storage/dev-branches");
    expect(r.status).toBe(200);
    expect(r.body).toHaveLength(1);
    expect(r.body[0]).toMatchObject({ id: 101, name: "Main", isDefault: true, description: "" });
    const one = await api("GET", "/v2/storage/dev-branches/101");
    expect(one.body).toMatchObject({ id: 101, isDefault: true });
    const missing = await api("GET", "/v2/storage/dev-branches/7");
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('Branch id:"7" was not found.');
  });
});

// Last: the bucket it creates would be in the listings the tests above compare.
describe("bucket permissions", () => {
  it("lets a token that is not master but may manage buckets create one (manage on every bucket), and refuses the limited token", async () => {
    const limited = emu.state.tokens.find((t) => t.token === "limited")!;
    emu.state.tokens.push({ ...limited, id: "1009", token: "bucket-manager", description: "Bucket manager", canManageBuckets: true });
    const created = await api("POST", "/v2/storage/buckets", { token: "bucket-manager", json: { name: "managed", stage: "in" } });
    expect(created.status).toBe(201);
    const verified = await api("GET", "/v2/storage/tokens/verify", { token: "bucket-manager" });
    expect(verified.body.bucketPermissions).toMatchObject({ "in.c-managed": "manage" });
    const refused = await api("POST", "/v2/storage/buckets", { token: "limited", json: { name: "refused", stage: "in" } });
    expect(refused.status).toBe(403);
    expect((await api("GET", "/v2/storage/tokens/verify", { token: "limited" })).body.bucketPermissions).toMatchObject({ "in.c-managed": "read" });
  });
});
