import type { Context } from "hono";
import type { EmulatorContext } from "../core/context";
import { randomString } from "../core/random";
import { findBranch } from "../storage/branches";
import { tokenBySecret, type TokenAdmin, type TokenRecord } from "../core/tokens";
import { badRequest, forbidden, StreamError } from "./errors";
import { goQuote } from "./gofmt";
import type { ByRecord } from "./state";

// Authentication of the Stream API, in the real order: the token header is checked while the
// request is decoded (400 missingField), the token is then verified by the Storage API (its 401
// passes through), the project scope requires a master token (401 masterTokenRequired, on reads
// too), the branch is resolved, and writes additionally need the "admin" role of the token's user
// (403 forbidden).

/** The X-StorageApi-Token header as the service reads it ("Bearer x" -> "x"); undefined if empty. */
export function tokenHeader(c: Context): string | undefined {
  const raw = c.req.header("X-StorageApi-Token");
  if (!raw) return undefined;
  const space = raw.indexOf(" ");
  return space >= 0 ? raw.slice(space + 1) : raw;
}

/** As the Storage emulation's token verify reports the master token's admin. */
const DEFAULT_ADMIN: TokenAdmin = { id: 1, name: "Emulated Admin", role: "admin" };

function adminOf(token: TokenRecord): TokenAdmin {
  return token.admin ?? DEFAULT_ADMIN;
}

const exceptionId = (ctx: EmulatorContext) => `exception-${randomString(ctx.random, 32, "0123456789abcdef")}`;

export interface AuthScope {
  token: TokenRecord;
  projectId: number;
  by: ByRecord;
}

/** Verifies the token (already known to be present). */
export function verifyToken(ctx: EmulatorContext, tokenValue: string): AuthScope {
  // The Storage API verifies it: an expired token is gone there (core/tokens.ts isExpired).
  const token = tokenBySecret(ctx.state.tokens, tokenValue, ctx.now());
  if (!token) {
    // The Storage API's answer, passed through unchanged by the Stream API.
    throw new StreamError(401, "storage.tokenInvalid", "Invalid access token.", exceptionId(ctx));
  }
  if (!token.isMasterToken) {
    throw new StreamError(401, "stream.api.masterTokenRequired", "Please provide a master token of a project administrator.");
  }
  const admin = adminOf(token);
  const by: ByRecord = { type: "user", tokenId: token.id, tokenDesc: token.description };
  if (admin.id !== undefined) by.userId = String(admin.id);
  if (admin.name) by.userName = admin.name;
  return { token, projectId: ctx.state.project.id, by };
}

/** Write operations: only a token of a user with the "admin" role. */
export function requireAdmin(scope: AuthScope): void {
  const role = adminOf(scope.token).role ?? "admin";
  if (role !== "admin") throw forbidden("only admin token can do write operations on streams");
}

/**
 * `default` or a branch's numeric id. The real service serves the default branch only: it asks the
 * Storage API for a branch it does not know yet (`GET /v2/storage/dev-branches/{id}`) and refuses
 * a development branch with 400 `currently only default branch is supported, branch "<id>" is not
 * default`; an id Storage does not know answers Storage's 404, passed through
 * (keboola/keboola-as-code internal/pkg/service/stream/dependencies/reqbranch.go `createBranch`
 * and reqbranch_test.go TestBranchRequestScope_NotDefaultBranch). The branch is resolved while the
 * token is authenticated (api/service/auth.go `APIKeyAuth`), so on every endpoint with a
 * `{branchId}`, before the admin check of writes. No source, sink or task can exist in a
 * development branch, so deleting one leaves the Stream service untouched.
 */
export function resolveBranch(ctx: EmulatorContext, raw: string): number {
  const defaultId = ctx.state.project.defaultBranchId;
  if (raw === "default") return defaultId;
  if (!/^-?\d+$/.test(raw)) {
    throw badRequest(`invalid branch: expected "default" or <int>, given ${goQuote(raw)}`);
  }
  const id = Number(raw);
  if (id === defaultId) return defaultId;
  if (findBranch(ctx, id)) {
    throw badRequest(`currently only default branch is supported, branch "${id}" is not default`);
  }
  // The Storage API's answer for an unknown branch, passed through.
  throw new StreamError(404, "devBranch.notFound", `Branch id:"${id}" was not found.`, exceptionId(ctx));
}
