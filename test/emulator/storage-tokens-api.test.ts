import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator, type Emulator } from "../../emulator/server";
import { call } from "./helpers";

// The Storage Tokens API (emulator/storage/tokens.ts) as keboola/keboola-sdk-go v2.21.0 uses it:
// pkg/keboola/storage_token.go sends `POST /v2/storage/tokens` with a JSON body of exactly
// `description`, `canManageBuckets`, `canReadAllFileUploads`, `canPurgeTrash` and, when set,
// `bucketPermissions`, `componentAccess`, `expiresIn` (request.StructToMap of createTokenOptions:
// `writeoptional` fields are left out when empty); its tests are pkg/keboola/storage_token_test.go.
// Where those tests say nothing, the expected answers come from keboola/storage-api-php-client
// (apiary.apib "Tokens and Permissions"; tests/Common/TokensTest.php, stored version
// a2ea3e061e48a48de818b96759441e2a33237ea3), cited per test as "TokensTest.php <test name>".

let emu: Emulator;
type Opts = Parameters<typeof call>[3];
const as = (token: string) => (method: string, path: string, opts: Opts = {}) => call(emu.url, method, path, { token, ...opts });
const api = as("master");
const clock = (advance: string) => call(emu.url, "POST", "/_emulator/clock", { json: { advance } });

/** The body keboola-sdk-go's CreateTokenRequest sends (the three flags always, the rest when set). */
function sdkBody(o: { description?: string; canManageBuckets?: boolean; canReadAllFileUploads?: boolean; canPurgeTrash?: boolean; bucketPermissions?: Record<string, string>; componentAccess?: string[]; expiresIn?: number }) {
  return {
    description: o.description ?? "",
    canManageBuckets: o.canManageBuckets ?? false,
    canReadAllFileUploads: o.canReadAllFileUploads ?? false,
    canPurgeTrash: o.canPurgeTrash ?? false,
    ...(o.bucketPermissions ? { bucketPermissions: o.bucketPermissions } : {}),
    ...(o.componentAccess ? { componentAccess: o.componentAccess } : {}),
    ...(o.expiresIn ? { expiresIn: o.expiresIn } : {}),
  };
}

async function createToken(body: ReturnType<typeof sdkBody>, by = api) {
  const r = await by("POST", "/v2/storage/tokens", { json: body });
  expect(r.status).toBe(201);
  return r.body;
}

/** Seconds between two Storage timestamps (`2017-11-13T16:48:28+0000`). */
const secondsBetween = (a: string, b: string) => (Date.parse(b.replace(/\+0000$/, "Z")) - Date.parse(a.replace(/\+0000$/, "Z"))) / 1000;

beforeAll(async () => {
  emu = await startEmulator({ token: "master", limitedToken: "limited", taskDurationMs: 20 });
  expect((await api("POST", "/v2/storage/buckets", { json: { name: "main", stage: "in" } })).status).toBeLessThan(300);
  expect((await api("POST", "/v2/storage/buckets", { json: { name: "other", stage: "out" } })).status).toBeLessThan(300);
});
afterAll(() => emu.close());

