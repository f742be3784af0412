// The Storage API's answers, as the emulator gives them and clients read them: keys in the order
// of the real answers (keboola/storage-api-php-client `apiary.apib`, keboola/keboola-sdk-go
// `pkg/keboola/storage_*.go`). The provider's client reads a part of each (provider/api/storage.ts).
// This layer imports neither the provider nor the emulator.

import type { JsonObject } from "./json";
import type { StoredColumnDefinition } from "./storage";

/** Who made a configuration, a row, a version or a file: the `creatorToken` object. */
export interface StorageCreatorToken {
  id: number;
  description: string;
}

/** One metadata entry of a bucket, a table or a column. */
export interface StorageMetadata {
  id: string;
  key: string;
  value: string;
  provider: string;
  timestamp: string;
}

export interface StorageBucket {
  uri: string;
  id: string;
  name: string;
  displayName: string;
  idBranch: number;
  stage: "in" | "out";
  description: string;
  tables: string;
  created: string;
  lastChangeDate: string | null;
  updated: string;
  isReadOnly: boolean;
  dataSizeBytes: number;
  rowsCount: number;
  isMaintenance: boolean;
  backend: string;
  sharing: string | null;
  hasExternalSchema: boolean;
  databaseName: string;
  path: string;
  isSnowflakeSharedDatabase: boolean;
  color: string | null;
  owner: { id: number; name: string } | null;
  isLinkedBucket: boolean;
  backendPath: string[];
  /** Absent from a list unless it asks for `include=metadata`. */
  metadata?: StorageMetadata[];
}

export interface StorageTable {
  uri: string;
  id: string;
  name: string;
  displayName: string;
  transactional: boolean;
  primaryKey: string[];
  indexType: string | null;
  indexKey: string[];
  distributionType: string | null;
  distributionKey: string[];
  syntheticPrimaryKeyEnabled: boolean;
  created: string;
  lastImportDate: string | null;
  lastChangeDate: string | null;
  rowsCount: number;
  dataSizeBytes: number;
  isAlias: boolean;
  isAliasable: boolean;
  isTyped: boolean;
  tableType: string;
  path: string;
  /** Absent from a list of tables unless it asks for `include=columns`. */
  columns?: string[];
  /** Absent from a list unless it asks for `include=metadata`. */
  metadata?: StorageMetadata[];
  /** By column name; PHP serializes an empty map as a list. */
  columnMetadata?: Record<string, StorageMetadata[]> | [];
  /** The table's bucket (in a table's detail). */
  bucket?: StorageBucket;
  /**
   * The table's columns: a typed table's as the backend stores them (`isTyped`), an untyped
   * table's by name with an empty `definition` (StorageUntypedColumn). In a table's detail only.
   */
  definition?: { primaryKeysNames: string[]; columns: Array<StoredColumnDefinition | StorageUntypedColumn> };
}

/**
 * A column of an untyped table in the detail's `definition`: its name and an empty `definition`
 * (PHP's empty array). keboola/keboola-sdk-go v2.21.0 pkg/keboola/storage_table_test.go ("The
 * Storage API now returns a definition block even for untyped tables, with each column carrying
 * an empty (non-object) definition") and storage_table_column_test.go (the payload of the bug
 * report: `{"name":"inward_issue_id","definition":[]}`).
 */
export interface StorageUntypedColumn {
  name: string;
  definition: [];
}

/** The user behind a master token (`admin` of a token's detail). */
export interface StorageTokenAdmin {
  id: number;
  name: string;
  features: string[];
  isOrganizationMember: boolean;
  role: string;
  isActivated: boolean;
}

/** A token's project (`owner` of a token's detail). */
export interface StorageProject {
  id: number;
  name: string;
  type: string;
  region: string;
  created: string;
  expires: string | null;
  features: string[];
  dataSizeBytes: number;
  rowsCount: number;
  hasMysql: boolean;
  hasSynapse: boolean;
  hasRedshift: boolean;
  hasSnowflake: boolean;
  hasExasol: boolean;
  hasTeradata: boolean;
  hasBigquery: boolean;
  defaultBackend: string;
  hasTryModeOn: string;
  limits: Record<string, { name: string; value: number }>;
  metrics: Record<string, { name: string; value: number }>;
  isDisabled: boolean;
  billedMonthlyPrice: number | null;
  dataRetentionTimeInDays: number;
  assignedBackends: string[];
  fileStorageProvider: string;
}

/** `GET /v2/storage/tokens/verify`. */
export interface StorageToken {
  id: string;
  token: string;
  description: string;
  created: string;
  refreshed: string;
  uri: string;
  isMasterToken: boolean;
  canManageBuckets: boolean;
  canManageTokens: boolean;
  canReadAllFileUploads: boolean;
  canPurgeTrash: boolean;
  canManageProtectedDefaultBranch: boolean;
  canCreateJobs: boolean;
  expires: string | null;
  isExpired: boolean;
  isDisabled: boolean;
  isBYODB: boolean;
  dailyCapacity: number;
  /** By bucket id; PHP serializes an empty map as a list. */
  bucketPermissions: Record<string, string> | [];
  /** Only for a created (non-master) token. */
  creatorToken?: StorageCreatorToken;
  /** Only when the token was granted components. */
  componentAccess?: string[];
  /** Only for a master token. */
  admin?: StorageTokenAdmin;
  organization: { id: string };
  owner: StorageProject;
}

