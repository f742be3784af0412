import type { EmulatorContext } from "../core/context";
import type { StorageKeyMetadata } from "../../keboola/storage-answers";
import type { MiddlewareHandler } from "hono";
import { authenticated, type StorageApp, type StorageEnv } from "./auth";
import { list, readBody, readQuery, str } from "./body";
import { ensureDefaultBranch, findBranch } from "./branches";
import { requireConfig } from "./configurations";
import { StorageHttpError, errors } from "./errors";
import { nowStorage } from "./format";
import { entriesOf, validation } from "./metadata";
import { canAccessComponent, requireComponentAccess } from "./permissions";
import type { KeyMetadataEntry } from "./state";

// Metadata of branches and of component configurations, and the search of configurations by
// their metadata (keboola/storage-api-php-client apiary.apib "Development Branch Metadata",
// "Components Configurations Metadata", "Search Components Configurations"; its tests
// tests/Common/BranchMetadataTest.php, ConfigurationMetadataTest.php and
// SearchComponentsConfigurationsTest.php at commit f1d929a7; keboola-sdk-go
// pkg/keboola/storage_branch.go and storage_config.go call them):
//   GET    /branch/{b}/metadata                             -> [entry]
//   POST   /branch/{b}/metadata {metadata: [{key, value}]}   -> 201 [every entry of the branch]
//   DELETE /branch/{b}/metadata/{id}                        -> 204; gone: 404 `Metadata with id "<id>" not found`
//   GET|POST .../components/{c}/configs/{id}/metadata        the same for a configuration
//   DELETE .../components/{c}/configs/{id}/metadata/{mid}    204; in a development branch 501
//                                                            `Delete metadata is not implemented for development branch`
//   GET    /branch/{b}/search/component-configurations?componentId=&configurationId=&metadataKeys[]=&include=filteredMetadata
//          -> [{idComponent, configurationId, metadata?}]; 501 `Not implemented` without a branch in the path
// An entry is {id, key, value, timestamp}, without a provider (keboola/sapi-python-client
// tests/mocks/branches_responses.py records one); the same key updates the entry (new value and
// timestamp, same id). A configuration in the trash answers 404 and keeps its metadata for a restore.

const configBase = "/components/:componentId/configs/:configId/metadata";

const keyEntryJson = (m: KeyMetadataEntry): StorageKeyMetadata => ({ id: m.id, key: m.key, value: m.value, timestamp: m.timestamp });

function setEntries(ctx: EmulatorContext, entries: KeyMetadataEntry[], raw: unknown): void {
  const inputs = entriesOf(raw, "metadata");
  if (!inputs.length) throw validation("metadata", "This field is missing.");
  for (const m of inputs) {
    const found = entries.find((e) => e.key === m.key);
    if (found) {
      found.value = m.value;
      found.timestamp = nowStorage(ctx);
    } else entries.push({ id: String(ctx.nextId("storage.metadata", 19501)), key: m.key, value: m.value, timestamp: nowStorage(ctx) });
  }
}

/** The branch a branch-scoped path names, with its metadata list. */
function branchOf(ctx: EmulatorContext, branchId: number) {
  const branch = branchId === ctx.state.project.defaultBranchId ? ensureDefaultBranch(ctx) : findBranch(ctx, branchId);
  if (!branch) throw errors.branchNotFound(String(branchId));
  return branch;
}

/** These routes exist only under `/branch/{branchId}` ("All requests must include the branch", apiary.apib). */
const branchScoped: MiddlewareHandler<StorageEnv> = async (c, next) => {
  if (c.req.param("branchId") === undefined) throw errors.routeNotFound();
  await next();
};

