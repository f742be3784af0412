import { describe, expect, it } from "vitest";
import {
  BASE_TYPES,
  bucketDisplayNameProblem,
  bucketIdOf,
  bucketNameProblem,
  bucketStageProblem,
  columnNameProblem,
  NOT_A_VALID_CHOICE,
  snowflakeBaseType,
  snowflakeDefinitionProblem,
  snowflakeStoredDefinition,
  SNOWFLAKE_TYPE_OF_BASE_TYPE,
  tableIdOf,
  tableNameProblem,
} from "../../keboola/storage";

// Storage's naming and typing rules (keboola/storage.ts), which the provider's preview and the
// emulator's answers both apply. The messages are the service's own: keboola/storage-api-php-client
// apiary.apib ("Create Bucket", "Create new table definition", "Table detail") and its tests
// (BucketsTest), and keboola/php-datatypes src/Definition/Snowflake.php for the native types. Until
// now only the provider and emulator tests reached these rules, through whole requests.

describe("bucket and table names", () => {
  it("builds ids as Storage does: c- before a bucket's name, three parts for a table", () => {
    expect(bucketIdOf("in", "events")).toBe("in.c-events");
    expect(tableIdOf("out.c-x", "t1")).toBe("out.c-x.t1");
  });

  it("takes the stages in and out only, with Symfony's Choice message", () => {
    expect(bucketStageProblem("in")).toBeUndefined();
    expect(bucketStageProblem("out")).toBeUndefined();
    expect(bucketStageProblem("sys")).toBe(NOT_A_VALID_CHOICE);
    expect(NOT_A_VALID_CHOICE).toBe("The value you selected is not a valid choice.");
  });

  it("bucket names: letters, digits, - and _, the whole name, not blank", () => {
    expect(bucketNameProblem("My-bucket_2")).toBeUndefined();
    expect(bucketNameProblem("")).toBe("This value should not be blank.");
    for (const bad of ["a.b", ".ab", "ab.", "a b"]) {
      expect(bucketNameProblem(bad)).toBe("Only alphanumeric characters dash and underscores are allowed in bucket name.");
    }
  });

  it("display names: the same characters, the whole name", () => {
    expect(bucketDisplayNameProblem("App-events_1")).toBeUndefined();
    for (const bad of ["", "x.", ".x", "a b"]) expect(bucketDisplayNameProblem(bad)).toBe("Only alphanumeric characters dash and underscores are allowed.");
  });

  it("table names: not blank, no dot anywhere (a table id has three parts)", () => {
    expect(tableNameProblem("orders-2024_x")).toBeUndefined();
    expect(tableNameProblem("")).toBe("This value should not be blank.");
    for (const bad of ["a.b", ".ab", "ab."]) {
      expect(tableNameProblem(bad)).toBe(`"${bad}" contains not allowed characters. Only alphanumeric characters, dash and underscores are allowed.`);
    }
  });
});

describe("column names", () => {
  it("takes letters, digits and underscore, up to 64 characters", () => {
    expect(columnNameProblem("Order_id_2")).toBeUndefined();
    expect(columnNameProblem("x".repeat(64))).toBeUndefined();
  });

  it("refuses each other name with Storage's message for it", () => {
    expect(columnNameProblem("")).toBe("Column name cannot be empty.");
    for (const bad of ["a-b", "-ab", "ab-", "a b"]) {
      expect(columnNameProblem(bad)).toBe(`Invalid column name "${bad}". Only alphanumeric characters and underscores are allowed in column name.`);
    }
    const long = "x".repeat(65);
    expect(columnNameProblem(long)).toBe(`Column name "${long}" is too long. Maximum length is 64 characters.`);
  });
});

