import type { EmulatorContext } from "../core/context";
import { isExpired, liveTokens, type TokenRecord } from "../core/tokens";
import { randomString } from "../core/random";
import type { StorageProject, StorageToken } from "../../keboola/storage-answers";
import { isOneOf } from "../../keboola/json";
import { authenticated, type StorageApp } from "./auth";
import { bucketPermission } from "./permissions";
import { readBody, list, str, type Body } from "./body";
import { errors, StorageHttpError } from "./errors";
import { nowStorage, rng, storageTime } from "./format";
import { projectFeatures } from "./project-features";
import { getBucket } from "./tables";

// The Storage API's tokens (apiary.apib "Tokens and Permissions" of keboola/storage-api-php-client,
// as keboola/keboola-sdk-go v2.21.0 pkg/keboola/storage_token.go calls it):
//   GET  /tokens/verify          the calling token, with its project (`owner`) and `organization`
//   GET  /tokens                 the project's tokens, without `owner` and `organization`
//   POST /tokens                 create a token (201), answered without `owner` and `organization`
//   GET  /tokens/{id}            a token's detail, with `owner` and `organization`
//   POST /tokens/{id}/refresh    a new secret; the old one stops working at once (200)
//   DELETE /tokens/{id}          204; a master token cannot be deleted
// The SDK's Token struct says which answers carry `organization`: "present in token verify and
// token detail responses; omitted in create, list and refresh responses" (storage_token.go), and
// its tests assert it (storage_token_test.go TestCreateToken_*, TestListAndDeleteToken,
// TestTokenDetailRequest, TestRefreshToken). Each path also answers under /branch/{branchId}
// ("same as for default branch", apiary.apib).
//
// Who may do what (keboola/storage-api-php-client tests/Common/TokensTest.php, the stored version
// a2ea3e061e48a48de818b96759441e2a33237ea3):
// - a token that may manage tokens (the admin's master token) lists, reads, refreshes and deletes
//   every token; any other token lists only itself, reads, refreshes and deletes only itself, and
//   gets 403 for another (testTokenWithoutTokensManagePermissionCanListAndViewOnlySelf,
//   testTokenWithoutTokensManagePermissionCannotRefreshOtherTokens, testDeleteOwnToken);
// - only master tokens create tokens ("only a master token can be used to create new tokens",
//   keboola/connection-docs management/project/tokens/index.md); a read-only user's gets 403
//   accessDenied (testReadOnlyUserCannotCreateLimitedToken); a master token that may not manage
//   tokens (a guest's) creates a token with its description and expiry only, every other attribute
//   ignored (apiary.apib "Create token", testGuestTokenCreateLimitedToken).
//
// The Scheduler's tokens (scheduler/routes.ts) are the project's tokens too: the schedule's
// `tokenId` reads back here (keboola-sdk-go pkg/keboola/scheduler_api_test.go
// TestSchedulerApiCalls, TestSchedulerTokenRefresh). The emulator never keeps their secret (a
// schedule's jobs run inside the emulator), so their answers have no `token` and they authenticate
// nothing; they go with their schedule, and a Storage DELETE removes only the token.

/** A token as the API shows it: the secret may be left out (see showsSecret). */
type TokenAnswer = Omit<StorageToken, "token"> & { token?: string };
/** A token as the list, create and refresh answers give it: no project, no organization. */
type ListedToken = Omit<TokenAnswer, "owner" | "organization">;

/**
 * Whether detail, list and verify answers show a token's secret: yes unless the project has the
 * `hide-decrypted-token` feature without `force-decrypted-token` (TokensTest.php
 * assertMasterTokenVisibility). Create and refresh always show it: that is when the string is
 * handed out ("the token string is shown only when the token is created", connection-docs).
 */
function showsSecret(ctx: EmulatorContext): boolean {
  const features = projectFeatures(ctx);
  return features.includes("force-decrypted-token") || !features.includes("hide-decrypted-token");
}

