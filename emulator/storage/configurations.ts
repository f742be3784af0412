import { isDeepStrictEqual } from "node:util";
import type { EmulatorContext } from "../core/context";
import { isJsonObject, isOneOf, parseJson, type JsonObject } from "../../keboola/json";
import type { StorageConfigRow, StorageConfiguration } from "../../keboola/storage-answers";
import type { TokenRecord } from "../core/tokens";
import { authenticated, type StorageApp } from "./auth";
import { type Body, list, readBody, readQuery, str } from "./body";
import { StorageHttpError, errors } from "./errors";
import { nowStorage, truthy, versionIdentifier } from "./format";
import { canAccessComponent, creatorToken, requireComponentAccess } from "./permissions";
import { componentDefinition } from "./components";
import type { ConfigRecord, RowRecord } from "./state";

// Component configurations (`/v2/storage[/branch/{b}]/components/{componentId}/configs...`):
// create (201, JSON or form; `configuration` as an object or a JSON string, or absent or null:
// then `{}`), detail, update (a new version when it changes the versioned content, see the PUT
// route), delete to trash (`isDeleted`, 404 for detail afterwards), a second delete purges it,
// restore from trash, and the list (`?isDeleted=true` lists the trash). Metadata is no version
// (storage-api-php-client tests/Common/ConfigurationMetadataTest.php: the metadata-set event of a
// new configuration names its `version` 1; metadata.ts never calls `bumpVersion`).
// Facts from the Storage API reference and its client's tests: duplicate id -> 400
// `configurationAlreadyExists`; creating an id that is in the trash replaces the trashed one
// (version continues, rows gone); change descriptions default to "Configuration created",
// "Configuration updated", "Configuration deleted", "Configuration restored"; missing or
// trashed -> 404 `storage.configuration.notFound` `Configuration "<id>" not found`; a token
// without access to the component -> 403 `accessDenied`. Any component id is accepted, listed by
// the index (components.ts) or not: real test projects hold configurations of legacy components
// (keboola-as-code internal/pkg/fixtures/configs: `transformation`, `ex-generic-v2`), and what a
// real stack answers for an id it does not have at all is not in the public sources.

export const configKey = (branchId: number, componentId: string, id: string): string => `${branchId}/${componentId}/${id}`;

export function findConfig(ctx: EmulatorContext, branchId: number, componentId: string, id: string): ConfigRecord | undefined {
  const cfg = ctx.state.storage.configs[configKey(branchId, componentId, id)];
  return cfg && !cfg.isDeleted ? cfg : undefined;
}

export function requireConfig(ctx: EmulatorContext, branchId: number, componentId: string, id: string): ConfigRecord {
  const cfg = findConfig(ctx, branchId, componentId, id);
  if (!cfg) throw errors.configNotFound(id);
  return cfg;
}

/** Rows in their order: `rowsSortOrder` when set, otherwise by id. */
export function orderedRows(cfg: ConfigRecord): RowRecord[] {
  if (!cfg.rowsSortOrder.length) return [...cfg.rows].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return cfg.rowsSortOrder.map((id) => cfg.rows.find((r) => r.id === id)).filter((r): r is RowRecord => !!r);
}

export function rowJson(row: RowRecord): StorageConfigRow {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    isDisabled: row.isDisabled,
    version: row.version,
    created: row.created,
    creatorToken: row.creatorToken,
    changeDescription: row.changeDescription,
    configuration: row.configuration,
    state: row.state,
    versionIdentifier: row.versionIdentifier,
  };
}

export function configJson(cfg: ConfigRecord): StorageConfiguration {
  return {
    id: cfg.id,
    name: cfg.name,
    description: cfg.description,
    created: cfg.created,
    creatorToken: cfg.creatorToken,
    version: cfg.version,
    changeDescription: cfg.changeDescription,
    isDisabled: cfg.isDisabled,
    isDeleted: cfg.isDeleted,
    configuration: cfg.configuration,
    rowsSortOrder: [...cfg.rowsSortOrder],
    rows: orderedRows(cfg).map(rowJson),
    state: cfg.state,
    currentVersion: cfg.currentVersion,
  };
}