describe("Snowflake native types (php-datatypes Snowflake.php)", () => {
  it("refuses an unknown type by the name given", () => {
    expect(snowflakeDefinitionProblem({ type: "INTEGR" })).toBe("'INTEGR' is not a valid type");
    expect(snowflakeDefinitionProblem({ type: "varchar" })).toBeUndefined();
  });

  it("takes no length, a null one or an empty one for any type", () => {
    for (const length of [undefined, null, ""]) expect(snowflakeDefinitionProblem({ type: "VARIANT", length })).toBeUndefined();
  });

  it.each([
    // NUMBER(precision[,scale]): precision 1..38, scale 0..precision
    ["NUMBER", "38,0", true],
    ["DECIMAL", "1", true],
    ["NUMERIC", " 10 , 2 ", true],
    ["NUMBER", "10,10", true],
    ["NUMBER", "0", false],
    ["NUMBER", "39", false],
    ["NUMBER", "10,11", false],
    ["NUMBER", "38,39", false],
    ["NUMBER", "1,2,3", false],
    ["NUMBER", "a,1", false],
    ["NUMBER", "1,b", false],
    ["NUMBER", "x10", false],
    ["NUMBER", "10x", false],
    ["NUMBER", "1.55", true],
    ["NUMBER", "1.5", true],
    ["NUMBER", "1.x", false],
    // character types: 1..16777216
    ["VARCHAR", "1", true],
    ["TEXT", "16777216", true],
    ["CHAR", "0", false],
    ["STRING", "16777217", false],
    ["CHARACTER", "abc", false],
    // time types: fractional-second precision 0..9
    ["TIME", "0", true],
    ["TIMESTAMP_TZ", "9", true],
    ["TIMESTAMP_LTZ", "10", false],
    ["DATETIME", "-1", false],
    ["TIMESTAMP_NTZ", "x", false],
    // binary types: 1..8388608
    ["BINARY", "1", true],
    ["VARBINARY", "8388608", true],
    ["VARBINARY", "0", false],
    ["BINARY", "8388609", false],
    ["BINARY", "big", false],
    // a type without lengths takes none
    ["BOOLEAN", "1", false],
    ["INT", "10", false],
  ] as const)("%s(%s) accepted: %s", (type, length, ok) => {
    expect(snowflakeDefinitionProblem({ type, length })).toBe(ok ? undefined : `'${length}' is not valid length for ${type}`);
  });

  it.each([
    ["INT", "INTEGER"],
    ["integer", "INTEGER"],
    ["BIGINT", "INTEGER"],
    ["SMALLINT", "INTEGER"],
    ["TINYINT", "INTEGER"],
    ["BYTEINT", "INTEGER"],
    ["NUMBER", "NUMERIC"],
    ["DECIMAL", "NUMERIC"],
    ["NUMERIC", "NUMERIC"],
    ["FLOAT", "FLOAT"],
    ["FLOAT4", "FLOAT"],
    ["FLOAT8", "FLOAT"],
    ["DOUBLE", "FLOAT"],
    ["DOUBLE PRECISION", "FLOAT"],
    ["REAL", "FLOAT"],
    ["BOOLEAN", "BOOLEAN"],
    ["DATE", "DATE"],
    ["DATETIME", "TIMESTAMP"],
    ["TIMESTAMP", "TIMESTAMP"],
    ["TIMESTAMP_NTZ", "TIMESTAMP"],
    ["TIMESTAMP_LTZ", "TIMESTAMP"],
    ["TIMESTAMP_TZ", "TIMESTAMP"],
    ["TIME", "STRING"],
    ["VARIANT", "STRING"],
    ["VARCHAR", "STRING"],
  ] as const)("the base type of %s is %s (Snowflake::getBasetype)", (type, base) => {
    expect(snowflakeBaseType(type)).toBe(base);
  });

  it("creates each base type as a native type of that base type: NUMERIC as NUMBER, STRING as VARCHAR", () => {
    for (const base of BASE_TYPES) expect(snowflakeBaseType(SNOWFLAKE_TYPE_OF_BASE_TYPE[base]), base).toBe(base);
    expect([SNOWFLAKE_TYPE_OF_BASE_TYPE.NUMERIC, SNOWFLAKE_TYPE_OF_BASE_TYPE.STRING]).toEqual(["NUMBER", "VARCHAR"]);
  });
});

