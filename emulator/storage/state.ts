// The Storage service's part of the emulator state: plain JSON, so it can be saved to a file.
// Buckets and tables are keyed by `<branchId>/<id>`: each branch has its own storage.
// Component configurations are keyed by `<branchId>/<componentId>/<configId>`.

import type { JsonValue } from "../../keboola/json";
import type { StoredColumnDefinition } from "../../keboola/storage";
import type { StorageConfigRow, StorageJobResults } from "../../keboola/storage-answers";
import type { ChecksumAlgorithm, StoredChecksum } from "./checksums";
import type { ComponentRecord } from "./components";

/** A metadata entry of a bucket or table (`GET .../metadata`). */
export interface MetadataEntry {
  id: string;
  key: string;
  value: string;
  provider: string;
  timestamp: string;
}

export interface BucketRecord {
  id: string; // e.g. in.c-events
  branchId: number;
  stage: "in" | "out";
  name: string; // e.g. c-events
  displayName: string;
  description: string;
  created: string;
  metadata?: MetadataEntry[];
}

export interface TableRecord {
  id: string; // e.g. in.c-events.raw
  branchId: number;
  bucketId: string;
  name: string;
  columns: string[];
  primaryKey: string[];
  /** Data rows, each with one value per column, in column order. */
  rows: string[][];
  /** Rows of loads past the kept 64 MB (table-routes.ts MAX_KEPT_BYTES): counted, not kept. */
  unkeptRows?: number;
  unkeptBytes?: number;
  created: string;
  lastImportDate: string | null;
  lastChangeDate: string | null;
  /** Typed tables only (created through tables-definition with types): the native columns. */
  definition?: { primaryKeysNames: string[]; columns: StoredColumnDefinition[] };
  metadata?: MetadataEntry[];
  /** Metadata of the columns, by column name. */
  columnMetadata?: Record<string, MetadataEntry[]>;
}

/**
 * A metadata entry of a branch or a configuration: these have no provider (keboola/storage-api-php-client
 * apiary.apib "Development Branch Metadata", "Components Configurations Metadata";
 * keboola/sapi-python-client tests/mocks/branches_responses.py).
 */
export type KeyMetadataEntry = Omit<MetadataEntry, "provider">;

/** A branch of the project: the default one ("Main") and the development branches. */
export interface BranchRecord {
  id: number;
  name: string;
  description: string;
  created: string;
  isDefault: boolean;
  /** Who created a development branch (`{id, name}`); the default branch has none (PHP's `[]`). */
  creatorToken: { id: number; name: string } | null;
  metadata: KeyMetadataEntry[];
}

/** An event of the project (`POST /v2/storage/events`, and the storage events of the emulator's own operations). */
export interface EventRecord {
  id: string;
  uuid: string;
  event: string;
  component: string;
  message: string;
  description: string;
  type: "info" | "success" | "warn" | "error";
  runId: string | null;
  created: string;
  configurationId: string | null;
  objectId: string | null;
  objectName: string | null;
  objectType: string | null;
  params: { [key: string]: JsonValue };
  results: { [key: string]: JsonValue };
  performance: { [key: string]: JsonValue };
  token: { id: string; name: string };
  idBranch: number;
}

/** Who did something: the `creatorToken` object of Storage responses. */
export interface CreatorToken {
  id: number;
  description: string;
}

/** A file of File Storage. Its content lives in `objects` under `<bucket>/<key>`. */
export interface FileRecord {
  id: number;
  branchId: number;
  name: string;
  created: string;
  isPublic: boolean;
  isSliced: boolean;
  isEncrypted: boolean;
  isPermanent: boolean;
  sizeBytes: number | null;
  tags: string[];
  runId: string | null;
  creatorToken: CreatorToken;
  bucket: string;
  key: string;
  /** Emulator-only: whether content was uploaded to the object store (for a sliced file: the manifest). */
  uploaded: boolean;
  contentType: string;
}

/** An object of the emulated object store: its metadata; the bytes are in the blob store (blobs.ts). */
export interface StoredObject {
  contentType: string;
  /** Content-Encoding as uploaded (e.g. `gzip`), without the transfer's `aws-chunked`. */
  contentEncoding?: string;
  size?: number;
  /** S3's ETag, quoted: the MD5 of the bytes, or for a multipart upload `<md5 of the part md5s>-<parts>`. */
  etag?: string;
  /** The checksum the upload sent or S3 made (checksums.ts); S3's default is computed when first asked for. */
  checksum?: StoredChecksum;
  /** State files of older emulators kept the bytes here. */
  contentBase64?: string;
}

