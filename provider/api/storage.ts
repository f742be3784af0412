import type { HttpClient, RetryPolicy } from "./http";
import { notFoundAsUndefined as orUndefined } from "./errors";
import { waitUntilFinished, type PollTiming } from "./tasks";
import type { StorageDevBranch } from "../../keboola/storage-answers";

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
  isTyped?: boolean;
  /**
   * In a table's detail: a typed table's columns with their native definitions, an untyped
   * table's with an empty `definition` (`[]`, keboola/storage-answers.ts StorageUntypedColumn).
   */
  definition?: { primaryKeysNames?: string[]; columns: Array<{ name: string; definition: ColumnDefinition | []; basetype?: string }> };
  rowsCount?: number | null;
  dataSizeBytes?: number | null;
  lastImportDate?: string | null;
  /** When its columns, primary key or metadata last changed (or data was imported). */
  lastChangeDate?: string | null;
  metadata?: MetadataEntry[];
}

/** A typed column's native definition (`tables-definition`, keboola/storage-api-php-client apiary.apib). */
export interface ColumnDefinition {
  type: string;
  length?: string;
  nullable?: boolean;
  default?: string;
}

/** One metadata entry of a bucket, table or column (Storage's metadata API). */
export interface MetadataEntry {
  id: string | number;
  key: string;
  value: string;
  provider: string;
  timestamp?: string;
}

export interface StorageBucket {
  id: string;
  name: string;
  stage: string;
  description: string;
  displayName: string;
  metadata?: MetadataEntry[];
}

/** A Storage job (`GET /v2/storage/jobs/{id}`). */
export interface StorageJob {
  id: number | string;
  status: "waiting" | "processing" | "success" | "error" | string;
  url?: string;
  tableId?: string | null;
  operationName: string;
  operationParams?: Record<string, unknown>;
  results?: Record<string, unknown> | null;
  error?: { code?: string; message?: string; exceptionId?: string } | string;
  creatorToken?: { id: string | number; description?: string };
}

/** A file resource of File Storage (seed section 2.1). */
export interface StorageFile {
  id: number;
  name: string;
  isSliced: boolean;
  sizeBytes: number | null;
  tags: string[];
  region?: string;
  provider?: string;
  url?: string;
  uploadParams?: {
    key: string;
    bucket: string;
    acl?: string;
    credentials?: { AccessKeyId: string; SecretAccessKey: string; SessionToken: string; Expiration?: string };
    /** keboola/keboola-sdk-go storage_file_upload/s3/file.go: the server-side encryption to request. */
    "x-amz-server-side-encryption"?: string;
  };
  /** The emulator only: the object store's URL (path style), as the real answer names only the region. */
  s3Endpoint?: string;
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
  /** Who made the current version, when and why (what the UI's versions list shows). */
  currentVersion?: { created?: string; creatorToken?: { id?: string | number; description?: string }; changeDescription?: string };
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
  private readonly listings = new Map<string, { at: number; tables: Promise<Map<string, StorageTable> | undefined>; changed: Set<string> }>();

