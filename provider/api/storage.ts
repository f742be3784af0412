import type { HttpClient, RetryPolicy } from "./http";
import { notFoundAsUndefined as orUndefined } from "./errors";

// Typed calls of the Storage API (`/v2/storage`): the index (service discovery), token
// verification, tables, and component configurations with their rows.

export interface StorageIndex {
  services: Array<{ id: string; url: string }>;
}

export interface TokenInfo {
  id: string;
  description: string;
  isMasterToken: boolean;
  canManageBuckets: boolean;
  componentAccess?: string[];
  /** May permanently remove configurations from the trash (master tokens: true). */
  canPurgeTrash?: boolean;
  owner: { id: number; name: string };
  admin?: { role?: string };
}

export interface StorageTable {
  id: string;
  name: string;
  columns: string[];
  primaryKey: string[];
}

export interface ConfigRow {
  id: string;
  name: string;
  description: string;
  configuration: Record<string, unknown>;
  isDisabled: boolean;
  version: number;
}

export interface Configuration {
  id: string;
  name: string;
  description: string;
  configuration: Record<string, unknown>;
  isDisabled: boolean;
  isDeleted: boolean;
  version: number;
  changeDescription: string;
  rows: ConfigRow[];
  rowsSortOrder: string[];
}

export interface ConfigBody {
  name?: string;
  description?: string;
  configuration?: Record<string, unknown>;
  isDisabled?: boolean;
  changeDescription?: string;
  configurationId?: string;
  rowsSortOrder?: string[];
}

export interface RowBody {
  rowId?: string;
  name?: string;
  description?: string;
  configuration?: Record<string, unknown>;
  isDisabled?: boolean;
  changeDescription?: string;
}

/** How long one listing of a bucket's tables answers the checks of the sinks into it. */
const LISTING_MS = 10_000;

export class StorageApi {
  /** Listings of buckets' tables by branch and bucket, for checks only (see findTableListed). */
  private readonly listings = new Map<string, { at: number; tables: Promise<Map<string, StorageTable> | undefined> }>();

  constructor(
    private readonly http: HttpClient,
    readonly baseUrl: string,
  ) {}

  private call<T>(method: "GET" | "POST" | "PUT" | "DELETE", path: string, opts: { form?: Record<string, string>; json?: unknown; retry?: RetryPolicy; query?: Record<string, string | undefined> } = {}) {
    return this.http.request<T>({ service: "storage", baseUrl: this.baseUrl, method, path, ...opts }).then((r) => r.body);
  }

  index() {
    return this.call<StorageIndex>("GET", "/v2/storage", { query: { exclude: "components" } });
  }
  /** The stack's components (ids only matter here): the index without the components' details. */
  components() {
    return this.call<{ components?: Array<{ id: string }> }>("GET", "/v2/storage", { query: { exclude: "componentDetails" } }).then((r) => r.components ?? []);
  }
  devBranches() {
    return this.call<Array<{ id: number; name: string; isDefault: boolean }>>("GET", "/v2/storage/dev-branches");
  }
  verifyToken() {
    return this.call<TokenInfo>("GET", "/v2/storage/tokens/verify");
  }
  async findTable(branch: string, tableId: string): Promise<StorageTable | undefined> {
    return orUndefined(this.call<StorageTable>("GET", tablesPath(branch, `/tables/${enc(tableId)}`)));
  }

  /**
   * A table as a listing of its bucket from the last few seconds shows it: `check` runs one
   * resource at a time (the Pulumi engine's step generation), so one listing serves the checks of
   * every sink into a bucket. Only for checks, whose answer the write re-reads with findTable;
   * `forgetTable` drops the listing once this process has the service create a table in it.
   */
  async findTableListed(branch: string, tableId: string): Promise<StorageTable | undefined> {
    const bucket = bucketOf(tableId);
    const k = JSON.stringify([branch, bucket]);
    let listing = this.listings.get(k);
    if (!listing || Date.now() - listing.at > LISTING_MS) {
      const path = tablesPath(branch, `/buckets/${enc(bucket)}/tables`);
      const tables = orUndefined(this.call<StorageTable[]>("GET", path, { query: { include: "columns" } })).then((list) => list && new Map(list.map((t) => [t.id, t])));
      listing = { at: Date.now(), tables };
      this.listings.set(k, listing);
      tables.catch(() => this.listings.delete(k)); // a failed listing is not kept
    }
    return (await listing.tables)?.get(tableId);
  }

