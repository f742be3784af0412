import type { EmulatorContext } from "../core/context";
import type { TokenRecord } from "../core/tokens";
import type { StorageProject, StorageToken } from "../../keboola/storage-answers";
import { authenticated, type StorageApp } from "./auth";
import { bucketPermission } from "./permissions";
import { errors } from "./errors";
import { nowStorage, storageTime } from "./format";
import { projectFeatures } from "./project-features";

// `GET /v2/storage/tokens/verify` (also branch-scoped): what the token may do and whose project
// it is. Shape as the Storage API reference and keboola-sdk-go's Token: numeric `owner.id`,
// `admin` only for a master token, `creatorToken` only for a created (non-master) token,
// `componentAccess` only when the token was granted components (a token without component
// access has no such key and gets 403 `accessDenied` on configuration calls).

export function tokenDetail(ctx: EmulatorContext, token: TokenRecord): StorageToken {
  const master = ctx.state.tokens.find((t) => t.isMasterToken);
  const buckets: Record<string, string> = {};
  const branchId = ctx.state.project.defaultBranchId;
  for (const b of Object.values(ctx.state.storage.buckets)) if (b.branchId === branchId) buckets[b.id] = bucketPermission(token);
  const created = storageTime(token.created) ?? nowStorage(ctx);
  return {
    id: token.id,
    token: token.token,
    description: token.description,
    created,
    refreshed: created,
    uri: `${ctx.baseUrl()}/v2/storage/tokens/${token.id}`,
    isMasterToken: token.isMasterToken,
    canManageBuckets: token.canManageBuckets,
    canManageTokens: token.canManageTokens,
    canReadAllFileUploads: token.canReadAllFileUploads,
    canPurgeTrash: token.isMasterToken,
    canManageProtectedDefaultBranch: false,
    canCreateJobs: false,
    expires: null,
    isExpired: false,
    isDisabled: false,
    isBYODB: false,
    dailyCapacity: 0,
    // PHP serializes an empty map as a list.
    bucketPermissions: Object.keys(buckets).length ? buckets : [],
    ...(!token.isMasterToken && master ? { creatorToken: { id: Number(master.id), description: master.description } } : {}),
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
 * A token as `GET /tokens` lists it: the detail without the project and the organization
 * (apiary.apib "List all tokens").
 */
function listedToken(ctx: EmulatorContext, token: TokenRecord): Omit<StorageToken, "owner" | "organization"> {
  const { owner: _owner, organization: _organization, ...listed } = tokenDetail(ctx, token);
  return listed;
}

export function registerTokenRoutes(api: StorageApp, ctx: EmulatorContext): void {
  const auth = authenticated(ctx);
  api.get("/tokens/verify", auth, (c) => c.json(tokenDetail(ctx, c.var.token)));
  // The project's tokens (apiary.apib "Tokens Collection", "Delete Token"): listed for a token
  // that may manage tokens; only a token that is not a master token can be deleted. The
  // keboola-sdk-go project cleaning (CleanProjectRequest) lists them and deletes the others.
  api.get("/tokens", auth, (c) => {
    if (!c.var.token.canManageTokens) throw errors.accessDenied();
    return c.json(ctx.state.tokens.map((t) => listedToken(ctx, t)));
  });
  api.delete("/tokens/:tokenId", auth, (c) => {
    if (!c.var.token.canManageTokens) throw errors.accessDenied();
    const i = ctx.state.tokens.findIndex((t) => t.id === c.req.param("tokenId"));
    const found = ctx.state.tokens[i];
    if (!found) throw errors.tokenNotFound(c.req.param("tokenId"));
    if (found.isMasterToken) throw errors.accessDenied();
    ctx.state.tokens.splice(i, 1);
    return c.body(null, 204);
  });
}