/**
 * Temporary object-store credentials issued with a file resource (`federationToken`), as AWS STS
 * federation tokens: they allow the object operations on `<bucket>/<keyPrefix>*` only, until
 * `expiresAt` (epoch ms).
 */
export interface IssuedCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  expiresAt: number;
  bucket: string;
  keyPrefix: string;
  fileId: number;
}

/** A multipart upload in progress (its parts' bytes are blobs `multipart/<uploadId>/<partNumber>`). */
export interface MultipartUpload {
  uploadId: string;
  bucket: string;
  key: string;
  contentType: string;
  contentEncoding?: string;
  initiated: string;
  /** The algorithm CreateMultipartUpload named (`x-amz-checksum-algorithm`) and its `x-amz-checksum-type`. */
  checksumAlgorithm?: ChecksumAlgorithm;
  checksumType?: "FULL_OBJECT" | "COMPOSITE";
  /** Each part's ETag, size and, with an algorithm, its checksum. */
  parts: Record<string, { etag: string; size: number; checksum?: string }>;
}

export interface StorageJobError {
  code: string;
  message: string;
  exceptionId: string;
}

export interface StorageJobRecord {
  id: number;
  branchId: number;
  status: "waiting" | "processing" | "success" | "error";
  tableId: string | null;
  operationName: string;
  operationParams: { [key: string]: JsonValue };
  createdTime: string;
  startTime: string | null;
  endTime: string | null;
  runId: string | null;
  results: StorageJobResults | null;
  creatorToken: { id: string; description: string };
  error?: StorageJobError;
  /** Emulator-only: what the job does when it runs. */
  work: { [key: string]: JsonValue };
}

export interface VersionInfo {
  created: string;
  creatorToken: CreatorToken;
  changeDescription: string;
  versionIdentifier: string;
}

export interface RowRecord {
  id: string;
  name: string;
  description: string;
  configuration: { [key: string]: JsonValue };
  state: { [key: string]: JsonValue };
  isDisabled: boolean;
  version: number;
  created: string;
  creatorToken: CreatorToken;
  changeDescription: string;
  versionIdentifier: string;
}

export interface ConfigRecord {
  branchId: number;
  componentId: string;
  id: string;
  name: string;
  description: string;
  created: string;
  creatorToken: CreatorToken;
  version: number;
  changeDescription: string;
  isDisabled: boolean;
  isDeleted: boolean;
  configuration: { [key: string]: JsonValue };
  state: { [key: string]: JsonValue };
  rowsSortOrder: string[];
  rows: RowRecord[];
  currentVersion: VersionInfo;
  /** Every version, oldest first (absent in state files of older emulators). */
  versions?: ConfigVersionRecord[];
  /** Metadata of the configuration (kept while it is in the trash). */
  metadata?: KeyMetadataEntry[];
}

/** A configuration as it was at one version (`GET .../configs/{id}/versions/{version}`). */
export interface ConfigVersionRecord extends VersionInfo {
  version: number;
  isDeleted: boolean;
  name: string;
  description: string;
  configuration: { [key: string]: JsonValue };
  rowsSortOrder: string[];
  rows: StorageConfigRow[];
}

export interface StorageState {
  buckets: Record<string, BucketRecord>;
  tables: Record<string, TableRecord>;
  files: Record<string, FileRecord>;
  objects: Record<string, StoredObject>;
  /** Issued object-store credentials, by access key id. */
  credentials: Record<string, IssuedCredentials>;
  /** Multipart uploads in progress, by upload id. */
  multipartUploads: Record<string, MultipartUpload>;
  jobs: Record<string, StorageJobRecord>;
  configs: Record<string, ConfigRecord>;
  /** Components added to the stack's catalog (EmulatorOptions.components), by id. */
  addedComponents: Record<string, ComponentRecord>;
  /** The project's branches by id: the default one and the development branches (branches.ts). */
  branches: Record<string, BranchRecord>;
  /** Events, oldest first (the newest MAX_EVENTS, events.ts). */
  events: EventRecord[];
}

export function initialStorageState(): StorageState {
  return {
    buckets: {},
    tables: {},
    files: {},
    objects: {},
    credentials: {},
    multipartUploads: {},
    jobs: {},
    configs: {},
    addedComponents: {},
    branches: {},
    events: [],
  };
}

/** Fills, in place, the parts missing from a state saved by an older emulator version. */
export function upgradeStorageState(s: Partial<StorageState>): void {
  for (const [k, empty] of Object.entries(initialStorageState())) {
    if (!Reflect.get(s, k)) Reflect.set(s, k, empty);
  }
}
