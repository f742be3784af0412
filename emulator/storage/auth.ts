import type { Hono, MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import type { EmulatorContext } from "../core/context";
import type { NodeBindings } from "../core/http";
import type { TokenRecord } from "../core/tokens";
import { errors } from "./errors";

// Authentication of the Storage API: a middleware of every route but the public ones (the API
// index, a component's detail without a branch in the path). It checks the token first, then the
// branch of a branch-scoped path (`/branch/{branchId}/...`: `default` or the numeric id), and
// sets both for the handler.

export interface StorageEnv {
  Bindings: NodeBindings;
  Variables: {
    /** The authenticated token. */
    token: TokenRecord;
    /** Numeric id of the branch the call is scoped to (the default branch without one in the path). */
    branchId: number;
  };
}

export type StorageApp = Hono<StorageEnv>;

export function authenticated(ctx: EmulatorContext): MiddlewareHandler<StorageEnv> {
  return createMiddleware<StorageEnv>(async (c, next) => {
    if (!c.req.header("X-StorageApi-Token")) throw errors.tokenMissing();
    const token = ctx.tokenOf(c);
    if (!token) throw errors.tokenInvalid();
    c.set("token", token);
    c.set("branchId", resolveBranch(ctx, c.req.param("branchId")));
    await next();
  });
}

/** `default` or the numeric id of an existing branch (the default one or a development branch, branches.ts). */
export function resolveBranch(ctx: EmulatorContext, param: string | undefined): number {
  const def = ctx.state.project.defaultBranchId;
  if (param === undefined || param === "default" || param === String(def)) return def;
  if (/^\d+$/.test(param) && ctx.state.storage.branches[param]) return Number(param);
  throw errors.branchNotFound(param);
}
