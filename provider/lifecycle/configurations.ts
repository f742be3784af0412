import { z } from "zod";
import type { KeboolaClient } from "../api/client";
import type { ConfigBody, ConfigRow, Configuration, RowBody, StorageApi, TokenInfo } from "../api/storage";
import { KeboolaApiError, isAmbiguous, isNotFound } from "../api/errors";
import { derivedConfigId, isCounterpart, OWNER_KEY, splitMarker, withMarker } from "./ownership";
import { same as sameJson } from "./common";
import { createOnce } from "./create-once";
import { unknownAsOld, unknownsAsOld } from "../validation/check";
export { unknownAsOld, unknownsAsOld };
import type { Props, ResourceContext } from "./types";
import type { ProgramFacts } from "./facts";
import { isRecord } from "../../keboola/json";

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

/**
 * The configuration a resource addresses: as its state records it, else as its resource id names
 * it (after `pulumi import`, or a create that stopped halfway).
 */
export function addressedConfig(id: string, recorded: { branchId?: string; componentId?: string; configId?: string }) {
  const parsed = parseConfigResourceId(id);
  return {
    branch: recorded.branchId ?? parsed?.branch ?? "default",
    componentId: recorded.componentId ?? parsed?.componentId,
    configId: recorded.configId ?? parsed?.configId,
  };
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
  return isRecord(v) ? v : {};
}

/**
 * Moves a configuration to the trash; with `purge` also removes it from the trash. Idempotent and
 * never escalating: a configuration already in the trash (an earlier delete whose answer was lost,
 * or a destroy run twice) counts as deleted, because a second DELETE of it would purge it. So the
 * configuration is read first, and purged only when `purge` asks for it.
 */
export async function deleteConfiguration(
  storage: StorageApi,
  branch: string,
  componentId: string,
  configId: string,
  purge: boolean,
  changeDescription?: string,
): Promise<void> {
  const live = async () => !!(await findLiveConfig(storage, branch, componentId, configId));
  for (let attempt = 1; await live(); attempt++) {
    try {
      await storage.deleteConfig(branch, componentId, configId, changeDescription);
      break;
    } catch (err) {
      if (isNotFound(err)) break;
      // Whether it went to the trash is decided by reading it again, never by deleting again blindly.
      if (!isAmbiguous(err) || attempt >= 4) throw err;
    }
  }
  if (!purge) return;
  for (let attempt = 1; await inTrash(storage, branch, componentId, configId); attempt++) {
    try {
      await storage.deleteConfig(branch, componentId, configId);
      return;
    } catch (err) {
      if (isNotFound(err)) return;
      // Development branches keep their trash: Storage refuses to purge there (400). The
      // configuration is deleted all the same, so say so instead of failing the destroy.
      if (branch !== "default" && err instanceof KeboolaApiError && err.status === 400) {
        console.warn(`warning: configuration ${componentId}/${configId} was moved to the trash of branch ${branch}; it cannot be purged there: ${err.apiMessage}`);
        return;
      }
      if (!isAmbiguous(err) || attempt >= 4) throw err;
    }
  }
}

/**
 * The delete of a ComponentConfig or VariableConfig: the token must be allowed to (and to purge,
 * when asked), then deleteConfiguration with the resource's owner marker in the change description.
 */
export async function deleteConfigResource(
  ctx: ResourceContext,
  label: string,
  target: { branch: string; componentId: string; configId: string },
  purge: boolean,
  owner: string | undefined,
): Promise<void> {
  const token = await assertCanManage(ctx, target.componentId, label, "delete configurations of");
  if (purge) assertCanPurge(token, label);
  await deleteConfiguration(ctx.client().storage, target.branch, target.componentId, target.configId, purge, withMarker("Deleted by Pulumi", owner));
}

async function trashed(storage: StorageApi, branch: string, componentId: string, configId: string): Promise<Configuration | undefined> {
  return (await storage.listDeletedConfigs(branch, componentId)).find((c) => String(c.id) === configId);
}

async function inTrash(storage: StorageApi, branch: string, componentId: string, configId: string): Promise<boolean> {
  return !!(await trashed(storage, branch, componentId, configId));
}

export interface ConfigCreate {
  branch: string;
  componentId: string;
  /** Explicit configId; when omitted, one is derived from the owner (create-once across crashes). */
  configId: string | undefined;
  owner: string | undefined;
  adoptExisting: boolean;
  label: string;
  /** The create body; its changeDescription already carries the owner marker. */
  body: Omit<ConfigBody, "configurationId">;
  /**
   * In a development branch of the program (takesOverBranchCopy): a configuration whose id is not
   * given takes the id of the branch's copy of its production counterpart, when the branch has one.
   */
  inBranchOfProgram?: boolean;
}

type Where = { branch: string; componentId: string; configId: string };