  constructor(
    private readonly http: HttpClient,
    readonly baseUrl: string,
    /** Deadline of one Storage job, in seconds. */
    private readonly jobTimeoutSeconds = 600,
    private readonly polls: PollTiming = {},
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
  /** One component's detail (`GET /v2/storage/components/{id}`): its catalog entry with its configuration schemas. */
  component(id: string) {
    return this.call<StorageComponent>("GET", `/v2/storage/components/${enc(id)}`);
  }
  devBranches() {
    return this.call<StorageDevBranch[]>("GET", "/v2/storage/dev-branches");
  }

  // Development branches (keboola-sdk-go pkg/keboola/storage_branch.go; apiary "Development Branches")
  findDevBranch(id: string): Promise<StorageDevBranch | undefined> {
    return orUndefined(this.call<StorageDevBranch>("GET", `/v2/storage/dev-branches/${enc(id)}`));
  }
  /**
   * 202 with a `devBranchCreate` job whose results are the branch. A name another branch has (or
   * one whose create job still runs) is refused at once: 400 `devBranch.duplicateName`. Never
   * retried blindly: a lost answer is resolved by looking the branch up (create-once.ts).
   */
  createDevBranch(body: { name: string; description: string }) {
    return this.call<StorageJob>("POST", "/v2/storage/dev-branches", { json: body, retry: "rejected-only" });
  }
  updateDevBranch(id: string, body: { name?: string; description?: string }) {
    return this.call<StorageDevBranch>("PUT", `/v2/storage/dev-branches/${enc(id)}`, { json: body, retry: "idempotent" });
  }
  /** Deletes a branch with all it holds through a `devBranchDelete` job; gone already: undefined. */
  async deleteDevBranch(id: string, what: string): Promise<void> {
    const job = await orUndefined(this.call<StorageJob>("DELETE", `/v2/storage/dev-branches/${enc(id)}`, { retry: "idempotent" }));
    if (job) await this.waitJob(job, what);
  }
  /** A branch's metadata (keboola-sdk-go ListBranchMetadataRequest: `branch/{branchId}/metadata`). */
  branchMetadata(id: string) {
    return this.call<Array<{ id: string; key: string; value: string }>>("GET", `/v2/storage/branch/${enc(id)}/metadata`);
  }
  setBranchMetadata(id: string, entries: Array<{ key: string; value: string }>) {
    return this.call<unknown>("POST", `/v2/storage/branch/${enc(id)}/metadata`, { json: { metadata: entries }, retry: "idempotent" });
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
   * a table this process has had the service create or change since the listing (`forgetTable`)
   * is read on its own instead. Only that table: dropping the whole listing at each sink's create
   * made every check of a large fleet list the bucket again, n listings of up to n tables (issue 28).
   */
  async findTableListed(branch: string, tableId: string): Promise<StorageTable | undefined> {
    const bucket = bucketOf(tableId);
    const k = JSON.stringify([branch, bucket]);
    let listing = this.listings.get(k);
    if (!listing || Date.now() - listing.at > LISTING_MS) {
      const path = tablesPath(branch, `/buckets/${enc(bucket)}/tables`);
      const tables = orUndefined(this.call<StorageTable[]>("GET", path, { query: { include: "columns" } })).then((list) => list && new Map(list.map((t) => [t.id, t])));
      listing = { at: Date.now(), tables, changed: new Set() };
      this.listings.set(k, listing);
      tables.catch(() => this.listings.delete(k)); // a failed listing is not kept
    }
    if (listing.changed.has(tableId)) return this.findTable(branch, tableId);
    return (await listing.tables)?.get(tableId);
  }

  /** This process had the service create or change the table: the listings taken so far do not show it as it is. */
  forgetTable(branch: string, tableId: string): void {
    this.listings.get(JSON.stringify([branch, bucketOf(tableId)]))?.changed.add(tableId);
  }

  // Buckets and tables (keboola/storage-api-php-client apiary.apib; the spec's "Storage: buckets and tables")
  findBucket(branch: string, bucketId: string): Promise<StorageBucket | undefined> {
    return orUndefined(this.call<StorageBucket>("GET", tablesPath(branch, `/buckets/${enc(bucketId)}`), { query: { include: "metadata" } }));
  }
  /** Every bucket of the branch, with its metadata (the description the UI keeps). */
  listBuckets(branch: string): Promise<StorageBucket[]> {
    return this.call<StorageBucket[]>("GET", tablesPath(branch, "/buckets"), { query: { include: "metadata" } });
  }
  /** 201 with the bucket; an existing id answers 400 `storage.buckets.alreadyExists`. Never retried blindly. */
  createBucket(branch: string, body: { name: string; stage: string; description?: string; displayName?: string }) {
    return this.call<StorageBucket>("POST", tablesPath(branch, "/buckets"), { json: body, retry: "rejected-only" });
  }
  /** Only the display name changes by PUT (the description by metadata). */
  updateBucket(branch: string, bucketId: string, body: { displayName: string }) {
    return this.call<StorageBucket>("PUT", tablesPath(branch, `/buckets/${enc(bucketId)}`), { json: body, retry: "idempotent" });
  }
  /** Drops a bucket (with its tables when `force`) through a `bucketDelete` job; gone already: undefined. */
  async deleteBucket(branch: string, bucketId: string, force: boolean, what: string): Promise<void> {
    const job = await orUndefined(this.call<StorageJob>("DELETE", tablesPath(branch, `/buckets/${enc(bucketId)}`), { query: { force: force ? "true" : undefined, async: "true" }, retry: "idempotent" }));
    if (job) await this.waitJob(job, what);
  }
  listBucketTables(branch: string, bucketId: string) {
    return orUndefined(this.call<StorageTable[]>("GET", tablesPath(branch, `/buckets/${enc(bucketId)}/tables`), { query: { include: "columns,metadata" } }));
  }
  /** A table with its metadata (the owner marker), or undefined. */
  findTableDetail(branch: string, tableId: string): Promise<StorageTable | undefined> {
    return orUndefined(this.call<StorageTable>("GET", tablesPath(branch, `/tables/${enc(tableId)}`)));
  }
  /** Creates a table from an uploaded CSV file (the header gives the columns): a `tableCreate` job. */
  createTableAsync(branch: string, bucketId: string, body: { name: string; dataFileId: number; primaryKey?: string; delimiter?: string; enclosure?: string }) {
    return this.call<StorageJob>("POST", tablesPath(branch, `/buckets/${enc(bucketId)}/tables-async`), { json: body, retry: "rejected-only" });
  }
  /** Creates a typed table: a `tableDefinitionCreate` job whose results are the table. */
  createTableDefinition(branch: string, bucketId: string, body: { name: string; primaryKeysNames: string[]; columns: Array<{ name: string; definition: ColumnDefinition; basetype?: string }> }) {
    return this.call<StorageJob>("POST", tablesPath(branch, `/buckets/${enc(bucketId)}/tables-definition`), { json: body, retry: "rejected-only" });
  }
  /** Loads a file into a table (`incremental: false` replaces its rows): a `tableImport` job. */
  importAsync(branch: string, tableId: string, body: { dataFileId: number; incremental: boolean; delimiter?: string; enclosure?: string; columns?: string[] }) {
    return this.call<StorageJob>("POST", tablesPath(branch, `/tables/${enc(tableId)}/import-async`), { json: body, retry: "rejected-only" });
  }
  addColumn(branch: string, tableId: string, body: { name: string; definition?: ColumnDefinition; basetype?: string }) {
    return this.call<StorageJob>("POST", tablesPath(branch, `/tables/${enc(tableId)}/columns`), { json: body, retry: "rejected-only" });
  }
  deleteColumn(branch: string, tableId: string, column: string) {
    return this.call<StorageJob>("DELETE", tablesPath(branch, `/tables/${enc(tableId)}/columns/${enc(column)}`), { query: { force: "true" }, retry: "idempotent" });
  }
  createPrimaryKey(branch: string, tableId: string, columns: string[]) {
    return this.call<StorageJob>("POST", tablesPath(branch, `/tables/${enc(tableId)}/primary-key`), { json: { columns }, retry: "rejected-only" });
  }
  deletePrimaryKey(branch: string, tableId: string) {
    return this.call<StorageJob>("DELETE", tablesPath(branch, `/tables/${enc(tableId)}/primary-key`), { retry: "idempotent" });
  }
  /** Drops a table through a `tableDrop` job; gone already: nothing to do. */
  async deleteTable(branch: string, tableId: string, what: string): Promise<void> {
    const job = await orUndefined(this.call<StorageJob>("DELETE", tablesPath(branch, `/tables/${enc(tableId)}`), { query: { force: "true", async: "true" }, retry: "idempotent" }));
    if (job) await this.waitJob(job, what);
  }
  /** Rows of a table (up to `limit`), as the data preview gives them. */
  async previewRows(branch: string, tableId: string, limit = 1000): Promise<{ columns: string[]; rows: string[][] }> {
    const body = await this.call<{ columns: string[]; rows: Array<Array<{ columnName: string; value: string }>> }>("GET", tablesPath(branch, `/tables/${enc(tableId)}/data-preview`), {
      query: { format: "json", limit: String(limit) },
    });
    return { columns: body.columns, rows: body.rows.map((r) => r.map((c) => c.value)) };
  }

  // Metadata: where the provider keeps its owner marker and the loaded content's hash
  // (keboola/keboola-sdk-go pkg/keboola/storage_table_metadata.go: POST {provider, metadata: [{key, value}]}).
  setBucketMetadata(branch: string, bucketId: string, provider: string, entries: Array<{ key: string; value: string }>) {
    return this.call<MetadataEntry[]>("POST", tablesPath(branch, `/buckets/${enc(bucketId)}/metadata`), { json: { provider, metadata: entries }, retry: "idempotent" });
  }
  setTableMetadata(branch: string, tableId: string, provider: string, entries: Array<{ key: string; value: string }>) {
    return this.call<unknown>("POST", tablesPath(branch, `/tables/${enc(tableId)}/metadata`), { json: { provider, metadata: entries }, retry: "idempotent" });
  }
  // Configuration metadata (keboola/storage-api-php-client apiary.apib "Components Configurations
  // Metadata"; keboola-sdk-go pkg/keboola/storage_config.go AppendConfigMetadataRequest): entries
  // {id, key, value, timestamp} without a provider, set by key.
  /**
   * The configurations of a branch with metadata of these keys, with those entries
   * (keboola-sdk-go storage_config.go SearchConfigsRequest; apiary "Search Components
   * Configurations": served only under `/branch/{id}`).
   */
  searchConfigs(branch: string, q: { componentId: string; metadataKeys: string[] }) {
    const query: Record<string, string> = { componentId: q.componentId, include: "filteredMetadata" };
    q.metadataKeys.forEach((k, i) => (query[`metadataKeys[${i}]`] = k));
    return this.call<Array<{ idComponent: string; configurationId: string; metadata?: Array<{ key: string; value: string }> }>>("GET", `/v2/storage/branch/${enc(branch)}/search/component-configurations`, { query });
  }
  configMetadata(branch: string, componentId: string, configId: string) {
    return this.call<Array<{ id: string; key: string; value: string }>>("GET", `${configsPath(branch, componentId)}/${enc(configId)}/metadata`);
  }
  setConfigMetadata(branch: string, componentId: string, configId: string, entries: Array<{ key: string; value: string }>) {
    return this.call<unknown>("POST", `${configsPath(branch, componentId)}/${enc(configId)}/metadata`, { json: { metadata: entries }, retry: "idempotent" });
  }
  deleteTableMetadata(branch: string, tableId: string, metadataId: string | number) {
    return orUndefined(this.call<unknown>("DELETE", tablesPath(branch, `/tables/${enc(tableId)}/metadata/${enc(String(metadataId))}`), { retry: "idempotent" }));
  }

  // Files and jobs (seed sections 4.1 and 4.2)
  /** A file resource with `uploadParams` and, with `federationToken`, temporary credentials of the object store. */
  prepareFile(branch: string, body: { name: string; sizeBytes?: number; tags?: string[]; isSliced?: boolean; isEncrypted?: boolean; federationToken: boolean }) {
    const { federationToken, ...rest } = body;
    // Retried after a lost answer or a 5xx like a read: a repeated prepare only adds an empty file
    // resource that nothing loads (File Storage expires it), never a second table or a second load.
    return this.call<StorageFile>("POST", tablesPath(branch, "/files/prepare"), { json: { ...rest, federationToken: federationToken ? 1 : 0 }, retry: "idempotent" });
  }
  /** A file of the branch (each branch has its own files: a file of another branch is not found). */
  getFile(branch: string, fileId: number | string) {
    return this.call<StorageFile>("GET", tablesPath(branch, `/files/${enc(String(fileId))}`));
  }
  listJobs(limit = 100) {
    return this.call<StorageJob[]>("GET", "/v2/storage/jobs", { query: { limit: String(limit) } });
  }
  getJob(id: number | string) {
    return this.call<StorageJob>("GET", `/v2/storage/jobs/${enc(String(id))}`);
  }
  /** Polls a job until it ends; an `error` job throws with its `error.message`. */
  waitJob(job: StorageJob, what: string): Promise<StorageJob> {
    return waitUntilFinished(
      job,
      (j) => ({
        id: String(j.id),
        finished: j.status === "success" || j.status === "error",
        ok: j.status === "success",
        message: typeof j.error === "string" ? j.error : (j.error?.message ?? "unknown error"),
      }),
      (j) => this.getJob(j.id),
      { ...this.polls, what, deadlineSeconds: this.jobTimeoutSeconds },
    );
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
/** What a component's detail holds that a lookup gives (keboola/storage-api-php-client apiary.apib, Components). */
export interface StorageComponent {
  id: string;
  type: string;
  name: string;
  description?: string;
  version?: number;
  flags?: string[];
  configurationSchema?: unknown;
  configurationRowSchema?: unknown;
  documentationUrl?: string;
}

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
