// Storage's naming and typing rules for buckets, tables and columns, written once for the
// provider's preview checks and the emulator's answers. Each check answers the service's own
// message (undefined when the value is valid); the emulator wraps it in the service's error
// (`Invalid parameters - <field>: <message>`, code storage.<area>.validation).

import { z } from "zod";
import { isOneOf } from "./json";

export const BUCKET_STAGES = ["in", "out"] as const;
export type BucketStage = (typeof BUCKET_STAGES)[number];

/**
 * A bucket's id from its stage and name: Storage prefixes the name with `c-` (keboola/
 * storage-api-php-client apiary.apib "Create Bucket": name "my-new-bucket" -> id
 * "in.c-my-new-bucket", name "c-my-new-bucket", displayName "my-new-bucket").
 */
export function bucketIdOf(stage: BucketStage, name: string): string {
  return `${stage}.c-${name}`;
}

/** A table's id: `<bucketId>.<name>` (exactly three dot-separated parts). */
export function tableIdOf(bucketId: string, name: string): string {
  return `${bucketId}.${name}`;
}

/** Symfony's Choice message, which Storage answers for a value outside a closed list (a stage, a backend, a basetype). */
export const NOT_A_VALID_CHOICE = "The value you selected is not a valid choice.";

export function bucketStageProblem(stage: string): string | undefined {
  return isOneOf(BUCKET_STAGES, stage) ? undefined : NOT_A_VALID_CHOICE;
}

/** Bucket names: letters, digits, dash and underscore (apiary.apib "Create Bucket"). */
export function bucketNameProblem(name: string): string | undefined {
  if (name === "") return "This value should not be blank.";
  return /^[A-Za-z0-9_-]+$/.test(name) ? undefined : "Only alphanumeric characters dash and underscores are allowed in bucket name.";
}

/**
 * Bucket display names (shown in the UI, changeable): letters, digits, dash and underscore; unique
 * among the project's buckets (keboola/storage-api-php-client tests BucketsTest: "Invalid data -
 * displayName: Only alphanumeric characters dash and underscores are allowed.", code
 * storage.buckets.validation; 'The display name "x" already exists in project.', code
 * storage.buckets.alreadyExists).
 */
export function bucketDisplayNameProblem(displayName: string): string | undefined {
  return /^[A-Za-z0-9_-]+$/.test(displayName) ? undefined : "Only alphanumeric characters dash and underscores are allowed.";
}

/** Table names: letters, digits, dash and underscore; no dot (a table id has exactly three parts). */
export function tableNameProblem(name: string): string | undefined {
  if (name === "") return "This value should not be blank.";
  return /^[A-Za-z0-9_-]+$/.test(name)
    ? undefined
    : `"${name}" contains not allowed characters. Only alphanumeric characters, dash and underscores are allowed.`;
}

/** Column names Storage keeps as given: letters, digits and underscore, at most 64 characters. */
export const MAX_COLUMN_NAME_LENGTH = 64;

export function columnNameProblem(name: string): string | undefined {
  if (name === "") return "Column name cannot be empty.";
  if (!/^[A-Za-z0-9_]+$/.test(name)) return `Invalid column name "${name}". Only alphanumeric characters and underscores are allowed in column name.`;
  if (name.length > MAX_COLUMN_NAME_LENGTH) return `Column name "${name}" is too long. Maximum length is ${MAX_COLUMN_NAME_LENGTH} characters.`;
  return undefined;
}

// Typed tables (Snowflake backend): the native types and their length rules as
// keboola/php-datatypes src/Definition/Snowflake.php validates them, and the base types
// (apiary.apib "Create new table definition": basetype BOOLEAN, DATE, FLOAT, INTEGER, NUMERIC,
// STRING, TIMESTAMP).

export const BASE_TYPES = ["BOOLEAN", "DATE", "FLOAT", "INTEGER", "NUMERIC", "STRING", "TIMESTAMP"] as const;
export type BaseType = (typeof BASE_TYPES)[number];

