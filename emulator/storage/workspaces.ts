import type { EmulatorContext } from "../core/context";
import { authenticated, type StorageApp } from "./auth";

// Storage workspaces (`GET /v2/storage[/branch/{b}]/workspaces`, apiary.apib "Workspaces"): the
// emulated project has no workspace backend, so the list is always empty. keboola-sdk-go's
// project cleaning lists them (CleanStorageWorkspaces, pkg/keboola/clean.go) before it deletes
// what it finds.

export function registerWorkspaceRoutes(api: StorageApp, ctx: EmulatorContext): void {
  api.get("/workspaces", authenticated(ctx), (c) => c.json([]));
}
