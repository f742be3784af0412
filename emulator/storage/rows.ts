import type { Context } from "hono";
import type { EmulatorContext } from "../core/context";
import { readBody, readQuery, str } from "./body";
import { StorageHttpError, errors } from "./errors";
import { nowStorage, truthy, versionIdentifier } from "./format";
import { bumpVersion, generatedId, jsonObjectParam, orderedRows, requireConfig, rowJson } from "./configurations";
import { creatorToken, requireComponentAccess } from "./permissions";
import { param, type StorageRouter } from "./router";
import type { RowRecord } from "./state";

// Configuration rows (`.../configs/{configId}/rows[/{rowId}]`): create (201; `rowId` optional,
// duplicate -> 400 `configurationRowAlreadyExists`), list, detail, update, delete (permanent).
// Each change is also a new version of the configuration, with the change description
// defaulting to "Row <id> added" / "Row <id> changed" / "Row <id> deleted"; an unknown row is
// 404 `notFound` "Row <id> not found" (Storage API client tests). A row added to a
// configuration with a `rowsSortOrder` is appended to it; a deleted row is removed from it.

export function registerRowRoutes(router: StorageRouter, ctx: EmulatorContext): void {
  const base = "/components/:componentId/configs/:configId/rows";

  const load = (c: Context, branchId: number) => {
    const componentId = param(c, "componentId");
    return requireConfig(ctx, branchId, componentId, param(c, "configId"));
  };
  const findRow = (rows: RowRecord[], id: string): RowRecord => {
    const row = rows.find((r) => r.id === id);
    if (!row) throw errors.rowNotFound(id);
    return row;
  };

  router.on("GET", base, ({ c, token, branchId }) => {
    requireComponentAccess(token, param(c, "componentId"));
    return c.json(orderedRows(load(c, branchId)).map(rowJson));
  });

  router.on("POST", base, async ({ c, token, branchId }) => {
    requireComponentAccess(token, param(c, "componentId"));
    const cfg = load(c, branchId);
    const { body } = await readBody(c);
    const requested = str(body.rowId);
    const id = requested || generatedId(ctx);
    if (cfg.rows.some((r) => r.id === id)) {
      throw new StorageHttpError(400, "configurationRowAlreadyExists", `Row with id "${id}" already exists.`);
    }
    const changeDescription = str(body.changeDescription) || `Row ${id} added`;
    const row: RowRecord = {
      id,
      name: str(body.name) ?? "",
      description: str(body.description) ?? "",
      configuration: jsonObjectParam(body.configuration, "configuration") ?? {},
      state: jsonObjectParam(body.state, "state") ?? {},
      isDisabled: truthy(body.isDisabled),
      version: 1,
      created: nowStorage(ctx),
      creatorToken: creatorToken(token),
      changeDescription,
      versionIdentifier: versionIdentifier(ctx),
    };
    cfg.rows.push(row);
    if (cfg.rowsSortOrder.length) cfg.rowsSortOrder.push(id);
    bumpVersion(ctx, cfg, token, changeDescription);
    return c.json(rowJson(row), 201);
  });

  router.on("GET", `${base}/:rowId`, ({ c, token, branchId }) => {
    requireComponentAccess(token, param(c, "componentId"));
    return c.json(rowJson(findRow(load(c, branchId).rows, param(c, "rowId"))));
  });

  router.on("PUT", `${base}/:rowId`, async ({ c, token, branchId }) => {
    requireComponentAccess(token, param(c, "componentId"));
    const cfg = load(c, branchId);
    const row = findRow(cfg.rows, param(c, "rowId"));
    const { body } = await readBody(c);
    const configuration = jsonObjectParam(body.configuration, "configuration");
    const state = jsonObjectParam(body.state, "state");
    const name = str(body.name);
    const description = str(body.description);
    if (name !== undefined) row.name = name;
    if (description !== undefined) row.description = description;
    if (configuration !== undefined) row.configuration = configuration;
    if (state !== undefined) row.state = state;
    if (body.isDisabled !== undefined) row.isDisabled = truthy(body.isDisabled);
    const changeDescription = str(body.changeDescription) || `Row ${row.id} changed`;
    row.version += 1;
    row.changeDescription = changeDescription;
    row.versionIdentifier = versionIdentifier(ctx);
    bumpVersion(ctx, cfg, token, changeDescription);
    return c.json(rowJson(row));
  });

  router.on("DELETE", `${base}/:rowId`, async ({ c, token, branchId }) => {
    requireComponentAccess(token, param(c, "componentId"));
    const cfg = load(c, branchId);
    const row = findRow(cfg.rows, param(c, "rowId"));
    const { body } = await readBody(c);
    cfg.rows = cfg.rows.filter((r) => r !== row);
    cfg.rowsSortOrder = cfg.rowsSortOrder.filter((id) => id !== row.id);
    bumpVersion(ctx, cfg, token, str(body.changeDescription) ?? str(readQuery(c).changeDescription) ?? `Row ${row.id} deleted`);
    return c.body(null, 204);
  });
}
