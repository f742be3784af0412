import type { Hono } from "hono";
import type { EmulatorContext } from "../core/context";
import { registerBranchRoutes } from "./branches";
import { registerBucketRoutes } from "./buckets";
import { addComponents, registerComponentRoutes } from "./components";
import { registerConfigurationRoutes } from "./configurations";
import { errors, storageErrorResponse } from "./errors";
import { registerFileRoutes } from "./files";
import { registerStorageJobs } from "./jobs";
import { StorageRouter } from "./router";
import { registerRowRoutes } from "./rows";
import { registerIndexRoutes } from "./service-index";
import { upgradeStorageState } from "./state";
import { registerTableRoutes } from "./table-routes";
import { registerTokenRoutes } from "./tokens";
import { registerVersionRoutes } from "./versions";

// The Storage API (`/v2/storage/...`), the upload helper (`/import/upload-file`) and the
// emulated object store (`/files/...`).

export function registerStorageRoutes(app: Hono, ctx: EmulatorContext): void {
  upgradeStorageState(ctx.state.storage);
  if (ctx.options.components?.length) {
    addComponents(ctx.state.storage, ctx.options.components);
    ctx.save();
  }
  const router = new StorageRouter(app, ctx);
  registerIndexRoutes(router, ctx);
  registerTokenRoutes(router, ctx);
  registerBranchRoutes(router, ctx);
  registerStorageJobs(router, ctx);
  registerBucketRoutes(router, ctx);
  registerTableRoutes(router, ctx);
  registerFileRoutes(router, ctx);
  registerComponentRoutes(router, ctx);
  registerConfigurationRoutes(router, ctx);
  registerRowRoutes(router, ctx);
  registerVersionRoutes(router, ctx);
  // Anything else under /v2/storage is an unknown resource.
  app.all("/v2/storage/*", (c) => storageErrorResponse(c, ctx, errors.routeNotFound()));
}