/**
 * The token's buckets, as `bucketPermissions` lists them: `manage` on every bucket for a token
 * that manages buckets (testAllBucketsTokenPermissions, testTokenMaximalOptions), else the
 * buckets it was granted (only those that still exist). The command line's tokens, created
 * without grants, keep the emulator's rule (storage/permissions.ts bucketPermission).
 */
function bucketsOf(ctx: EmulatorContext, token: TokenRecord): Record<string, string> {
  const branchId = ctx.state.project.defaultBranchId;
  const existing = Object.values(ctx.state.storage.buckets)
    .filter((b) => b.branchId === branchId)
    .map((b) => b.id);
  const out: Record<string, string> = {};
  for (const id of existing) {
    if (token.bucketPermissions === undefined) out[id] = bucketPermission(token);
    else if (token.canManageBuckets) out[id] = "manage";
    else if (token.bucketPermissions[id]) out[id] = token.bucketPermissions[id];
  }
  return out;
}

// `GET /v2/storage/tokens/verify` (also branch-scoped): what the token may do and whose project
// it is. Shape as the Storage API reference and keboola-sdk-go's Token: numeric `owner.id`,
// `admin` only for a master token, `creatorToken` only for a created (non-master) token,
// `componentAccess` only when the token was granted components (a token without component
// access has no such key and gets 403 `accessDenied` on configuration calls).

export function tokenDetail(ctx: EmulatorContext, token: TokenRecord, withSecret = showsSecret(ctx)): TokenAnswer {
  const master = ctx.state.tokens.find((t) => t.isMasterToken);
  const buckets = bucketsOf(ctx, token);
  const created = storageTime(token.created) ?? nowStorage(ctx);
  const creator = token.creator ?? (!token.isMasterToken && master ? { id: Number(master.id), description: master.description } : undefined);
  return {
    id: token.id,
    // The schedule tokens' secret is not kept (see above): no key rather than an empty string.
    ...(withSecret && token.token ? { token: token.token } : {}),
    description: token.description,
    created,
    refreshed: storageTime(token.refreshed ?? null) ?? created,
    uri: `${ctx.baseUrl()}/v2/storage/tokens/${token.id}`,
    isMasterToken: token.isMasterToken,
    canManageBuckets: token.canManageBuckets,
    canManageTokens: token.canManageTokens,
    canReadAllFileUploads: token.canReadAllFileUploads,
    canPurgeTrash: token.canPurgeTrash ?? token.isMasterToken,
    canManageProtectedDefaultBranch: false,
    canCreateJobs: token.canCreateJobs ?? false,
    // Null for a token that never expires (testTokenDefaultOptions), the time for one created
    // with `expiresIn` (testTokenMaximalOptions; keboola-sdk-go TestTokenDetailRequest: not nil).
    expires: storageTime(token.expires ?? null),
    isExpired: isExpired(token, ctx.now()),
    isDisabled: false,
    isBYODB: false,
    dailyCapacity: 0,
    // PHP serializes an empty map as a list (testGuestTokenCreateLimitedToken: `[]`).
    bucketPermissions: Object.keys(buckets).length ? buckets : [],
    ...(creator ? { creatorToken: creator } : {}),
    ...(token.componentAccess && token.componentAccess.length ? { componentAccess: [...token.componentAccess] } : {}),
    ...(token.isMasterToken
      ? // The user behind the token as the emulator records it (a test's guest or read-only user), else an admin.
        { admin: { id: Number(token.admin?.id ?? 1), name: token.admin?.name ?? "Emulated Admin", features: [], isOrganizationMember: true, role: token.admin?.role ?? "admin", isActivated: false } }
      : {}),
    organization: { id: "1" },
    owner: ownerDetail(ctx),
  };
}

