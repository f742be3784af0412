import type { EmulatorContext } from "../core/context";
import type { StorageDevBranch } from "../../keboola/storage-answers";
import { authenticated, type StorageApp } from "./auth";
import { errors } from "./errors";

// Development branches: the emulated project has only its default branch ("Main").
// `GET /v2/storage/dev-branches` and `GET /v2/storage/dev-branches/{id}`; an unknown id answers
// 404 `Branch id:"<id>" was not found.` (message from the Storage API tests).

export function defaultBranch(ctx: EmulatorContext): StorageDevBranch {
  const master = ctx.state.tokens.find((t) => t.isMasterToken);
  return {
    id: ctx.state.project.defaultBranchId,
    name: "Main",
    description: "",
    created: "2024-01-01T00:00:00+0000",
    creatorToken: master ? { id: Number(master.id), description: master.description } : null,
    isDefault: true,
  };
}

export function registerBranchRoutes(api: StorageApp, ctx: EmulatorContext): void {
  const auth = authenticated(ctx);
  api.get("/dev-branches", auth, (c) => c.json([defaultBranch(ctx)]));
  api.get("/dev-branches/:id", auth, (c) => {
    const id = c.req.param("id");
    if (id !== "default" && id !== String(ctx.state.project.defaultBranchId)) throw errors.branchNotFound(id);
    return c.json(defaultBranch(ctx));
  });
}