/**
 * The owner a configuration records: its metadata's OWNER_KEY, else the marker of the change
 * description our create wrote (a crash came before the metadata was set; see ownership.ts).
 */
export async function configOwner(storage: StorageApi, at: Where, config: Configuration): Promise<string | undefined> {
  const metadata = await storage.configMetadata(at.branch, at.componentId, at.configId);
  return metadata.find((m) => m.key === OWNER_KEY)?.value ?? splitMarker(config.changeDescription).owner;
}

/** Records the owner in the configuration's metadata (a no-op without an owner). */
export async function markConfig(storage: StorageApi, at: Where, owner: string | undefined): Promise<void> {
  if (owner) await storage.setConfigMetadata(at.branch, at.componentId, at.configId, [{ key: OWNER_KEY, value: owner }]);
}

/** Whether a failed create says the configuration (or row) exists. */
const alreadyExists = (err: unknown): boolean => err instanceof KeboolaApiError && (err.code === "configurationAlreadyExists" || err.status === 409);

/**
 * Creates a configuration exactly once (create-once.ts). The id is chosen on our side (explicit, or
 * derived from the owner), so after a lost answer, a 5xx or a crash the same create addresses the
 * same configuration: an existing one is taken over when it carries this resource's marker (or
 * adoptExisting is set), and refused otherwise. A trashed configuration does not block its id:
 * Storage renews it on create (keboola/storage-api-php-client tests/Common/ComponentsTest.php,
 * testComponentConfigRenew), so only a live one counts as existing.
 */
export async function createConfigOnce(storage: StorageApi, c: ConfigCreate): Promise<{ config: Configuration; existed: boolean }> {
  const id = c.configId ?? (c.inBranchOfProgram ? await counterpartCopy(storage, c) : undefined) ?? (c.owner ? derivedConfigId(c.owner) : undefined);
  type Owned = { config: Configuration; owner: string | undefined };
  const send = async (): Promise<Owned> => ({
    config: normalizeConfig({ ...(await storage.createConfig(c.branch, c.componentId, { ...c.body, configurationId: id })), rows: [], rowsSortOrder: [] }),
    owner: undefined,
  });
  // Without an id of ours (no owner known) nothing can be looked up: one plain create.
  if (id === undefined) return { config: (await send()).config, existed: false };
  const at = { branch: c.branch, componentId: c.componentId, configId: id };
  const created = await createOnce<Owned>({
    label: `${c.label}: configuration "${id}" of ${c.componentId}`,
    where: `in branch ${c.branch}`,
    owner: c.owner,
    adoptExisting: c.adoptExisting,
    fix: "Set another configId, or set adoptExisting: true to take it over (it is then brought to the declared state).",
    find: async () => {
      const config = await findLiveConfig(storage, c.branch, c.componentId, id);
      return config && { config, owner: await configOwner(storage, at, config) };
    },
    ownerOf: (found) => found.owner,
    create: async () => ({ object: await send() }),
    exists: alreadyExists,
    whenExistsUnreadable: "fail",
  });
  // Ours from now on: recorded in its metadata unless it already says so (see ownership.ts).
  if (created.object.owner !== c.owner) await markConfig(storage, at, c.owner);
  return { config: created.object.config, existed: created.existed };
}

/**
 * The id of the branch's copy of this resource's production counterpart: a development branch
 * begins with a copy of every configuration of the default branch, metadata included, so the
 * configuration the production stack made for the same resource (same project, type and name; its
 * id derived from that stack's owner) is there under production's id. Taking it over keeps the
 * branch holding each configuration once, as Keboola's own branch workflow has it.
 */
async function counterpartCopy(storage: StorageApi, c: ConfigCreate): Promise<string | undefined> {
  if (!c.owner || c.branch === "default") return undefined;
  const found = await storage.searchConfigs(c.branch, { componentId: c.componentId, metadataKeys: [OWNER_KEY] });
  const ownerOf = (f: (typeof found)[number]) => f.metadata?.find((m) => m.key === OWNER_KEY)?.value;
  // Ours already (an earlier attempt took it over and was cut short), else production's copy.
  return (found.find((f) => ownerOf(f) === c.owner) ?? found.find((f) => isCounterpart(ownerOf(f), c.owner)))?.configurationId;
}

/**
 * Creates a row once (create-once.ts). Rows get ids from Keboola unless given; after an ambiguous
 * failure the configuration is read again, and the row of that id, or a row of this name that no
 * other declared row claimed, is ours (rows carry no owner marker of their own).
 */
