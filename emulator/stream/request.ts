import type { Context, MiddlewareHandler } from "hono";
import { createFactory, createMiddleware } from "hono/factory";
import type { EmulatorContext } from "../core/context";
import type { ServiceEnv } from "../core/http";
import { requireAdmin, resolveBranch, tokenHeader, verifyToken, type AuthScope } from "./auth";
import { GoaErrors } from "./errors";

// The request pipeline of every Stream API endpoint, as middleware in the real service's (Goa's)
// order: `decode` decodes and validates the request (the body first, then path and query
// parameters and the token header, merged into one error); `authenticate` verifies the token
// (project scope), `inBranch` also resolves the branch and, for writes, needs an admin. Errors are
// thrown and rendered by the Stream app's onError (routes.ts). An endpoint is its handlers, made
// with `endpoint.createHandlers(decode(...), inBranch(...), handler)`.

/** Set by `decode`: the endpoint's decoded input. */
export interface Decoded<I> {
  Variables: { input: I };
}

/** Set by `authenticate`: the caller. */
export interface Authenticated {
  Variables: { auth: AuthScope };
}

export interface Scope {
  auth: AuthScope;
  projectId: number;
  branchId: number;
}

/** Set by `inBranch`: the caller and the branch of the path. */
export interface InBranch {
  Variables: { scope: Scope };
}

export const endpoint = createFactory<ServiceEnv>();

/**
 * Finishes decoding: `errs` holds the path/query parameter problems; a missing token header is
 * added last. Throws the merged 400.
 */
export function requireToken(c: Context, errs: GoaErrors = new GoaErrors()): string {
  const token = tokenHeader(c);
  if (token === undefined) errs.missingField("X-StorageApi-Token", "header");
  if (token === undefined || !errs.empty) throw errs.error();
  return token;
}

/**
 * Decoding: `read` decodes and validates the body (throwing its error) and the path and query
 * parameters (collecting their problems in `errs`); the token header is checked last.
 */
export function decode<I>(read: (c: Context, errs: GoaErrors) => I | Promise<I>): MiddlewareHandler<Decoded<I>> {
  return createMiddleware<Decoded<I>>(async (c, next) => {
    const errs = new GoaErrors();
    const input = await read(c, errs);
    requireToken(c, errs);
    c.set("input", input);
    await next();
  });
}

/** The project scope (no branch): the token verified. */
export function authenticate(ctx: EmulatorContext): MiddlewareHandler<Authenticated> {
  return createMiddleware<Authenticated>(async (c, next) => {
    c.set("auth", verifyToken(ctx, requireToken(c)));
    await next();
  });
}

/** The branch scope: the token verified, the branch resolved, and for writes an admin. */
export function inBranch(ctx: EmulatorContext, access: "read" | "write"): MiddlewareHandler<InBranch> {
  return createMiddleware<InBranch>(async (c, next) => {
    const auth = verifyToken(ctx, requireToken(c));
    const branchId = resolveBranch(ctx, c.req.param("branchId") ?? "default");
    if (access === "write") requireAdmin(auth);
    c.set("scope", { auth, projectId: auth.projectId, branchId });
    await next();
  });
}