describe("what the table detail shows for a declared type", () => {
  const stored = (type: string, length?: string | null, extra: { nullable?: boolean; default?: string | null } = {}) =>
    snowflakeStoredDefinition("c", { type, length, ...extra }).definition;

  it.each([
    // synonyms resolved, default lengths filled in (apiary.apib "Table detail"; storage-api-php-client tests)
    ["NUMBER", undefined, { type: "NUMBER", length: "38,0" }],
    ["INT", undefined, { type: "NUMBER", length: "38,0" }],
    ["INTEGER", undefined, { type: "NUMBER", length: "38,0" }],
    ["BIGINT", undefined, { type: "NUMBER", length: "38,0" }],
    ["SMALLINT", undefined, { type: "NUMBER", length: "38,0" }],
    ["TINYINT", undefined, { type: "NUMBER", length: "38,0" }],
    ["BYTEINT", undefined, { type: "NUMBER", length: "38,0" }],
    ["DECIMAL", "10", { type: "NUMBER", length: "10,0" }],
    ["NUMERIC", " 12 , 3 ", { type: "NUMBER", length: "12,3" }],
    ["FLOAT", undefined, { type: "FLOAT" }],
    ["FLOAT4", undefined, { type: "FLOAT" }],
    ["FLOAT8", undefined, { type: "FLOAT" }],
    ["DOUBLE", undefined, { type: "FLOAT" }],
    ["REAL", undefined, { type: "FLOAT" }],
    ["DOUBLE PRECISION", undefined, { type: "FLOAT" }],
    ["TEXT", undefined, { type: "VARCHAR", length: "16777216" }],
    ["CHAR", undefined, { type: "VARCHAR", length: "1" }],
    ["CHARACTER", null, { type: "VARCHAR", length: "1" }],
    ["STRING", "", { type: "VARCHAR", length: "16777216" }],
    ["VARCHAR", "255", { type: "VARCHAR", length: "255" }],
    ["DATETIME", undefined, { type: "TIMESTAMP_NTZ", length: "9" }],
    ["TIMESTAMP", "3", { type: "TIMESTAMP_NTZ", length: "3" }],
    ["TIMESTAMP_NTZ", undefined, { type: "TIMESTAMP_NTZ", length: "9" }],
    ["TIMESTAMP_LTZ", undefined, { type: "TIMESTAMP_LTZ", length: "9" }],
    ["TIMESTAMP_TZ", "6", { type: "TIMESTAMP_TZ", length: "6" }],
    ["TIME", undefined, { type: "TIME", length: "9" }],
    ["VARBINARY", undefined, { type: "BINARY", length: "8388608" }],
    ["BINARY", "16", { type: "BINARY", length: "16" }],
    ["BINARY", undefined, { type: "BINARY", length: "8388608" }],
    ["BOOLEAN", undefined, { type: "BOOLEAN" }],
    ["variant", undefined, { type: "VARIANT" }],
  ] as const)("%s(%s) is stored as %j, nullable by default", (type, length, expected) => {
    // toStrictEqual: no length key at all where none is stored
    expect(stored(type, length)).toStrictEqual({ ...expected, nullable: true });
  });

  it("keeps the name, the base type of the stored type, and a column that can be filtered", () => {
    expect(snowflakeStoredDefinition("amount", { type: "DECIMAL", length: "10,2", nullable: false })).toEqual({
      name: "amount",
      definition: { type: "NUMBER", nullable: false, length: "10,2" },
      basetype: "NUMERIC",
      canBeFiltered: true,
    });
  });

  it("shows a default only when one is given, as text", () => {
    expect(stored("VARCHAR", undefined, { default: "n/a" })).toEqual({ type: "VARCHAR", length: "16777216", nullable: true, default: "n/a" });
    for (const none of [undefined, null, ""]) expect(stored("BOOLEAN", undefined, { default: none })).toStrictEqual({ type: "BOOLEAN", nullable: true });
  });
});