/** What `GET /components?include=` may add to each configuration (and its rows). */
const componentListIncludes = ["configuration", "rows", "state"] as const;
type ComponentListInclude = (typeof componentListIncludes)[number];

/** A row in the components list: its configuration and its state only when included. */
export type ListedRow = Omit<StorageConfigRow, "configuration" | "state"> & { configuration?: JsonObject; state?: JsonObject };
/** A configuration in the components list: configuration, rows and state only when included. */
export type ListedConfiguration = Omit<StorageConfiguration, "configuration" | "rows" | "state"> & {
  configuration?: JsonObject;
  rows?: ListedRow[];
  state?: JsonObject;
};

/**
 * The components list's `include` (storage-api-php-client tests/Common/ComponentsTest.php
 * testListComponents): each of `configuration`, `rows`, `state` adds that field to every
 * configuration and, `configuration` and `state`, to every row; without `state` neither has a
 * `state` key at all. Anything else is 400 with the offending values in `errors`.
 */
export function componentListInclude(value: unknown): Set<ComponentListInclude> {
  const asked = (list(value) ?? []).filter((x) => x !== "");
  const invalid = asked.filter((x) => !isOneOf(componentListIncludes, x));
  if (invalid.length) {
    const message = `Invalid include parameters: ${invalid.map((x) => `"${x}"`).join(", ")}. Only following are allowed: ${componentListIncludes.join(", ")}.`;
    throw new StorageHttpError(400, "validation.failed", `Invalid request:\n - include: "${message}"`, {
      errors: [{ key: "include", message }],
    });
  }
  return new Set(asked.filter((x): x is ComponentListInclude => isOneOf(componentListIncludes, x)));
}

/**
 * A configuration as the components list shows it. keboola-sdk-go's TestConfigApiCalls and
 * TestConfigRowApiCalls (pkg/keboola/storage_config_test.go, storage_row_test.go) read this list
 * with `include=configuration,rows` and expect `"state": null` for configurations and rows: the
 * key is absent (a nil map in Go), while the detail, the per-component list and the create answer
 * carry `"state": {}` (apiary.apib "Create Configuration", "Configuration Detail", "List
 * configurations").
 */
export function listedConfigJson(cfg: ConfigRecord, include: ReadonlySet<ComponentListInclude>): ListedConfiguration {
  const { configuration, rows, state, ...head } = configJson(cfg);
  return {
    ...head,
    ...(include.has("configuration") ? { configuration } : {}),
    ...(include.has("rows")
      ? {
          rows: (rows ?? []).map(({ configuration: rowConfiguration, state: rowState, ...row }) => ({
            ...row,
            ...(include.has("configuration") ? { configuration: rowConfiguration } : {}),
            ...(include.has("state") ? { state: rowState } : {}),
          })),
        }
      : {}),
    ...(include.has("state") ? { state } : {}),
  };
}

/**
 * A JSON object parameter given as an object or a JSON string (`code`: the validation code on bad
 * JSON). `null` is a parameter not given: the Storage API's own PHP client sends
 * `"configuration": null` and `"state": null` whenever they are empty (storage-api-php-client
 * src/Keboola/StorageApi/Components.php addConfiguration, addConfigurationRow: `?: null`), and so
 * does keboola-sdk-go for a configuration without content (pkg/keboola/sandbox_workspaces_config.go
 * CreateSandboxWorkspaceConfigRequest: a nil `Content` is `"configuration": null` in the JSON
 * body). Such a configuration is stored empty, `{}`: storage-api-php-client
 * tests/Common/ComponentsTest.php testComponentConfigRowCreate `assertEmpty($component['configuration'])`,
 * and testComponentConfigUpdateEmptyWithEmpty, where updating it to `{}` is no change.
 */
export function jsonObjectParam(value: unknown, field: "configuration" | "state"): JsonObject | undefined {
  if (value === undefined || value === null) return undefined;
  const bad = (): StorageHttpError =>
    new StorageHttpError(
      400,
      field === "state" ? "validation.invalidStateFormat" : "validation.invalidConfigurationFormat",
      `Invalid ${field} body format: This value should be valid JSON.`,
    );
  let v: unknown = value;
  if (typeof v === "string") {
    if (v.trim() === "") return {};
    try {
      v = parseJson(v);
    } catch {
      throw bad();
    }
  }
  if (Array.isArray(v) && v.length === 0) return {};
  // Any object passes: a JSON body's or form fields' values are JSON all the way down.
  if (!isJsonObject(v)) throw bad();
  return v;
}

