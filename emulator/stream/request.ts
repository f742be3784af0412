import type { Context } from "hono";
import type { EmulatorContext } from "../core/context";
import { authenticate, requireAdmin, resolveBranch, tokenHeader, type AuthScope } from "./auth";
import { applicationError, GoaErrors, StreamError } from "./errors";
import { NullSettingValue } from "./settings";
import { TaskLockError } from "./tasks";

// The request pipeline shared by all Stream API endpoints, in the real service's order: the
// request is decoded and validated (body first, then path/query parameters and the token header,
// merged into one error), the token is verified, the branch resolved, and writes need an admin.

export interface Scope {
  auth: AuthScope;
  projectId: number;
  branchId: number;
}

/**
 * Finishes decoding: `errs` holds the path/query parameter problems; a missing token header is
 * added last. Throws the merged 400.
 */
export function requireToken(c: Context, errs: GoaErrors = new GoaErrors()): string {
  const token = tokenHeader(c);
  if (token === undefined) errs.missingField("X-StorageApi-Token", "header");
  if (!errs.empty) throw errs.error();
  return token as string;
}

export function openScope(ctx: EmulatorContext, c: Context, token: string, opts: { write: boolean }): Scope {
  const auth = authenticate(ctx, token);
  const branchId = resolveBranch(ctx, c.req.param("branchId") ?? "default");
  if (opts.write) requireAdmin(auth);
  return { auth, projectId: auth.projectId, branchId };
}

/** Runs a handler and renders the service's errors. */
export async function handle(ctx: EmulatorContext, fn: () => Response | Promise<Response>): Promise<Response> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof StreamError) return e.response();
    // The real service panics on a `null` setting value and on a task lock held by a running
    // task of the same object (both are unexpected errors there).
    if (e instanceof NullSettingValue) return applicationError(ctx, "panicError").response();
    if (e instanceof TaskLockError) return applicationError(ctx).response();
    throw e;
  }
}
