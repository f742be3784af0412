import type { EmulatorContext } from "../core/context";
import type { StorageConfigVersion, StorageConfigVersionHead, StorageConfigVersionItem } from "../../keboola/storage-answers";
import { authenticated, type StorageApp } from "./auth";
import { list, readQuery, str } from "./body";
import { requireConfig } from "./configurations";
import { StorageHttpError } from "./errors";
import { requireComponentAccess } from "./permissions";
import type { ConfigVersionRecord } from "./state";

// Configuration versions (keboola/storage-api-php-client `apiary.apib`, "List Configuration
// Versions" and "Version Detail"): `GET .../configs/{id}/versions?include=&limit=&offset=` lists
// them newest first with `version, created, versionIdentifier, creatorToken, changeDescription,
// isDeleted` and the `include`d fields (default `name,description`; `configuration` too on
// request); `GET .../versions/{version}` is one of them with its configuration, `rowsSortOrder`
// and rows as they were. A version is made by `bumpVersion` (configurations.ts): on create,
// delete, restore, a row's create and delete, and the updates that count as a change (the
// configuration's PUT in configurations.ts, a row's PUT in rows.ts, whose rules differ); state
// and metadata are no version. Unverified: the wording of the 404 for an unknown version.

export function registerVersionRoutes(api: StorageApp, ctx: EmulatorContext): void {
  const auth = authenticated(ctx);
  const base = "/components/:componentId/configs/:configId/versions";

  api.get(base, auth, (c) => {
    const { token, branchId } = c.var;
    const componentId = c.req.param("componentId");
    requireComponentAccess(token, componentId);
    const cfg = requireConfig(ctx, branchId, componentId, c.req.param("configId"));
    const q = readQuery(c);
    const include = list(q.include) ?? ["name", "description"];
    const limit = Math.max(1, Number(str(q.limit) ?? 100) || 100);
    const offset = Math.max(0, Number(str(q.offset) ?? 0) || 0);
    const versions = [...(cfg.versions ?? [])].reverse().slice(offset, offset + limit);
    return c.json(
      versions.map((v): StorageConfigVersionItem => ({
        ...versionHead(v),
        ...(include.includes("name") ? { name: v.name } : {}),
        ...(include.includes("description") ? { description: v.description } : {}),
        ...(include.includes("configuration") ? { configuration: v.configuration } : {}),
      })),
    );
  });

  api.get(`${base}/:version`, auth, (c) => {
    const { token, branchId } = c.var;
    const componentId = c.req.param("componentId");
    requireComponentAccess(token, componentId);
    const cfg = requireConfig(ctx, branchId, componentId, c.req.param("configId"));
    const wanted = c.req.param("version");
    const v = (cfg.versions ?? []).find((x) => String(x.version) === wanted);
    if (!v) throw new StorageHttpError(404, "notFound", `Version ${wanted} not found`);
    const detail: StorageConfigVersion = {
      ...versionHead(v),
      name: v.name,
      description: v.description,
      configuration: v.configuration,
      rowsSortOrder: v.rowsSortOrder,
      rows: v.rows,
    };
    return c.json(detail);
  });
}

/** The fields every answer about a version starts with (list and detail alike). */
function versionHead(v: ConfigVersionRecord): StorageConfigVersionHead {
  return {
    version: v.version,
    created: v.created,
    versionIdentifier: v.versionIdentifier,
    creatorToken: v.creatorToken,
    changeDescription: v.changeDescription,
    isDeleted: v.isDeleted,
  };
}