/** Marks a new version of the configuration, and keeps the configuration as it now is in its history. */
export function bumpVersion(ctx: EmulatorContext, cfg: ConfigRecord, token: TokenRecord, changeDescription: string): void {
  cfg.version += 1;
  cfg.changeDescription = changeDescription;
  cfg.currentVersion = {
    created: nowStorage(ctx),
    creatorToken: creatorToken(token),
    changeDescription,
    versionIdentifier: versionIdentifier(ctx),
  };
  (cfg.versions ??= []).push(
    structuredClone({
      version: cfg.version,
      ...cfg.currentVersion,
      isDeleted: cfg.isDeleted,
      name: cfg.name,
      description: cfg.description,
      configuration: cfg.configuration,
      rowsSortOrder: cfg.rowsSortOrder,
      rows: orderedRows(cfg).map(rowJson),
    }),
  );
}

/**
 * Copies the configurations of one branch (not those in its trash) into a new development branch,
 * as the Storage API does when it creates the branch (keboola/storage-api-php-client
 * tests/Common/BranchComponentTest.php testManipulationWithComponentConfigurations,
 * ConfigurationMetadataTest testCreateBranchCopyMetadataToTheDevBranch): the same ids, content,
 * rows and metadata; the copy starts at version 1, created now, with the version identifier of
 * the copied version and change descriptions that name what was copied.
 */
export function copyConfigsToBranch(ctx: EmulatorContext, fromBranchId: number, toBranchId: number, token: TokenRecord | undefined): void {
  const now = nowStorage(ctx);
  for (const cfg of Object.values(ctx.state.storage.configs)) {
    if (cfg.branchId !== fromBranchId || cfg.isDeleted) continue;
    const who = token ? creatorToken(token) : cfg.creatorToken;
    const changeDescription = `Copied from default branch configuration "${cfg.name}" (${cfg.id}) version ${cfg.version}`;
    const copy: ConfigRecord = {
      ...structuredClone(cfg),
      branchId: toBranchId,
      created: now,
      creatorToken: who,
      version: 1,
      changeDescription,
      currentVersion: { created: now, creatorToken: who, changeDescription, versionIdentifier: cfg.currentVersion.versionIdentifier },
      rows: cfg.rows.map((r) => ({
        ...structuredClone(r),
        version: 1,
        created: now,
        creatorToken: who,
        changeDescription: `Copied from default branch configuration row "${r.name}" (${r.id}) version ${r.version}`,
      })),
      metadata: (cfg.metadata ?? []).map((m) => ({ ...m, id: String(ctx.nextId("storage.metadata", 19501)), timestamp: now })),
    };
    copy.versions = [
      structuredClone({
        version: 1,
        ...copy.currentVersion,
        changeDescription: `Copied from default branch configuration version "${cfg.name}" (configuration id: ${cfg.id}) version ${cfg.version}`,
        isDeleted: false,
        name: copy.name,
        description: copy.description,
        configuration: copy.configuration,
        rowsSortOrder: copy.rowsSortOrder,
        rows: orderedRows(copy).map(rowJson),
      }),
    ];
    ctx.state.storage.configs[configKey(toBranchId, cfg.componentId, cfg.id)] = copy;
  }
}

/** Removes every configuration of a branch (its trash too): the branch is being deleted. */
export function dropBranchConfigs(ctx: EmulatorContext, branchId: number): void {
  for (const [k, cfg] of Object.entries(ctx.state.storage.configs)) if (cfg.branchId === branchId) delete ctx.state.storage.configs[k];
}

/** What a version of a configuration keeps (its state is not versioned). */
const versioned = (cfg: ConfigRecord) => [cfg.name, cfg.description, cfg.configuration, cfg.isDisabled, cfg.rowsSortOrder];

export function generatedId(ctx: EmulatorContext): string {
  return String(ctx.nextId("storage.configurationId", 100000001));
}