  forgetTable(branch: string, tableId: string): void {
    this.listings.delete(JSON.stringify([branch, bucketOf(tableId)]));
  }

  // Configurations (branch-scoped; `default` is accepted as branch id)
  createConfig(branch: string, componentId: string, body: ConfigBody) {
    return this.call<Configuration>("POST", configsPath(branch, componentId), { form: toForm(body), retry: "rejected-only" });
  }
  getConfig(branch: string, componentId: string, configId: string) {
    return this.call<Configuration>("GET", `${configsPath(branch, componentId)}/${enc(configId)}`);
  }
  findConfig(branch: string, componentId: string, configId: string) {
    return orUndefined(this.getConfig(branch, componentId, configId));
  }
  updateConfig(branch: string, componentId: string, configId: string, body: ConfigBody) {
    return this.call<Configuration>("PUT", `${configsPath(branch, componentId)}/${enc(configId)}`, { form: toForm(body), retry: "idempotent" });
  }
  /** First call moves to trash, a second one purges: never retried blindly. */
  deleteConfig(branch: string, componentId: string, configId: string, changeDescription?: string) {
    return this.call<unknown>("DELETE", `${configsPath(branch, componentId)}/${enc(configId)}`, { retry: "rejected-only", query: { changeDescription } });
  }
  /** Components that have configurations in the branch, each with its configurations (without rows). */
  listComponents(branch: string) {
    return this.call<Array<{ id: string; configurations: Array<{ id: string; name: string }> }>>("GET", `/v2/storage/branch/${enc(branch)}/components`);
  }
  listConfigs(branch: string, componentId: string) {
    return this.call<Configuration[]>("GET", configsPath(branch, componentId));
  }
  listDeletedConfigs(branch: string, componentId: string) {
    return this.call<Configuration[]>("GET", configsPath(branch, componentId), { query: { isDeleted: "true" } });
  }
  createRow(branch: string, componentId: string, configId: string, body: RowBody) {
    return this.call<ConfigRow>("POST", `${configsPath(branch, componentId)}/${enc(configId)}/rows`, { form: toForm(body), retry: "rejected-only" });
  }
  updateRow(branch: string, componentId: string, configId: string, rowId: string, body: RowBody) {
    return this.call<ConfigRow>("PUT", `${configsPath(branch, componentId)}/${enc(configId)}/rows/${enc(rowId)}`, { form: toForm(body), retry: "idempotent" });
  }
  deleteRow(branch: string, componentId: string, configId: string, rowId: string, changeDescription?: string) {
    return this.call<unknown>("DELETE", `${configsPath(branch, componentId)}/${enc(configId)}/rows/${enc(rowId)}`, { retry: "idempotent", query: { changeDescription } });
  }
}

const enc = encodeURIComponent;
const configsPath = (branch: string, componentId: string) => `/v2/storage/branch/${enc(branch)}/components/${enc(componentId)}/configs`;

/** Storage takes form fields; objects travel as JSON strings, arrays as `key[]` fields. */
function toForm(body: ConfigBody | RowBody): Record<string, string> {
  const form: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) {
    if (v === undefined) continue;
    if (Array.isArray(v)) v.forEach((item, i) => (form[`${k}[${i}]`] = String(item)));
    else if (typeof v === "object") form[k] = JSON.stringify(v);
    else if (typeof v === "boolean") form[k] = v ? "true" : "false";
    else form[k] = String(v);
  }
  return form;
}

/** Tables of the default branch live at the plain path; dev branches have their own storage. */
const tablesPath = (branch: string, rest: string) => (branch === "default" ? `/v2/storage${rest}` : `/v2/storage/branch/${enc(branch)}${rest}`);

/** `in.c-events.raw` -> `in.c-events`. */
const bucketOf = (tableId: string) => tableId.split(".").slice(0, 2).join(".");