export const SNOWFLAKE_TYPES = [
  "NUMBER", "DECIMAL", "NUMERIC",
  "INT", "INTEGER", "BIGINT", "SMALLINT", "TINYINT", "BYTEINT",
  "FLOAT", "FLOAT4", "FLOAT8", "DOUBLE", "DOUBLE PRECISION", "REAL",
  "VARCHAR", "CHAR", "CHARACTER", "STRING", "TEXT",
  "BOOLEAN", "DATE", "DATETIME", "TIME",
  "TIMESTAMP", "TIMESTAMP_NTZ", "TIMESTAMP_LTZ", "TIMESTAMP_TZ",
  "VARIANT", "OBJECT", "ARRAY", "BINARY", "VARBINARY",
] as const; // prettier-ignore

/** A column's native definition, as the API takes it. */
export interface ColumnDefinition {
  type: string;
  length?: string | null;
  nullable?: boolean;
  default?: string | null;
}

const isNumeric = (s: string): boolean => /^\s*-?\d+(\.\d+)?\s*$/.test(s);

/** The php-datatypes refusal of a Snowflake type and length, undefined when accepted. */
export function snowflakeDefinitionProblem(def: ColumnDefinition): string | undefined {
  const type = def.type.toUpperCase();
  if (!isOneOf(SNOWFLAKE_TYPES, type)) return `'${def.type}' is not a valid type`;
  const length = def.length === undefined || def.length === null ? "" : String(def.length);
  if (length === "") return undefined;
  const bad = `'${length}' is not valid length for ${def.type}`;
  const int = (s: string): number => parseInt(s, 10);
  switch (type) {
    case "NUMBER":
    case "DECIMAL":
    case "NUMERIC": {
      const parts = length.split(",");
      if (parts.length > 2 || !parts.every(isNumeric)) return bad;
      const [precision, scale] = parts.map(int);
      if (precision <= 0 || precision > 38) return bad;
      // The scale is at most the precision (so at most 38); with no scale given, `scale` is undefined.
      if (scale !== undefined && scale > precision) return bad;
      return undefined;
    }
    case "VARCHAR":
    case "CHAR":
    case "CHARACTER":
    case "STRING":
    case "TEXT":
      return isNumeric(length) && int(length) > 0 && int(length) <= 16777216 ? undefined : bad;
    case "TIME":
    case "DATETIME":
    case "TIMESTAMP":
    case "TIMESTAMP_NTZ":
    case "TIMESTAMP_LTZ":
    case "TIMESTAMP_TZ":
      return isNumeric(length) && int(length) >= 0 && int(length) <= 9 ? undefined : bad;
    case "BINARY":
    case "VARBINARY":
      return isNumeric(length) && int(length) >= 1 && int(length) <= 8388608 ? undefined : bad;
    default:
      return bad;
  }
}

/** The base type of a Snowflake type (php-datatypes Snowflake::getBasetype). */
export function snowflakeBaseType(type: string, length?: string): BaseType {
  const t = type.toUpperCase();
  // keboola/php-datatypes src/Definition/Snowflake.php getBasetype (since 3f057dc, 2024-10-25:
  // "Snowflake TYPE_NUMBER with length 38,0 has basetype integer"): what INT and its synonyms are
  // stored as reads back as INTEGER; keboola-sdk-go pkg/keboola/storage_table_test.go
  // TestCreateTableDefinition (v2.21.0) creates "INT" and reads NUMBER "38,0" basetype INTEGER.
  if (t === "NUMBER" && length === "38,0") return "INTEGER";
  if (["INT", "INTEGER", "BIGINT", "SMALLINT", "TINYINT", "BYTEINT"].includes(t)) return "INTEGER";
  if (["NUMBER", "DECIMAL", "NUMERIC"].includes(t)) return "NUMERIC";
  if (["FLOAT", "FLOAT4", "FLOAT8", "DOUBLE", "DOUBLE PRECISION", "REAL"].includes(t)) return "FLOAT";
  if (t === "BOOLEAN") return "BOOLEAN";
  if (t === "DATE") return "DATE";
  if (["DATETIME", "TIMESTAMP", "TIMESTAMP_NTZ", "TIMESTAMP_LTZ", "TIMESTAMP_TZ"].includes(t)) return "TIMESTAMP";
  return "STRING";
}

