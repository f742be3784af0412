import type { Context, Hono } from "hono";
import type { EmulatorContext } from "../core/context";
import type { TokenRecord } from "../core/tokens";
import { InvalidJsonBody } from "./body";
import { StorageHttpError, errors, storageErrorResponse } from "./errors";

// Registration of Storage API routes: every route answers at `/v2/storage/<path>` and at the
// branch-scoped `/v2/storage/branch/{branchId}/<path>` (`default` or the numeric id), with and
// without a trailing slash; the token is checked first (except for public routes) and thrown
// StorageHttpErrors become the real error bodies.

export interface StorageRequest {
  c: Context;
  /** The authenticated token (a placeholder on public routes). */
  token: TokenRecord;
  /** Numeric id of the branch the call is scoped to. */
  branchId: number;
  /** Whether the path was the branch-scoped variant. */
  branchScoped: boolean;
}

export type StorageHandler = (r: StorageRequest) => Response | Promise<Response>;
type Method = "GET" | "POST" | "PUT" | "DELETE" | "PATCH";

export interface RouteOptions {
  /** No token needed (the API index). */
  public?: boolean;
  /** Register the branch-scoped variant too (default true). */
  branch?: boolean;
}

export class StorageRouter {
  constructor(
    private readonly app: Hono,
    private readonly ctx: EmulatorContext,
  ) {}

  on(method: Method, path: string, handler: StorageHandler, opts: RouteOptions = {}): void {
    const paths = [`/v2/storage${path}`];
    if (opts.branch !== false) paths.push(`/v2/storage/branch/:branchId${path}`);
    for (const p of paths) {
      for (const variant of p.endsWith("/") ? [p] : [p, `${p}/`]) {
        this.app.on(method, variant, (c) => this.run(c, handler, opts));
      }
    }
  }

  private async run(c: Context, handler: StorageHandler, opts: RouteOptions): Promise<Response> {
    try {
      const token = opts.public ? publicToken : authenticate(this.ctx, c);
      const branchParam = c.req.param("branchId");
      const branchId = resolveBranch(this.ctx, branchParam);
      return await handler({ c, token, branchId, branchScoped: branchParam !== undefined });
    } catch (err) {
      if (err instanceof StorageHttpError) return storageErrorResponse(c, this.ctx, err);
      if (err instanceof InvalidJsonBody)
        return storageErrorResponse(c, this.ctx, new StorageHttpError(400, "validation.invalidJson", "Invalid JSON in request body."));
      throw err;
    }
  }
}

export function authenticate(ctx: EmulatorContext, c: Context): TokenRecord {
  const header = c.req.header("X-StorageApi-Token");
  if (!header) throw errors.tokenMissing();
  const token = ctx.tokenOf(c);
  if (!token) throw errors.tokenInvalid();
  return token;
}

/** `default` or the numeric id of an existing branch (only the default branch exists). */
export function resolveBranch(ctx: EmulatorContext, param: string | undefined): number {
  const def = ctx.state.project.defaultBranchId;
  if (param === undefined || param === "default" || param === String(def)) return def;
  throw errors.branchNotFound(param);
}

const publicToken: TokenRecord = {
  id: "0",
  token: "",
  description: "",
  isMasterToken: false,
  canManageBuckets: false,
  canManageTokens: false,
  canReadAllFileUploads: false,
  created: "",
};

/** A path parameter of the matched route. */
export function param(c: Context, name: string): string {
  return c.req.param(name) ?? "";
}
