import { Hono } from "hono";
import type { EmulatorContext } from "../core/context";
import type { StorageEnv } from "./auth";
import { InvalidJsonBody } from "./body";
import { registerBranchPullRoutes } from "./branch-pull";
import { registerBranchRoutes } from "./branches";
import { registerBucketRoutes } from "./buckets";
import { addComponents } from "./components";
import { registerComponentRoutes } from "./component-routes";
import { registerConfigurationRoutes } from "./configurations";
import { StorageHttpError, errors, storageErrorResponse } from "./errors";
import { registerFileRoutes } from "./files";
import { registerStorageJobs } from "./jobs";
import { registerEventRoutes } from "./events";
import { registerKeyMetadataRoutes } from "./key-metadata";
import { registerMetadataRoutes } from "./metadata";
import { registerRowRoutes } from "./rows";
import { registerIndexRoutes } from "./service-index";
import { upgradeStorageState } from "./state";
import { registerTableRoutes } from "./table-routes";
import { registerTableSchemaRoutes } from "./table-schema";
import { registerTokenRoutes } from "./tokens";
import { registerVersionRoutes } from "./versions";
import { registerWorkspaceRoutes } from "./workspaces";

// The Storage API, mounted at `/v2/storage`. Routes of the project (the index, dev branches, a
// component's detail) answer once; routes of a branch answer at `/<path>` (the default branch)
// and at `/branch/{branchId}/<path>`. The server routes every path with or without a trailing
// slash (see server.ts). Anything else is an unknown resource; thrown StorageHttpErrors become
// the real error bodies.

export function storageApp(ctx: EmulatorContext): Hono<StorageEnv> {
  upgradeStorageState(ctx.state.storage);
  if (ctx.options.components?.length) {
    addComponents(ctx.state.storage, ctx.options.components);
    ctx.save();
  }

  const api = new Hono<StorageEnv>();
  registerIndexRoutes(api, ctx);
  registerBranchRoutes(api, ctx);
  registerComponentRoutes(api, ctx);

  const branch = new Hono<StorageEnv>();
  registerTokenRoutes(branch, ctx);
  registerStorageJobs(branch, ctx);
  registerBucketRoutes(branch, ctx);
  registerTableRoutes(branch, ctx);
  registerTableSchemaRoutes(branch, ctx);
  registerBranchPullRoutes(branch, ctx);
  registerMetadataRoutes(branch, ctx);
  registerKeyMetadataRoutes(branch, ctx);
  registerEventRoutes(branch, ctx);
  registerWorkspaceRoutes(branch, ctx);
  registerFileRoutes(branch, ctx);
  registerConfigurationRoutes(branch, ctx);
  registerRowRoutes(branch, ctx);
  registerVersionRoutes(branch, ctx);
  api.route("/", branch);
  api.route("/branch/:branchId", branch);

  api.all("*", () => {
    throw errors.routeNotFound();
  });

  api.onError((err, c) => {
    if (err instanceof StorageHttpError) return storageErrorResponse(c, ctx, err);
    if (err instanceof InvalidJsonBody) {
      return storageErrorResponse(c, ctx, new StorageHttpError(400, "validation.invalidJson", "Invalid JSON in request body."));
    }
    throw err;
  });
  return api;
}