export async function createRowOnce(
  storage: StorageApi,
  where: { branch: string; componentId: string; configId: string },
  body: RowBody & { name: string },
  claimed: ReadonlySet<string>,
): Promise<string> {
  const created = await createOnce<string>({
    label: `row "${body.rowId ?? body.name}" of configuration "${where.configId}"`,
    where: `of ${where.componentId}`,
    find: async () => {
      const cfg = await findLiveConfig(storage, where.branch, where.componentId, where.configId);
      return cfg?.rows.find((r) => (body.rowId ? r.id === body.rowId : r.name === body.name && !claimed.has(r.id)))?.id;
    },
    create: async () => ({ object: String((await storage.createRow(where.branch, where.componentId, where.configId, body)).id) }),
    exists: (err) => !!body.rowId && err instanceof KeboolaApiError && err.status < 500 && /exist/i.test(err.apiMessage),
    whenExistsUnreadable: "fail",
  });
  return created.object;
}

/** Replace when an explicit configId differs from the current one; never when it is omitted. */
export function configIdReplaces(olds: Props, news: Props): boolean {
  return typeof news.configId === "string" && news.configId !== "" && news.configId !== olds.configId;
}

/**
 * Whether a configuration takes over what it finds under its id without adoptExisting: in a
 * development branch of this program (a Branch of it, the stack's keboola:branch included), which
 * began as a copy of the default branch's configurations with their metadata
 * (keboola/storage-api-php-client tests/Common/DevBranchesTest.php, BranchComponentTest;
 * emulator/storage/branches.ts): what is there under a declared id is production's copy, owner
 * marker of the production stack included, not somebody else's object.
 */
export function takesOverBranchCopy(facts: ProgramFacts, adoptExisting: boolean): boolean {
  return adoptExisting || facts.branch !== undefined;
}

/** The explicit takeover flag of the configuration resources (as Source and Sink have it). */
export const adoptExistingSchema = z
  .boolean()
  .default(false)
  .describe("Take over an existing configuration with this configId instead of failing (it is brought to the declared state, writing only what differs). Needs configId.");

export const ADOPT_NEEDS_ID = "needs configId: set the id of the existing configuration to take over, or remove adoptExisting";

export { VARIABLES_COMPONENT } from "../../keboola/storage";
export const VALUES_ROW_NAME = "Default values";
export const DEFAULT_CHANGE_DESCRIPTION = "Updated by Pulumi";

/**
 * How every configuration resource's update starts: the token may manage the component (`alsoCheck`
 * adds a kind's own rule) and purge, when `purgeOnDelete` asks for it; the configuration still
 * exists (else `pulumi refresh` recreates it); and the change description to write, carrying the
 * owner marker (this stack's, or the one already there).
 */
export async function beginConfigUpdate(
  ctx: ResourceContext,
  label: string,
  at: { branch: string; componentId: string; configId: string },
  p: { purgeOnDelete?: boolean; changeDescription?: string },
  owner: string | undefined,
  alsoCheck?: (token: TokenInfo) => void,
): Promise<{ storage: StorageApi; current: Configuration; changeDescription: string }> {
  const token = await assertCanManage(ctx, at.componentId, label);
  alsoCheck?.(token);
  if (p.purgeOnDelete) assertCanPurge(token, label);
  const storage = ctx.client().storage;
  const current = await findLiveConfig(storage, at.branch, at.componentId, at.configId);
  if (!current) throw new Error(`${label}: configuration ${at.configId} no longer exists (deleted or in the trash): run \`pulumi refresh\` to recreate it`);
  const changeDescription = withMarker(p.changeDescription ?? DEFAULT_CHANGE_DESCRIPTION, owner ?? splitMarker(current.changeDescription).owner);
  return { storage, current, changeDescription };
}

/** What a configuration without rows (a Flow, a Schedule) holds. */
export interface WholeConfig {
  name: string;
  description: string;
  configuration: Record<string, unknown>;
  isDisabled?: boolean;
}

/**
 * Brings an existing configuration without rows to the declared state, writing only what differs
 * (one update, or none). Returns the configuration as it stands afterwards.
 */
export async function convergeWholeConfig(
  storage: StorageApi,
  where: { branch: string; componentId: string; configId: string },
  current: Configuration,
  desired: WholeConfig,
  changeDescription: string,
): Promise<{ config: Configuration; written: boolean }> {
  const body: ConfigBody = {};
  if (current.name !== desired.name) body.name = desired.name;
  if (current.description !== desired.description) body.description = desired.description;
  if (!sameJson(current.configuration, desired.configuration)) body.configuration = desired.configuration;
  if (desired.isDisabled !== undefined && current.isDisabled !== desired.isDisabled) body.isDisabled = desired.isDisabled;
  if (Object.keys(body).length === 0) return { config: current, written: false };
  await storage.updateConfig(where.branch, where.componentId, where.configId, { ...body, changeDescription });
  return { config: normalizeConfig(await storage.getConfig(where.branch, where.componentId, where.configId)), written: true };
}