export function registerKeyMetadataRoutes(api: StorageApp, ctx: EmulatorContext): void {
  const auth = authenticated(ctx);
  api.use("/metadata", branchScoped);
  api.use("/metadata/*", branchScoped);
  api.use(configBase, branchScoped);
  api.use(`${configBase}/*`, branchScoped);

  api.get("/metadata", auth, (c) => c.json(branchOf(ctx, c.var.branchId).metadata.map(keyEntryJson)));

  api.post("/metadata", auth, async (c) => {
    if (!c.var.token.isMasterToken) throw errors.accessDenied();
    const branch = branchOf(ctx, c.var.branchId);
    const { body } = await readBody(c);
    setEntries(ctx, branch.metadata, body.metadata);
    return c.json(branch.metadata.map(keyEntryJson), 201);
  });

  api.delete("/metadata/:metadataId", auth, (c) => {
    if (!c.var.token.isMasterToken) throw errors.accessDenied();
    const branch = branchOf(ctx, c.var.branchId);
    const id = c.req.param("metadataId");
    const i = branch.metadata.findIndex((m) => m.id === id);
    if (i < 0) throw new StorageHttpError(404, "storage.metadata.notFound", `Metadata with id "${id}" not found`);
    branch.metadata.splice(i, 1);
    return c.body(null, 204);
  });

  api.get(configBase, auth, (c) => {
    const { token, branchId } = c.var;
    requireComponentAccess(token, c.req.param("componentId"));
    const cfg = requireConfig(ctx, branchId, c.req.param("componentId"), c.req.param("configId"));
    return c.json((cfg.metadata ?? []).map(keyEntryJson));
  });

  api.post(configBase, auth, async (c) => {
    const { token, branchId } = c.var;
    requireComponentAccess(token, c.req.param("componentId"));
    const cfg = requireConfig(ctx, branchId, c.req.param("componentId"), c.req.param("configId"));
    const { body } = await readBody(c);
    setEntries(ctx, (cfg.metadata ??= []), body.metadata);
    return c.json(cfg.metadata.map(keyEntryJson), 201);
  });

  api.delete(`${configBase}/:metadataId`, auth, (c) => {
    const { token, branchId } = c.var;
    const componentId = c.req.param("componentId");
    requireComponentAccess(token, componentId);
    if (branchId !== ctx.state.project.defaultBranchId) {
      throw new StorageHttpError(501, "notImplemented", "Delete metadata is not implemented for development branch");
    }
    const cfg = requireConfig(ctx, branchId, componentId, c.req.param("configId"));
    const id = c.req.param("metadataId");
    const entries = cfg.metadata ?? [];
    const i = entries.findIndex((m) => m.id === id);
    if (i < 0) {
      throw new StorageHttpError(404, "storage.metadata.notFound", `Metadata with id "${id}" not found for "${componentId}" configuration "${cfg.id}" in branch "${branchId}"`);
    }
    entries.splice(i, 1);
    return c.body(null, 204);
  });

  api.get("/search/component-configurations", auth, (c) => {
    const { token, branchId } = c.var;
    // Only the branch-scoped path is served: without `/branch/{id}` the real service answers 501.
    if (c.req.param("branchId") === undefined) throw new StorageHttpError(501, "notImplemented", "Not implemented");
    const q = readQuery(c);
    const componentId = str(q.componentId) || undefined;
    const configurationId = str(q.configurationId) || undefined;
    const keys = (list(q.metadataKeys) ?? []).filter((k) => k !== "");
    const withMetadata = (list(q.include) ?? []).includes("filteredMetadata");
    const out = [];
    for (const cfg of Object.values(ctx.state.storage.configs)) {
      if (cfg.branchId !== branchId || cfg.isDeleted || !canAccessComponent(token, cfg.componentId)) continue;
      if (componentId !== undefined && cfg.componentId !== componentId) continue;
      if (configurationId !== undefined && cfg.id !== configurationId) continue;
      const entries = (cfg.metadata ?? []).filter((m) => !keys.length || keys.includes(m.key));
      // A search by metadata finds the configurations that have some (of the keys asked for, or
      // any): keboola-sdk-go pkg/keboola/storage_config_test.go TestConfigApiCalls lists exactly the
      // configuration it gave metadata, and nothing once its only entry is deleted.
      if (!entries.length) continue;
      out.push({ idComponent: cfg.componentId, configurationId: cfg.id, ...(withMetadata ? { metadata: entries.map(keyEntryJson) } : {}) });
    }
    return c.json(out);
  });
}