export interface StorageDevBranch {
  id: number;
  name: string;
  description: string;
  created: string;
  /**
   * Who created a development branch, `{id, name}` (keboola/storage-api-php-client
   * tests/Common/DevBranchesTest.php); the default branch has none, a PHP empty array (apiary.apib
   * "List branches").
   */
  creatorToken: { id: number; name: string } | [];
  isDefault: boolean;
}

/** One metadata entry of a branch or a configuration: no provider (apiary.apib "Development Branch Metadata"). */
export interface StorageKeyMetadata {
  id: string;
  key: string;
  value: string;
  timestamp: string;
}

/** The API index (`GET /v2/storage`): the stack's services and, unless excluded, its components. */
export interface StorageIndex {
  api: "storage";
  documentation: string;
  version: "v2";
  components?: JsonObject[];
  services: Array<{ id: string; url: string }>;
  features: string[];
  urlTemplates: { orchestrationJob: string };
}

/** What a finished job reports: a table (table create) or an operation's own object. */
export type StorageJobResults = StorageTable | StorageBucket | JsonObject;

export interface StorageJob {
  id: number;
  status: "waiting" | "processing" | "success" | "error";
  url: string;
  tableId: string | null;
  operationName: string;
  operationParams: JsonObject;
  createdTime: string;
  startTime: string | null;
  endTime: string | null;
  runId: string | null;
  results: StorageJobResults | null;
  creatorToken: { id: string; description: string };
  metrics: {
    inCompressed: boolean;
    inBytes: number;
    inBytesUncompressed: number;
    outCompressed: boolean;
    outBytes: number;
    outBytesUncompressed: number;
  };
  error?: { code: string; message: string; exceptionId: string };
}

/** The head of a configuration's current version (`currentVersion`). */
export interface StorageVersionInfo {
  created: string;
  creatorToken: StorageCreatorToken;
  changeDescription: string;
  versionIdentifier: string;
}

export interface StorageConfigRow {
  id: string;
  name: string;
  description: string;
  isDisabled: boolean;
  version: number;
  created: string;
  creatorToken: StorageCreatorToken;
  changeDescription: string;
  configuration: JsonObject;
  state: JsonObject;
  versionIdentifier: string;
}

export interface StorageConfiguration {
  id: string;
  name: string;
  description: string;
  created: string;
  creatorToken: StorageCreatorToken;
  version: number;
  changeDescription: string;
  isDisabled: boolean;
  isDeleted: boolean;
  /** Absent from a list that does not include `configuration`. */
  configuration?: JsonObject;
  rowsSortOrder: string[];
  /** Absent from a list that does not include `rows`. */
  rows?: StorageConfigRow[];
  state: JsonObject;
  currentVersion: StorageVersionInfo;
}

/** The fields every answer about a configuration's version starts with (list and detail alike). */
export interface StorageConfigVersionHead {
  version: number;
  created: string;
  versionIdentifier: string;
  creatorToken: StorageCreatorToken;
  changeDescription: string;
  isDeleted: boolean;
}

/** A version in the list: its head and the fields the list `include`s. */
export interface StorageConfigVersionItem extends StorageConfigVersionHead {
  name?: string;
  description?: string;
  configuration?: JsonObject;
}

/** One version's detail: the configuration and its rows as they were. */
export interface StorageConfigVersion extends StorageConfigVersionHead {
  name: string;
  description: string;
  configuration: JsonObject;
  rowsSortOrder: string[];
  rows: StorageConfigRow[];
}

/** Temporary credentials of the file store (federation token). */
export interface StorageFileCredentials {
  AccessKeyId: string;
  SecretAccessKey: string;
  SessionToken: string;
  Expiration: string;
}

/** How to upload a prepared file: credentials with a federation token, else a signed form post. */
export interface StorageUploadParams {
  key: string;
  bucket: string;
  acl: string;
  credentials?: StorageFileCredentials;
  url?: string;
  policy?: string;
  signature?: string;
  AWSAccessKeyId?: string;
  /** Server-side encryption of an encrypted file (keboola-sdk-go storage_file_upload/s3/file.go). */
  "x-amz-server-side-encryption"?: string;
}

export interface StorageFile {
  id: number;
  created: string;
  isPublic: boolean;
  isSliced: boolean;
  isEncrypted: boolean;
  name: string;
  fileType: string;
  url: string;
  provider: string;
  region: string;
  sizeBytes: number | null;
  tags: string[];
  maxAgeDays: number | null;
  runId: string | null;
  runIds: string[];
  creatorToken: StorageCreatorToken;
  /** The answer of `files/prepare`. */
  uploadParams?: StorageUploadParams;
  /** With `federationToken` (detail). */
  s3Path?: { bucket: string; key: string };
  credentials?: StorageFileCredentials;
  /** Emulator only, never sent by the real service: the object store to point an S3 client at (README, emulator). */
  s3Endpoint?: string;
}