/** The native type Storage creates for a base type on Snowflake. */
export const SNOWFLAKE_TYPE_OF_BASE_TYPE: Record<BaseType, string> = {
  BOOLEAN: "BOOLEAN",
  DATE: "DATE",
  FLOAT: "FLOAT",
  INTEGER: "INTEGER",
  NUMERIC: "NUMBER",
  STRING: "VARCHAR",
  TIMESTAMP: "TIMESTAMP",
};

/**
 * A column of a typed table as the table detail's `definition.columns` shows it (keys in the
 * order snowflakeStoredDefinition writes them, which a parse keeps).
 */
export const storedColumnDefinitionSchema = z.object({
  name: z.string(),
  definition: z.object({ type: z.string(), nullable: z.boolean(), length: z.string().optional(), default: z.string().optional() }),
  basetype: z.enum(BASE_TYPES),
  canBeFiltered: z.boolean(),
});
export type StoredColumnDefinition = z.output<typeof storedColumnDefinitionSchema>;

/**
 * What Snowflake stores for a declared type: synonyms resolved to their base native type, default
 * lengths filled in (the detail never shows synonyms: "INT = NUMERIC(38,0) for Snowflake",
 * apiary.apib "Table detail"; INT -> NUMBER "38,0" basetype INTEGER (snowflakeBaseType says
 * why, older storage-api-php-client tests recorded NUMERIC), VARCHAR -> length "16777216"
 * basetype STRING).
 */
export function snowflakeStoredDefinition(name: string, def: ColumnDefinition): StoredColumnDefinition {
  const t = def.type.toUpperCase();
  const given = def.length === undefined || def.length === null || def.length === "" ? undefined : String(def.length).replace(/\s/g, "");
  let type = t;
  let length = given;
  if (["NUMBER", "DECIMAL", "NUMERIC", "INT", "INTEGER", "BIGINT", "SMALLINT", "TINYINT", "BYTEINT"].includes(t)) {
    type = "NUMBER";
    length = given ?? "38,0";
    if (!length.includes(",")) length = `${length},0`;
  } else if (["FLOAT", "FLOAT4", "FLOAT8", "DOUBLE", "DOUBLE PRECISION", "REAL"].includes(t)) {
    type = "FLOAT";
  } else if (["VARCHAR", "CHAR", "CHARACTER", "STRING", "TEXT"].includes(t)) {
    type = "VARCHAR";
    length = given ?? (t === "CHAR" || t === "CHARACTER" ? "1" : "16777216");
  } else if (["DATETIME", "TIMESTAMP", "TIMESTAMP_NTZ"].includes(t)) {
    type = "TIMESTAMP_NTZ";
    length = given ?? "9";
  } else if (t === "TIMESTAMP_LTZ" || t === "TIMESTAMP_TZ" || t === "TIME") {
    length = given ?? "9";
  } else if (t === "BINARY" || t === "VARBINARY") {
    type = "BINARY";
    length = given ?? "8388608";
  }
  const out: StoredColumnDefinition = {
    name,
    definition: { type, nullable: def.nullable ?? true },
    basetype: snowflakeBaseType(type, length),
    canBeFiltered: true,
  };
  if (length !== undefined) out.definition.length = length;
  if (def.default !== undefined && def.default !== null && def.default !== "") out.definition.default = String(def.default);
  return out;
}

/** The component of variables configurations (bound to a configuration by its `variables_id`). */
export const VARIABLES_COMPONENT = "keboola.variables";