describe("creating a token", () => {
  it("grants the flags it is sent, answers with the secret and without the organization (SDK TestCreateToken_AllPerms)", async () => {
    const t = await createToken(sdkBody({ description: "create token request all perms test", canManageBuckets: true, canReadAllFileUploads: true, canPurgeTrash: true, expiresIn: 300 }));
    expect(t).toMatchObject({
      description: "create token request all perms test",
      isMasterToken: false,
      canManageBuckets: true,
      canReadAllFileUploads: true,
      canPurgeTrash: true,
      // A created token never manages tokens (TokensTest.php testTokenMaximalOptions).
      canManageTokens: false,
      isExpired: false,
      // The creating token (TokensTest.php testTokenDefaultOptions: its id and description).
      creatorToken: { id: 1001, description: "Master token" },
      // A token that manages buckets has `manage` on every bucket (testTokenMaximalOptions, testAllBucketsTokenPermissions).
      bucketPermissions: { "in.c-main": "manage", "out.c-other": "manage" },
    });
    // The SDK: Organization nil, ComponentAccess empty; the create answer has no project (apiary.apib "Create token").
    expect(t).not.toHaveProperty("organization");
    expect(t).not.toHaveProperty("owner");
    expect(t).not.toHaveProperty("componentAccess");
    expect(t).not.toHaveProperty("admin");
    // The secret in the real shape `<project>-<token id>-<40 hex>` (apiary.apib "Update Token" example).
    expect(t.token).toMatch(new RegExp(`^4242-${t.id}-[0-9a-f]{40}$`));
    expect(t.id).toMatch(/^\d+$/);
    // `expiresIn` seconds after it was created (TokensTest.php testTokenMaximalOptions: not null).
    expect(secondsBetween(t.created, t.expires)).toBe(300);
    expect(t.refreshed).toBe(t.created);
    expect(t.uri).toBe(`${emu.url}/v2/storage/tokens/${t.id}`);
  });

  it("grants the buckets and components it is sent (SDK TestCreateToken_SomePerms)", async () => {
    const t = await createToken(sdkBody({ description: "some perms", bucketPermissions: { "in.c-main": "read" }, componentAccess: ["keboola.ex-aws-s3"], expiresIn: 300 }));
    expect(t.bucketPermissions).toEqual({ "in.c-main": "read" });
    expect(t.componentAccess).toEqual(["keboola.ex-aws-s3"]);
    expect(t.canManageBuckets).toBe(false);
    expect(t).not.toHaveProperty("organization");
  });

  it("describes itself by its creator and never expires without expiresIn (TokensTest.php testTokenDefaultOptions)", async () => {
    const t = await createToken(sdkBody({}));
    expect(t.description).toBe("Created by Master token");
    expect(t.expires).toBeNull();
    // No buckets: PHP's empty array (testGuestTokenCreateLimitedToken asserts `[]`).
    expect(t.bucketPermissions).toEqual([]);
    expect(t).not.toHaveProperty("componentAccess");
    expect(t.canPurgeTrash).toBe(false);
  });

  it("refuses a `manage` grant and a bucket that does not exist (TokensTest.php testAssignNonExisting*ShouldFail)", async () => {
    const manage = await api("POST", "/v2/storage/tokens", { json: sdkBody({ bucketPermissions: { "in.c-main": "manage" } }) });
    expect(manage.status).toBe(400);
    expect(manage.body.code).toBe("storage.tokens.invalidPermissions");
    const missing = await api("POST", "/v2/storage/tokens", { json: sdkBody({ bucketPermissions: { "out.non-existing": "read" } }) });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe("storage.tokens.invalidPermissions");
  });

  it("refuses an expiry under one second (TokensTest.php provideInvalidOptionsForGuestUser)", async () => {
    const r = await api("POST", "/v2/storage/tokens", { json: { description: "Whatever", expiresIn: 0 } });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("Minimal expiration must be greater or equal to 1 second(s)");
  });

  it("is for master tokens only: a guest's makes a minimal token, a read-only user's and a non-master token get 403", async () => {
    const master = emu.state.tokens[0]!;
    // Users with other roles, as storage-branches.test.ts adds them.
    emu.state.tokens.push(
      { ...master, id: "1201", token: "guest", description: "Guest", canManageTokens: false, admin: { id: 21, name: "Guest", role: "guest" } },
      { ...master, id: "1202", token: "read-only", description: "Reader", canManageTokens: false, admin: { id: 22, name: "Reader", role: "readOnly" } },
    );
    // A guest: only description and expiry count, every other attribute is ignored (apiary.apib
    // "Create token"; TokensTest.php testGuestTokenCreateLimitedToken "full configuration").
    const byGuest = await createToken(sdkBody({ description: "Autosave test", expiresIn: 300, canReadAllFileUploads: true, canPurgeTrash: true, canManageBuckets: true, bucketPermissions: { "in.c-test": "read" }, componentAccess: ["wr-db"] }), as("guest"));
    expect(byGuest).toMatchObject({ description: "Autosave test", canManageBuckets: false, canReadAllFileUploads: false, canPurgeTrash: false, bucketPermissions: [], creatorToken: { id: 1201, description: "Guest" } });
    expect(byGuest).not.toHaveProperty("componentAccess");
    expect(byGuest.expires).not.toBeNull();
    // testReadOnlyUserCannotCreateLimitedToken: 403 "You don't have access to the resource."
    const byReader = await as("read-only")("POST", "/v2/storage/tokens", { json: sdkBody({}) });
    expect(byReader.status).toBe(403);
    expect(byReader.body).toMatchObject({ code: "accessDenied", error: "You don't have access to the resource." });
    // "only a master token can be used to create new tokens" (keboola/connection-docs management/project/tokens/index.md).
    expect((await as("limited")("POST", "/v2/storage/tokens", { json: sdkBody({}) })).status).toBe(403);
  });
});

