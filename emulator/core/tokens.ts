// Storage API tokens known to the emulator. The master token can do everything; the optional
// limited token mirrors a real non-admin token without configuration management, so the
// provider's permission errors can be tested.
export interface TokenRecord {
  id: string;
  token: string;
  description: string;
  isMasterToken: boolean;
  canManageBuckets: boolean;
  canManageTokens: boolean;
  canReadAllFileUploads: boolean;
  /**
   * Components whose configurations a non-master token may read and manage (the real
   * `componentAccess`); a master token has access to all, whatever this says.
   */
  componentAccess?: string[];
  created: string;
  /**
   * The fields below are those of a token created through `POST /v2/storage/tokens`
   * (storage/tokens.ts); the master and limited tokens of the command line leave them out and
   * keep their defaults (canPurgeTrash: a master token's; no expiry; refreshed when created).
   */
  /** Whether the token may delete configurations from the trash for good. */
  canPurgeTrash?: boolean;
  /** The `canCreateJobs` flag it was created with (apiary.apib "Create token"). */
  canCreateJobs?: boolean;
  /**
   * The buckets the token was granted, by id (`read` or `write`), as it was created with them;
   * absent for the command line's tokens, which see every bucket (storage/permissions.ts).
   */
  bucketPermissions?: Record<string, "read" | "write">;
  /** ISO time the token expires at (`expiresIn` seconds after it was created); absent: never. */
  expires?: string;
  /** ISO time the token's secret was last refreshed; absent: when it was created. */
  refreshed?: string;
  /** The token that created this one, as the real `creatorToken` names it. */
  creator?: { id: number; description: string };
  /**
   * The user behind a master token, as the Stream API sees it (emulator/stream/auth.ts; the role
   * defaults to "admin"). Tests put their own here (a user without the admin role).
   */
  admin?: TokenAdmin;
}

/** The user behind a master token. */
export interface TokenAdmin {
  id?: number | string;
  name?: string;
  role?: string;
}

/**
 * A project's master token. The first project's is 1001 as it always was; a further project's
 * gets an id of the stack's token sequence (core/projects.ts), since token ids are unique on a
 * stack, not within a project.
 */
export function masterToken(token: string, created: string, id = "1001"): TokenRecord {
  return {
    id,
    token,
    description: "Master token",
    isMasterToken: true,
    canManageBuckets: true,
    canManageTokens: true,
    canReadAllFileUploads: true,
    created,
  };
}

export function limitedToken(token: string, created: string): TokenRecord {
  return {
    id: "1002",
    token,
    description: "Limited token",
    isMasterToken: false,
    canManageBuckets: false,
    canManageTokens: false,
    canReadAllFileUploads: false,
    created,
  };
}

/**
 * Whether the token has expired by the emulated clock. An expired token is gone in Storage:
 * "If you set the token to expire, it will get deleted automatically after the specified
 * period" (keboola/connection-docs management/project/tokens/index.md), and a request with it
 * fails authentication (keboola/storage-api-php-client tests/Common/TokensTest.php
 * testExpiredToken).
 */
export function isExpired(token: TokenRecord, nowMs: number): boolean {
  return token.expires !== undefined && Date.parse(token.expires) <= nowMs;
}

/** The tokens that still exist at `nowMs` (expired ones are deleted, see isExpired). */
export function liveTokens(tokens: readonly TokenRecord[], nowMs: number): TokenRecord[] {
  return tokens.filter((t) => !isExpired(t, nowMs));
}

/** The live token whose secret is `secret`: what authenticates a request. */
export function tokenBySecret(tokens: readonly TokenRecord[], secret: string, nowMs: number): TokenRecord | undefined {
  return tokens.find((t) => t.token === secret && !isExpired(t, nowMs));
}

/**
 * The tokens after a restart from a state file: the command line's tokens (so a restart with a
 * new token works) and the tokens created through the API before it, as a real project keeps them.
 */
export function restoredTokens(fromCommandLine: TokenRecord[], saved: readonly TokenRecord[] | undefined): TokenRecord[] {
  const ids = new Set(fromCommandLine.map((t) => t.id));
  return [...fromCommandLine, ...(saved ?? []).filter((t) => t.creator !== undefined && !ids.has(t.id))];
}