function ownerDetail(ctx: EmulatorContext): StorageProject {
  const tables = Object.values(ctx.state.storage.tables);
  const rowsCount = tables.reduce((n, t) => n + t.rows.length, 0);
  return {
    id: ctx.state.project.id,
    name: ctx.state.project.name,
    type: "production",
    region: "us-east-1",
    created: "2024-01-01T00:00:00+0000",
    expires: null,
    features: projectFeatures(ctx),
    dataSizeBytes: 0,
    rowsCount,
    hasMysql: false,
    hasSynapse: false,
    hasRedshift: false,
    hasSnowflake: true,
    hasExasol: false,
    hasTeradata: false,
    hasBigquery: false,
    defaultBackend: "snowflake",
    hasTryModeOn: "0",
    limits: {
      "components.jobsParallelism": { name: "components.jobsParallelism", value: 10 },
      "storage.jobsParallelism": { name: "storage.jobsParallelism", value: 10 },
    },
    metrics: {
      "storage.dataSizeBytes": { name: "storage.dataSizeBytes", value: 0 },
      "storage.rowsCount": { name: "storage.rowsCount", value: rowsCount },
    },
    isDisabled: false,
    billedMonthlyPrice: null,
    dataRetentionTimeInDays: 7,
    assignedBackends: ["snowflake"],
    fileStorageProvider: "aws",
  };
}

/**
 * A token as the list, create and refresh answers give it: the detail without the project and
 * the organization (apiary.apib "List all tokens", "Create token", "Refresh Token"; keboola-sdk-go
 * storage_token.go on `Organization`).
 */
function listedToken(ctx: EmulatorContext, token: TokenRecord, withSecret = showsSecret(ctx)): ListedToken {
  const { owner: _owner, organization: _organization, ...listed } = tokenDetail(ctx, token, withSecret);
  return listed;
}

/** The schedules' tokens (see above), as token records; a deleted one is gone. */
function scheduleTokens(ctx: EmulatorContext): TokenRecord[] {
  return Object.values(ctx.state.scheduler.schedules)
    .filter((s) => !s.tokenDeleted)
    .map((s) => ({
      id: s.tokenId,
      token: "",
      description: s.tokenDescription,
      // What a schedule's token is granted is not public; the emulator's choice: it runs its
      // target (componentAccess), writes the buckets and reads the files a job needs.
      isMasterToken: false,
      canManageBuckets: true,
      canManageTokens: false,
      canReadAllFileUploads: true,
      canPurgeTrash: false,
      componentAccess: [s.target.componentId],
      created: s.tokenCreated ?? "",
      ...(s.tokenRefreshed ? { refreshed: s.tokenRefreshed } : {}),
    }));
}

/** Every token of the project that exists now: the live ones of the state, then the schedules'. */
function projectTokens(ctx: EmulatorContext): TokenRecord[] {
  return [...liveTokens(ctx.state.tokens, ctx.now()), ...scheduleTokens(ctx)];
}

/** Whether the calling token may see and change other tokens (else only itself, see above). */
const managesTokens = (token: TokenRecord): boolean => token.canManageTokens;

/**
 * The token `{id}` names, for a caller allowed to act on it: 403 for another token of a caller
 * that does not manage tokens, 404 `storage.tokens.notFound` for an id no token has (the code
 * keboola/keboola-as-code's template token manager checks to recreate a deleted token in its
 * RefreshToken: `apiErr.ErrCode == "storage.tokens.notFound"`; the message is the emulator's).
 */
function targetToken(ctx: EmulatorContext, caller: TokenRecord, id: string): TokenRecord {
  if (!managesTokens(caller) && id !== caller.id) throw errors.accessDenied();
  const found = projectTokens(ctx).find((t) => t.id === id);
  if (!found) throw errors.tokenNotFound(id);
  return found;
}

const BUCKET_GRANTS = ["read", "write"] as const;
type BucketGrant = (typeof BUCKET_GRANTS)[number];
const isBucketGrant = (v: unknown): v is BucketGrant => isOneOf(BUCKET_GRANTS, v);