describe("a token's detail", () => {
  it("has the project and the organization, and the expiry (SDK TestTokenDetailRequest)", async () => {
    const created = await createToken(sdkBody({ description: "token detail request test", expiresIn: 300 }));
    const r = await api("GET", `/v2/storage/tokens/${created.id}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: created.id, description: "token detail request test", expires: created.expires, organization: { id: "1" }, owner: { id: 4242 } });
    // The token string is shown in the detail without the hide-decrypted-token feature (TokensTest.php assertMasterTokenVisibility).
    expect(r.body.token).toBe(created.token);
    // "same as for default branch" (apiary.apib "Development branch token detail").
    expect((await api("GET", `/v2/storage/branch/default/tokens/${created.id}`)).body).toEqual(r.body);
  });

  it("of the master token has its admin (TokensTest.php testGetToken)", async () => {
    const r = await api("GET", "/v2/storage/tokens/1001");
    expect(r.body).toMatchObject({ id: "1001", isMasterToken: true, canPurgeTrash: true, admin: { role: "admin" } });
    expect(r.body.bucketPermissions).toEqual({ "in.c-main": "manage", "out.c-other": "manage" });
  });

  it("answers 404 storage.tokens.notFound for an unknown id and 'resource not found' for one that is not a number", async () => {
    // The code keboola/keboola-as-code checks to recreate a deleted token; the SDK's DeleteTokenRequest
    // ignores a 404 whose code ends in "notFound" (pkg/keboola/storage_hack.go isResourceNotFoundError).
    const unknown = await api("GET", "/v2/storage/tokens/999999");
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("storage.tokens.notFound");
    // TokensTest.php testTokenGetWhenTokenIsString, testInvalidTokenWhenTokenIsString.
    const word = await api("GET", "/v2/storage/tokens/foo");
    expect(word.status).toBe(404);
    expect(word.body.error).toContain("resource not found");
    expect((await api("DELETE", "/v2/storage/tokens/foo")).body.error).toContain("resource not found");
  });
});

describe("listing and deleting tokens (SDK TestListAndDeleteToken, TokensTest.php testTokenDrop)", () => {
  it("lists new tokens without the organization and forgets deleted ones", async () => {
    const token1 = await createToken(sdkBody({ description: "token1", expiresIn: 300 }));
    const token2 = await createToken(sdkBody({ description: "token2", expiresIn: 300 }));
    const ids = async () => ((await api("GET", "/v2/storage/tokens")).body as Array<{ id: string }>).map((t) => t.id);
    const list = (await api("GET", "/v2/storage/tokens")).body as Array<Record<string, unknown>>;
    expect(list.map((t) => t.id)).toEqual(expect.arrayContaining([token1.id, token2.id]));
    for (const t of list) {
      expect(t).not.toHaveProperty("organization");
      expect(t).not.toHaveProperty("owner");
    }
    expect(list.find((t) => t.id === token1.id)).toMatchObject({ description: "token1", token: token1.token, isMasterToken: false });

    expect((await api("DELETE", `/v2/storage/tokens/${token1.id}`)).status).toBe(204);
    expect(await ids()).not.toContain(token1.id);
    expect(await ids()).toContain(token2.id);
    // Deleted means gone: its secret no longer authenticates, its id is not found.
    expect((await as(token1.token)("GET", "/v2/storage/tokens/verify")).status).toBe(401);
    const again = await api("DELETE", `/v2/storage/tokens/${token1.id}`);
    expect(again.status).toBe(404);
    expect(again.body.code).toBe("storage.tokens.notFound");
    expect((await api("DELETE", `/v2/storage/tokens/${token2.id}`)).status).toBe(204);
    expect(await ids()).not.toContain(token2.id);
  });

  it("never deletes a master token (apiary.apib 'Delete Token')", async () => {
    const r = await api("DELETE", "/v2/storage/tokens/1001");
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("accessDenied");
    expect((await api("GET", "/v2/storage/tokens/verify")).status).toBe(200);
  });
});

describe("refreshing a token (SDK TestRefreshToken, TokensTest.php testTokenRefresh, testTokenRefreshesSelf)", () => {
  it("gives a new secret, the old one stops working at once, and `refreshed` moves", async () => {
    const created = await createToken(sdkBody({ description: "refresh token request test", expiresIn: 300 }));
    // The SDK sleeps 2 seconds; the emulator's clock moves instead.
    expect((await clock("2s")).status).toBe(200);
    const r = await api("POST", `/v2/storage/tokens/${created.id}/refresh`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: created.id, description: created.description, created: created.created });
    expect(r.body.refreshed).not.toBe(r.body.created);
    expect(secondsBetween(created.created, r.body.refreshed)).toBeGreaterThanOrEqual(2);
    expect(r.body).not.toHaveProperty("organization");
    expect(r.body.token).toMatch(new RegExp(`^4242-${created.id}-[0-9a-f]{40}$`));
    expect(r.body.token).not.toBe(created.token);
    // "the old token value will become immediately invalid" (apiary.apib "Token Refresh").
    const old = await as(created.token)("GET", "/v2/storage/tokens/verify");
    expect(old.status).toBe(401);
    expect(old.body.code).toBe("storage.tokenInvalid");
    const verified = await as(r.body.token)("GET", "/v2/storage/tokens/verify");
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ id: created.id, refreshed: r.body.refreshed });
    // The detail keeps the new secret and time (testTokenRefresh reads them back).
    expect((await api("GET", `/v2/storage/tokens/${created.id}`)).body).toMatchObject({ token: r.body.token, refreshed: r.body.refreshed });
  });

  it("checks the id: not a number is 400, an unknown one 404 (TokensTest.php testTokenRefreshWhenTokenIsString)", async () => {
    const word = await api("POST", "/v2/storage/tokens/foo/refresh");
    expect(word.status).toBe(400);
    expect(word.body.error).toBe('Argument "id" is expected to be type "int", value "foo" given.');
    const unknown = await api("POST", "/v2/storage/tokens/999999/refresh");
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("storage.tokens.notFound");
  });
});

describe("a created token at work", () => {
  it("authenticates as itself: not master, no admin, its creator (TokensTest.php testTokenWithExpiration)", async () => {
    const t = await createToken(sdkBody({ description: "worker", expiresIn: 120 }));
    const r = await as(t.token)("GET", "/v2/storage/tokens/verify");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: t.id, description: "worker", isMasterToken: false, expires: t.expires, isExpired: false, organization: { id: "1" }, owner: { id: 4242 } });
    expect(r.body).not.toHaveProperty("admin");
  });

  it("manages buckets only when granted (TokensTest.php testAllBucketsTokenPermissions, testTokenWithoutCanPurgeTrashPermission)", async () => {
    const without = await createToken(sdkBody({ description: "no buckets" }));
    const refused = await as(without.token)("POST", "/v2/storage/buckets", { json: { name: "by-token", stage: "in" } });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("accessDenied");
    const manager = await createToken(sdkBody({ description: "buckets", canManageBuckets: true }));
    expect((await as(manager.token)("POST", "/v2/storage/buckets", { json: { name: "by-token", stage: "in" } })).status).toBeLessThan(300);
    // The new bucket is the managing token's too (testAllBucketsTokenPermissions).
    expect((await api("GET", `/v2/storage/tokens/${manager.id}`)).body.bucketPermissions).toMatchObject({ "in.c-by-token": "manage" });
    expect((await api("DELETE", "/v2/storage/buckets/in.c-by-token")).status).toBeLessThan(300);
  });

  it("reaches the configurations of its components only (TokensTest.php testTokenComponentAccess, testTokenComponentAccessError)", async () => {
    const t = await createToken(sdkBody({ description: "components", componentAccess: ["wr-db"] }));
    const own = await as(t.token)("GET", "/v2/storage/components/wr-db/configs");
    expect(own.status).toBe(200);
    const other = await as(t.token)("GET", "/v2/storage/components/provisioning/configs");
    expect(other.status).toBe(403);
    expect(other.body.code).toBe("accessDenied");
    const none = await createToken(sdkBody({ description: "no components" }));
    expect((await as(none.token)("GET", "/v2/storage/components")).body.code).toBe("accessDenied");
  });

  it("without canManageTokens sees, refreshes and deletes only itself (TokensTest.php testTokenWithoutTokensManagePermission*, testDeleteOwnToken)", async () => {
    const self = await createToken(sdkBody({ description: "self" }));
    const other = await createToken(sdkBody({ description: "other" }));
    const bySelf = as(self.token);
    const listed = await bySelf("GET", "/v2/storage/tokens");
    expect(listed.status).toBe(200);
    expect(listed.body.map((t: { id: string }) => t.id)).toEqual([self.id]);
    expect((await bySelf("GET", `/v2/storage/tokens/${self.id}`)).body.id).toBe(self.id);
    expect((await bySelf("GET", `/v2/storage/tokens/${other.id}`)).status).toBe(403);
    expect((await bySelf("POST", `/v2/storage/tokens/${other.id}/refresh`)).status).toBe(403);
    expect((await bySelf("DELETE", `/v2/storage/tokens/${other.id}`)).status).toBe(403);
    expect((await api("GET", `/v2/storage/tokens/${other.id}`)).status).toBe(200);
    // Refreshing itself works; the client then has to use the new secret (testTokenRefreshesSelf).
    const refreshed = await bySelf("POST", `/v2/storage/tokens/${self.id}/refresh`);
    expect(refreshed.status).toBe(200);
    expect((await bySelf("GET", "/v2/storage/tokens/verify")).status).toBe(401);
    expect((await as(refreshed.body.token)("DELETE", `/v2/storage/tokens/${self.id}`)).status).toBe(204);
    expect((await api("GET", `/v2/storage/tokens/${self.id}`)).status).toBe(404);
  });
});

describe("tokens that expire and tokens kept across a restart", () => {
  it("an expired token is gone: it does not authenticate, is not listed and not found", async () => {
    // "If you set the token to expire, it will get deleted automatically after the specified
    // period" (keboola/connection-docs management/project/tokens/index.md); TokensTest.php testExpiredToken.
    const own = await startEmulator({ token: "master", taskDurationMs: 20 });
    try {
      const t = (await call(own.url, "POST", "/v2/storage/tokens", { token: "master", json: sdkBody({ description: "short", expiresIn: 60 }) })).body;
      expect((await call(own.url, "GET", "/v2/storage/tokens/verify", { token: t.token })).status).toBe(200);
      await call(own.url, "POST", "/_emulator/clock", { json: { advance: "61s" } });
      const r = await call(own.url, "GET", "/v2/storage/tokens/verify", { token: t.token });
      expect(r.status).toBe(401);
      expect(r.body.code).toBe("storage.tokenInvalid");
      expect((await call(own.url, "GET", `/v2/storage/tokens/${t.id}`, { token: "master" })).status).toBe(404);
      expect((await call(own.url, "GET", "/v2/storage/tokens", { token: "master" })).body.map((x: { id: string }) => x.id)).toEqual(["1001"]);
    } finally {
      await own.close();
    }
  });

  it("a created token survives a restart from the state file, as a project keeps it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "emu-tokens-"));
    const stateFile = join(dir, "state.json");
    try {
      const first = await startEmulator({ token: "master", taskDurationMs: 20, stateFile });
      const t = (await call(first.url, "POST", "/v2/storage/tokens", { token: "master", json: sdkBody({ description: "kept" }) })).body;
      await first.close();
      const second = await startEmulator({ token: "master", taskDurationMs: 20, stateFile });
      try {
        const r = await call(second.url, "GET", "/v2/storage/tokens/verify", { token: t.token });
        expect(r.status).toBe(200);
        expect(r.body).toMatchObject({ id: t.id, description: "kept" });
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the Scheduler's tokens (SDK pkg/keboola/scheduler_api_test.go)", () => {
  const cfgPath = (component: string) => `/v2/storage/branch/default/components/${component}/configs`;
  const scheduler = (method: string, path: string, opts: Opts = {}) => call(emu.urls.scheduler, method, path, { token: "master", ...opts });

  it("reads a schedule's token back by its id; a schedule refresh keeps the id and created time; the token goes with the schedule", async () => {
    expect((await api("POST", cfgPath("ex-generic-v2"), { json: { name: "Target", configurationId: "tok-target", configuration: {} } })).status).toBe(201);
    const schedule = { cronTab: "0 1 * * *", timezone: "UTC", state: "disabled" };
    const target = { componentId: "ex-generic-v2", configurationId: "tok-target", mode: "run" };
    expect((await api("POST", cfgPath("keboola.scheduler"), { json: { name: "Test", configurationId: "tok-sched", configuration: { schedule, target } } })).status).toBe(201);
    const s = (await scheduler("POST", "/schedules", { json: { configurationId: "tok-sched" } })).body;

    // TestSchedulerApiCalls: TokenDetailRequest(schedule.TokenID) answers that id.
    const before = await api("GET", `/v2/storage/tokens/${s.tokenId}`);
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ id: s.tokenId, isMasterToken: false, organization: { id: "1" } });
    // The emulator never hands out a schedule token's secret (emulator/storage/tokens.ts).
    expect(before.body).not.toHaveProperty("token");
    expect((await api("GET", "/v2/storage/tokens")).body.map((t: { id: string }) => t.id)).toContain(s.tokenId);

    // TestSchedulerTokenRefresh: after RefreshScheduleTokenRequest the token of the old
    // `schedule.TokenID` has the same id and created time; the Scheduler's OpenAPI spec: it
    // "Refresh[es] the token associated with the schedule" (api-evangelist/keboola
    // openapi/_original/keboola-scheduler-api-openapi.yml).
    await clock("2s");
    expect((await scheduler("POST", `/schedules/${s.id}/refreshToken`)).status).toBe(202);
    expect((await scheduler("GET", `/schedules/${s.id}`)).body.tokenId).toBe(s.tokenId);
    const after = await api("GET", `/v2/storage/tokens/${s.tokenId}`);
    expect(after.status).toBe(200);
    expect(after.body.id).toBe(before.body.id);
    expect(after.body.created).toBe(before.body.created);
    expect(after.body.refreshed).not.toBe(before.body.refreshed);

    // DeleteSchedulesForConfigurationRequest: the schedule, and with it its token, is gone.
    expect((await scheduler("DELETE", "/configurations/tok-sched")).status).toBe(204);
    const gone = await api("GET", `/v2/storage/tokens/${s.tokenId}`);
    expect(gone.status).toBe(404);
    expect(gone.body.code).toBe("storage.tokens.notFound");
  });
});

// The Stream API has its token verified by the Storage API first (emulator/stream/auth.ts), so an
// expired token is an invalid one there too, before the Stream service's own master-token rule.
describe("an expired token at the Stream API", () => {
  it("is an invalid token (401 storage.tokenInvalid), as at Storage, not a token lacking the master role", async () => {
    const created = await createToken(sdkBody({ description: "stream expiry", expiresIn: 5 }));
    const stream = (token: string) => call(emu.urls.stream, "GET", "/v1/branches/default/sources", { token });
    const live = await stream(created.token);
    expect(live.status).toBe(401);
    expect(live.body.error).toBe("stream.api.masterTokenRequired");
    await clock("6s");
    const expired = await stream(created.token);
    expect(expired.status).toBe(401);
    expect(expired.body.error).toBe("storage.tokenInvalid");
  });
});
