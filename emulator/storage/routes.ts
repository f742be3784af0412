import type { Hono } from "hono";
import type { EmulatorContext } from "../core/context";
import { registerBranchRoutes } from "./branches";
import { errors, storageErrorResponse } from "./errors";
import { StorageRouter } from "./router";
import { registerIndexRoutes } from "./service-index";
import { upgradeStorageState } from "./state";
import { registerTokenRoutes } from "./tokens";

// The Storage API (`/v2/storage/...`).

export function registerStorageRoutes(app: Hono, ctx: EmulatorContext): void {
  upgradeStorageState(ctx.state.storage);
  const router = new StorageRouter(app, ctx);
  registerIndexRoutes(router, ctx);
  registerTokenRoutes(router, ctx);
  registerBranchRoutes(router, ctx);
  // Anything else under /v2/storage is an unknown resource.
  app.all("/v2/storage/*", (c) => storageErrorResponse(c, ctx, errors.routeNotFound()));
}