function applyCommonFields(cfg: ConfigRecord, body: Body): void {
  const name = str(body.name);
  if (name !== undefined) cfg.name = name;
  const description = str(body.description);
  if (description !== undefined) cfg.description = description;
  const configuration = jsonObjectParam(body.configuration, "configuration");
  if (configuration !== undefined) cfg.configuration = configuration;
  const state = jsonObjectParam(body.state, "state");
  if (state !== undefined) cfg.state = state;
  if (body.isDisabled !== undefined) cfg.isDisabled = truthy(body.isDisabled);
}

function validateSortOrder(cfg: ConfigRecord, order: string[]): void {
  const unknown = order.filter((id) => !cfg.rows.some((r) => r.id === id));
  if (unknown.length) {
    throw errors.componentsValidation("rowsSortOrder", `Row ids "${unknown.join(", ")}" do not exist in the configuration.`);
  }
  const missing = cfg.rows.filter((r) => !order.includes(r.id)).map((r) => r.id);
  if (order.length && missing.length) {
    throw new StorageHttpError(
      400,
      "validation.invalidRowSortOrder",
      `The rowsSortOrder must contain all rows of the configuration. Missing rows: "${missing.join(", ")}".`,
    );
  }
}

export function registerConfigurationRoutes(api: StorageApp, ctx: EmulatorContext): void {
  const auth = authenticated(ctx);
  const base = "/components/:componentId/configs";

  // All components having configurations, with them (`?include=configuration,rows`).
  api.get("/components", auth, (c) => {
    const { token, branchId } = c.var;
    if (!token.isMasterToken && !(token.componentAccess ?? []).length) throw errors.accessDenied();
    const q = readQuery(c);
    const include = componentListInclude(q.include);
    const deleted = truthy(q.isDeleted);
    const byComponent = new Map<string, ConfigRecord[]>();
    for (const cfg of Object.values(ctx.state.storage.configs)) {
      if (cfg.branchId !== branchId || cfg.isDeleted !== deleted || !canAccessComponent(token, cfg.componentId)) continue;
      byComponent.set(cfg.componentId, [...(byComponent.get(cfg.componentId) ?? []), cfg]);
    }
    const out = [...byComponent.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([componentId, configs]) => ({
        ...componentDefinition(ctx.state.storage, componentId),
        configurations: configs.map((cfg) => listedConfigJson(cfg, include)),
      }));
    return c.json(out);
  });

  api.get(base, auth, (c) => {
    const { token, branchId } = c.var;
    const componentId = c.req.param("componentId");
    requireComponentAccess(token, componentId);
    const deleted = truthy(readQuery(c).isDeleted);
    const configs = Object.values(ctx.state.storage.configs).filter(
      (cfg) => cfg.branchId === branchId && cfg.componentId === componentId && cfg.isDeleted === deleted,
    );
    return c.json(configs.map((cfg) => configJson(cfg)));
  });

  api.post(base, auth, async (c) => {
    const { token, branchId } = c.var;
    const componentId = c.req.param("componentId");
    requireComponentAccess(token, componentId);
    const { body } = await readBody(c);
    const name = str(body.name);
    if (name === undefined) throw errors.componentsValidation("name", "This field is missing.");
    const requestedId = str(body.configurationId);
    if (requestedId !== undefined && !/^[A-Za-z0-9_.-]+$/.test(requestedId)) {
      throw errors.componentsValidation("configurationId", "This value is not valid.");
    }
    const id = requestedId || generatedId(ctx);
    const key = configKey(branchId, componentId, id);
    const existing = ctx.state.storage.configs[key];
    if (existing && !existing.isDeleted) {
      throw new StorageHttpError(400, "configurationAlreadyExists", `Configuration with id "${id}" already exists.`);
    }
    const changeDescription = str(body.changeDescription) || "Configuration created";
    const now = nowStorage(ctx);
    const cfg: ConfigRecord = {
      branchId,
      componentId,
      id,
      name,
      description: "",
      created: existing?.created ?? now,
      creatorToken: creatorToken(token),
      version: existing?.version ?? 0,
      changeDescription,
      isDisabled: false,
      isDeleted: false,
      configuration: {},
      state: {},
      rowsSortOrder: [],
      rows: [],
      currentVersion: { created: now, creatorToken: creatorToken(token), changeDescription, versionIdentifier: "" },
      // Re-created from the trash: the versions continue.
      versions: existing?.versions,
    };
    applyCommonFields(cfg, body);
    bumpVersion(ctx, cfg, token, changeDescription);
    ctx.state.storage.configs[key] = cfg;
    // The answer has no rows and no rowsSortOrder (apiary.apib "Create Configuration"):
    // keboola-sdk-go's CreateConfigRequest decodes it into the configuration it creates and then
    // creates that configuration's rows, so a `rows: []` here would drop them.
    const { rows: _rows, rowsSortOrder: _order, ...created } = configJson(cfg);
    return c.json(created, 201);
  });

  api.get(`${base}/:configId`, auth, (c) => {
    const { token, branchId } = c.var;
    const componentId = c.req.param("componentId");
    requireComponentAccess(token, componentId);
    return c.json(configJson(requireConfig(ctx, branchId, componentId, c.req.param("configId"))));
  });

  api.put(`${base}/:configId`, auth, async (c) => {
    const { token, branchId } = c.var;
    const componentId = c.req.param("componentId");
    requireComponentAccess(token, componentId);
    const cfg = requireConfig(ctx, branchId, componentId, c.req.param("configId"));
    const { body } = await readBody(c);
    // `null` is no order given, as for every other parameter (jsonObjectParam); `[]` clears it.
    const order = body.rowsSortOrder == null ? undefined : (list(body.rowsSortOrder) ?? []).filter((x) => x !== "");
    if (order) validateSortOrder(cfg, order);
    const draft = structuredClone(cfg);
    applyCommonFields(draft, body);
    if (order) draft.rowsSortOrder = order;
    const changed = !isDeepStrictEqual(versioned(draft), versioned(cfg));
    Object.assign(cfg, draft);
    // An update that changes nothing of the versioned content is no new version and keeps the
    // change description (storage-api-php-client tests/Common/ComponentsTest.php
    // testComponentConfigUpdateVersioning "Update without change should not add version": name,
    // description and configuration sent again unchanged; testComponentConfigUpdateEmptyWithEmpty;
    // testVersionIncreaseWhenUpdate: the same rowsSortOrder twice; the state is no versioned
    // content). Unlike a row's update (rows.ts), giving the name or the description again is no
    // change here. Unverified: whether a `changeDescription` alone, with nothing changed, makes a
    // version; no public test sends one, and this rule (none) is the one the kbc e2e suite
    // (keboola-as-code test/cli/push/variables-add-relation among others) passes with.
    if (changed) bumpVersion(ctx, cfg, token, str(body.changeDescription) || "Configuration updated");
    return c.json(configJson(cfg));
  });

  api.delete(`${base}/:configId`, auth, (c) => {
    const { token, branchId } = c.var;
    const componentId = c.req.param("componentId");
    requireComponentAccess(token, componentId);
    const id = c.req.param("configId");
    const key = configKey(branchId, componentId, id);
    const cfg = ctx.state.storage.configs[key];
    if (!cfg) throw errors.configNotFound(id);
    if (cfg.isDeleted) {
      if (branchId !== ctx.state.project.defaultBranchId) {
        throw new StorageHttpError(400, "storage.components.cannotDeleteConfiguration", "Deleting configuration from trash is not allowed in development branches.");
      }
      delete ctx.state.storage.configs[key];
      return c.body(null, 204);
    }
    cfg.isDeleted = true;
    bumpVersion(ctx, cfg, token, str(readQuery(c).changeDescription) || "Configuration deleted");
    return c.body(null, 204);
  });

  api.post(`${base}/:configId/restore`, auth, (c) => {
    const { token, branchId } = c.var;
    const componentId = c.req.param("componentId");
    requireComponentAccess(token, componentId);
    const id = c.req.param("configId");
    const cfg = ctx.state.storage.configs[configKey(branchId, componentId, id)];
    if (!cfg || !cfg.isDeleted) throw new StorageHttpError(404, "notFound", `Deleted configuration ${id} not found`);
    cfg.isDeleted = false;
    bumpVersion(ctx, cfg, token, "Configuration restored");
    return c.json(configJson(cfg));
  });
}
