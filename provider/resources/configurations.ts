import { z } from "zod";
import type { KeboolaClient } from "../api/client";
import type { ConfigRow, Configuration, StorageApi, TokenInfo } from "../api/storage";
import { KeboolaApiError, isNotFound } from "../api/errors";
import { containsUnknown } from "../validation/check";
import type { Props, ResourceContext } from "./types";

// What the configuration resources (VariableConfig, ComponentConfig, JobRun) share: the
// permission check (a token that may not manage a component's configurations is refused before
// anything is written), configuration ids, reading a configuration that may be in the trash,
// and delete/purge.

/** Pulumi id of a configuration: `<branch>/<componentId>/<configId>`. */
export const configResourceId = (branch: string, componentId: string, configId: string) => `${branch}/${componentId}/${configId}`;

/** The parts of a configuration resource id (`pulumi import` passes only the id). */
export function parseConfigResourceId(id: string): { branch: string; componentId: string; configId: string } | undefined {
  const m = /^([^/]+)\/([^/]+)\/(.+)$/.exec(id);
  return m ? { branch: m[1], componentId: m[2], configId: m[3] } : undefined;
}

const tokenCache = new WeakMap<KeboolaClient, Promise<TokenInfo>>();

/** `tokens/verify`, once per client (one provider process, one token). */
export function tokenInfo(client: KeboolaClient): Promise<TokenInfo> {
  let p = tokenCache.get(client);
  if (!p) {
    p = client.storage.verifyToken();
    tokenCache.set(client, p);
    p.catch(() => tokenCache.delete(client));
  }
  return p;
}

/**
 * Why a token may not manage (or run) configurations of a component, or undefined when it may.
 * As Keboola decides it: a master token reaches every component (unless its user has the
 * read-only role); any other token only the components listed in its `componentAccess`.
 */
export function componentAccessProblem(token: TokenInfo, componentId: string): string | undefined {
  const who = `the token "${token.description}" (id ${token.id})`;
  if (token.isMasterToken) {
    return token.admin?.role === "readOnly" ? `${who} belongs to a project member with the read-only role` : undefined;
  }
  const access = token.componentAccess ?? [];
  if (access.includes(componentId)) return undefined;
  return `${who} is not a master token and its componentAccess ${access.length ? `(${access.join(", ")}) does not include "${componentId}"` : "is empty"}`;
}

/** Refuses, before any write, a token that may not manage the component's configurations. */
export async function assertCanManage(ctx: ResourceContext, componentId: string, what: string, action = "manage configurations of"): Promise<TokenInfo> {
  const token = await tokenInfo(ctx.client());
  const problem = componentAccessProblem(token, componentId);
  if (problem) {
    throw new Error(
      `${what}: the token may not ${action} component "${componentId}": ${problem}. Nothing was changed. ` +
        `Use a master token (pulumi config set --secret keboola:token ...), or a token whose componentAccess includes "${componentId}".`,
    );
  }
  return token;
}

/** Refuses `purgeOnDelete` with a token that may not purge the trash (checked before the first write). */
export function assertCanPurge(token: TokenInfo, what: string): void {
  if (!(token.canPurgeTrash ?? token.isMasterToken)) {
    throw new Error(
      `${what}: purgeOnDelete is set, but the token "${token.description}" (id ${token.id}) may not purge the trash (canPurgeTrash is false). ` +
        "Nothing was changed. Use a token with canPurgeTrash, or set purgeOnDelete: false (delete then moves the configuration to the trash).",
    );
  }
}

/** A configuration that is live: a trashed one counts as gone. */
export async function findLiveConfig(storage: StorageApi, branch: string, componentId: string, configId: string): Promise<Configuration | undefined> {
  const c = await storage.findConfig(branch, componentId, configId);
  return c && !c.isDeleted ? normalizeConfig(c) : undefined;
}

/** PHP serializes an empty map as `[]`; nulls appear for empty descriptions. */
export function normalizeConfig(c: Configuration): Configuration {
  return {
    ...c,
    description: c.description ?? "",
    configuration: asObject(c.configuration),
    isDisabled: c.isDisabled === true,
    rows: (c.rows ?? []).map(normalizeRow),
    rowsSortOrder: Array.isArray(c.rowsSortOrder) ? c.rowsSortOrder.map(String) : [],
  };
}

export function normalizeRow(r: ConfigRow): ConfigRow {
  return { ...r, id: String(r.id), name: r.name ?? "", description: r.description ?? "", configuration: asObject(r.configuration), isDisabled: r.isDisabled === true };
}

function asObject(v: unknown): Record<string, unknown> {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/**
 * Moves a configuration to the trash; with `purge` also removes it from the trash. Already gone
 * (404) is fine; a configuration already in the trash is purged when asked.
 */
export async function deleteConfiguration(storage: StorageApi, branch: string, componentId: string, configId: string, purge: boolean): Promise<void> {
  let trashed = false;
  try {
    await storage.deleteConfig(branch, componentId, configId);
    trashed = true;
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  if (!purge) return;
  if (!trashed) {
    const deleted = await storage.listDeletedConfigs(branch, componentId);
    if (!deleted.some((c) => String(c.id) === configId)) return;
  }
  try {
    await storage.deleteConfig(branch, componentId, configId);
  } catch (err) {
    if (isNotFound(err)) return;
    // Development branches keep their trash: Storage refuses to purge there (400). The
    // configuration is deleted all the same, so say so instead of failing the destroy.
    if (branch !== "default" && err instanceof KeboolaApiError && err.status === 400) {
      console.warn(`warning: configuration ${componentId}/${configId} was moved to the trash of branch ${branch}; it cannot be purged there: ${err.apiMessage}`);
      return;
    }
    throw err;
  }
}

/** Explicit configId wins; else the one recorded in state. */
export function recordedConfigId(parsed: { configId?: string }, olds: Props): string | undefined {
  return parsed.configId ?? (typeof olds.configId === "string" && olds.configId ? olds.configId : undefined);
}

/**
 * For diff: a value unknown at preview counts as unchanged. A dynamic provider cannot preview an
 * update, so while a resource is being updated its outputs that are not inputs (configId,
 * valuesRowId) are unknown to its dependents; they almost never change on an update. When they do
 * (a replacement), `up` diffs again with the real values and updates the dependent then.
 */
export function unknownAsOld(old: unknown, value: unknown): unknown {
  return containsUnknown(value) ? old : value;
}

/** Replace when an explicit configId differs from the current one; never when it is omitted. */
export function configIdReplaces(olds: Props, news: Props): boolean {
  return typeof news.configId === "string" && news.configId !== "" && news.configId !== olds.configId;
}

/** The explicit takeover flag of the configuration resources (as Source and Sink have it). */
export const adoptExistingSchema = z
  .boolean()
  .default(false)
  .describe("Take over an existing configuration with this configId instead of failing (it is brought to the declared state, writing only what differs). Needs configId.");

export const ADOPT_NEEDS_ID = "needs configId: set the id of the existing configuration to take over, or remove adoptExisting";