/** A boolean attribute as JSON (`true`) or a form field (`1`, `true`) sends it. */
function flag(v: unknown): boolean {
  return v === true || v === 1 || v === "1" || v === "true";
}

/**
 * `bucketPermissions`: a map of existing bucket ids to `read` or `write`; `manage` or a bucket
 * that does not exist is 400 `storage.tokens.invalidPermissions` (TokensTest.php
 * testAssignNonExistingBucketPermissionShouldFail, testAssignNonExistingBucketShouldFail; only the
 * code is recorded there, the messages are the emulator's).
 */
function readBucketGrants(ctx: EmulatorContext, v: unknown): Record<string, BucketGrant> {
  if (v === undefined || v === null || (Array.isArray(v) && v.length === 0)) return {};
  if (typeof v !== "object" || Array.isArray(v)) throw new StorageHttpError(400, "storage.tokens.invalidPermissions", "Bucket permissions must be an object of bucket ids and permissions.");
  const branchId = ctx.state.project.defaultBranchId;
  const out: Record<string, BucketGrant> = {};
  for (const [bucketId, grant] of Object.entries(v)) {
    if (!isBucketGrant(grant)) {
      throw new StorageHttpError(400, "storage.tokens.invalidPermissions", `Invalid permission "${String(grant)}" for bucket "${bucketId}". Allowed permissions are: ${BUCKET_GRANTS.join(", ")}.`);
    }
    if (!getBucket(ctx, branchId, bucketId)) throw new StorageHttpError(400, "storage.tokens.invalidPermissions", `Bucket "${bucketId}" was not found in the project.`);
    out[bucketId] = grant;
  }
  return out;
}

/**
 * `expiresIn`: whole seconds, at least 1; the message is the real one (TokensTest.php
 * provideInvalidOptionsForGuestUser), the code is the emulator's (not recorded publicly).
 */
function readExpiresIn(v: unknown): number | undefined {
  if (v === undefined || v === null || v === "") return undefined;
  const n = typeof v === "number" ? v : Number(str(v));
  if (!Number.isInteger(n) || n < 1) throw new StorageHttpError(400, "storage.tokens.validation", "Minimal expiration must be greater or equal to 1 second(s)");
  return n;
}

/** A new secret in the real shape `<projectId>-<tokenId>-<40 hex>` (apiary.apib "Update Token" example). */
function newSecret(ctx: EmulatorContext, id: string): string {
  return `${ctx.state.project.id}-${id}-${randomString(rng(ctx), 40, "0123456789abcdef")}`;
}

function createToken(ctx: EmulatorContext, creator: TokenRecord, body: Body): TokenRecord {
  if (!creator.isMasterToken || creator.admin?.role === "readOnly") throw errors.accessDenied();
  const expiresIn = readExpiresIn(body.expiresIn);
  // A guest's master token (canManageTokens false) gets a token with description and expiry only.
  const full = managesTokens(creator) && creator.admin?.role !== "guest";
  const bucketPermissions = full ? readBucketGrants(ctx, body.bucketPermissions) : {};
  const componentAccess = full ? [...new Set(list(body.componentAccess) ?? [])] : [];
  const id = String(ctx.nextId("storage.token", 2001));
  const now = ctx.now();
  const description = str(body.description);
  const token: TokenRecord = {
    id,
    token: newSecret(ctx, id),
    // Without a description (keboola-sdk-go always sends one, maybe empty): "Created by
    // <creator's description>" (testTokenDefaultOptions).
    description: description ? description : `Created by ${creator.description}`,
    isMasterToken: false,
    canManageBuckets: full && flag(body.canManageBuckets),
    // Only a master token may manage tokens; a created one never does (testTokenMaximalOptions).
    canManageTokens: false,
    canReadAllFileUploads: full && flag(body.canReadAllFileUploads),
    canPurgeTrash: full && flag(body.canPurgeTrash),
    canCreateJobs: full && flag(body.canCreateJobs),
    bucketPermissions,
    ...(componentAccess.length ? { componentAccess } : {}),
    created: new Date(now).toISOString(),
    ...(expiresIn !== undefined ? { expires: new Date(now + expiresIn * 1000).toISOString() } : {}),
    creator: { id: Number(creator.id), description: creator.description },
  };
  // Expired tokens are deleted (core/tokens.ts isExpired): drop them from the state now.
  for (let i = ctx.state.tokens.length - 1; i >= 0; i--) if (isExpired(ctx.state.tokens[i]!, now)) ctx.state.tokens.splice(i, 1);
  ctx.state.tokens.push(token);
  return token;
}

export function registerTokenRoutes(api: StorageApp, ctx: EmulatorContext): void {
  const auth = authenticated(ctx);
  api.get("/tokens/verify", auth, (c) => c.json(tokenDetail(ctx, c.var.token)));

  api.get("/tokens", auth, (c) => {
    const caller = c.var.token;
    const visible = managesTokens(caller) ? projectTokens(ctx) : [caller];
    return c.json(visible.map((t) => listedToken(ctx, t)));
  });

  api.post("/tokens", auth, async (c) => {
    const { body } = await readBody(c);
    const token = createToken(ctx, c.var.token, body);
    return c.json(listedToken(ctx, token, true), 201);
  });

  // A token id is a number: any other is a path the API does not have (TokensTest.php
  // testTokenGetWhenTokenIsString, testInvalidTokenWhenTokenIsString: "resource not found").
  api.get("/tokens/:tokenId{[0-9]+}", auth, (c) => c.json(tokenDetail(ctx, targetToken(ctx, c.var.token, c.req.param("tokenId")))));

  api.post("/tokens/:tokenId/refresh", auth, (c) => {
    const id = c.req.param("tokenId");
    // The refresh route takes any id and checks it: "Argument "id" is expected to be type "int",
    // value "foo" given." (TokensTest.php testTokenRefreshWhenTokenIsString); the status and code
    // are those of the same check on a metadata id (storage-api-php-client MetadataTest.php: 400,
    // "APPLICATION_ERROR").
    if (!/^[0-9]+$/.test(id)) throw new StorageHttpError(400, "APPLICATION_ERROR", `Argument "id" is expected to be type "int", value "${id}" given.`);
    const target = targetToken(ctx, c.var.token, id);
    const now = new Date(ctx.now()).toISOString();
    const schedule = Object.values(ctx.state.scheduler.schedules).find((s) => s.tokenId === target.id && !s.tokenDeleted);
    if (schedule) {
      // The schedule's secret is not kept (see above): only the time moves.
      schedule.tokenRefreshed = now;
      return c.json(listedToken(ctx, { ...target, refreshed: now }, true));
    }
    // The same record gets a new secret, so the old one stops authenticating at once
    // (apiary.apib "Token Refresh"; TokensTest.php testTokenRefresh, testTokenRefreshesSelf).
    const record = ctx.state.tokens.find((t) => t.id === target.id)!;
    record.token = newSecret(ctx, record.id);
    record.refreshed = now;
    return c.json(listedToken(ctx, record, true));
  });

  api.delete("/tokens/:tokenId{[0-9]+}", auth, (c) => {
    const target = targetToken(ctx, c.var.token, c.req.param("tokenId"));
    // "It is possible to delete only the token that is not the master token" (apiary.apib "Delete Token").
    if (target.isMasterToken) throw errors.accessDenied();
    const schedule = Object.values(ctx.state.scheduler.schedules).find((s) => s.tokenId === target.id && !s.tokenDeleted);
    if (schedule) schedule.tokenDeleted = true;
    else ctx.state.tokens.splice(ctx.state.tokens.indexOf(ctx.state.tokens.find((t) => t.id === target.id)!), 1);
    return c.body(null, 204);
  });
}
