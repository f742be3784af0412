import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator/server";
import { call, pollUntil } from "./helpers";
import { putFile } from "./s3-helpers";

// Typed tables, columns and the primary key, as the Storage API's endpoints and jobs answer.

let emu: Emulator;
const api = (method: string, path: string, opts: Parameters<typeof call>[3] = {}) => call(emu.url, method, path, { token: "master", ...opts });

beforeAll(async () => {
  emu = await startEmulator({ token: "master", taskDurationMs: 5 });
  expect((await api("POST", "/v2/storage/buckets", { json: { name: "schema", stage: "out" } })).status).toBe(201);
});
afterAll(() => emu.close());

async function waitJob(job: { id: number }) {
  return (await pollUntil(() => api("GET", `/v2/storage/jobs/${job.id}`), (r) => r.body.status === "success" || r.body.status === "error")).body;
}

async function accepted(method: string, path: string, json?: unknown) {
  const r = await api(method, path, json === undefined ? {} : { json });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  return waitJob(r.body);
}

async function load(tableId: string, csv: string, incremental = false) {
  const prep = await api("POST", "/v2/storage/files/prepare", { json: { name: "l.csv", federationToken: true } });
  await putFile(prep.body, csv);
  return accepted("POST", `/v2/storage/tables/${tableId}/import-async`, { dataFileId: prep.body.id, incremental });
}

const typedDefinition = {
  name: "orders",
  primaryKeysNames: ["id"],
  columns: [
    { name: "id", definition: { type: "INT" } },
    { name: "amount", definition: { type: "DECIMAL", length: "10,2" } },
    { name: "note", definition: { type: "VARCHAR" } },
    { name: "at", basetype: "TIMESTAMP" },
  ],
};

describe("typed tables", () => {
  it("creates a typed table with a tableDefinitionCreate job; the detail shows the stored definition", async () => {
    const r = await api("POST", "/v2/storage/buckets/out.c-schema/tables-definition", { json: typedDefinition });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ status: "waiting", operationName: "tableDefinitionCreate", tableId: null });
    expect(r.body.operationParams.columns[0]).toEqual({ name: "id", definition: { type: "INT", nullable: false } });
    const job = await waitJob(r.body);
    expect(job).toMatchObject({ status: "success", tableId: "out.c-schema.orders", results: { id: "out.c-schema.orders", isTyped: true } });
    const t = (await api("GET", "/v2/storage/tables/out.c-schema.orders")).body;
    expect(t).toMatchObject({ isTyped: true, columns: ["id", "amount", "note", "at"], primaryKey: ["id"] });
    expect(t.definition).toEqual({
      primaryKeysNames: ["id"],
      columns: [
        { name: "id", definition: { type: "NUMBER", nullable: false, length: "38,0" }, basetype: "NUMERIC", canBeFiltered: true },
        { name: "amount", definition: { type: "NUMBER", nullable: true, length: "10,2" }, basetype: "NUMERIC", canBeFiltered: true },
        { name: "note", definition: { type: "VARCHAR", nullable: true, length: "16777216" }, basetype: "STRING", canBeFiltered: true },
        { name: "at", definition: { type: "TIMESTAMP_NTZ", nullable: true, length: "9" }, basetype: "TIMESTAMP", canBeFiltered: true },
      ],
    });
  });

  it("refuses what Snowflake refuses, synchronously with the real messages", async () => {
    const bad = async (json: unknown) => (await api("POST", "/v2/storage/buckets/out.c-schema/tables-definition", { json })).body;
    expect(await bad({ name: "x", columns: [{ name: "a", definition: { type: "VARCHAR2" } }] })).toMatchObject({
      code: "storage.tables.validation",
      error: "Invalid parameters - columns[0].definition: 'VARCHAR2' is not a valid type",
    });
    expect((await bad({ name: "x", columns: [{ name: "a", definition: { type: "NUMBER", length: "39,0" } }] })).error).toBe(
      "Invalid parameters - columns[0].definition: '39,0' is not valid length for NUMBER",
    );
    expect((await bad({ name: "x", columns: [{ name: "a", definition: { type: "INT", length: "10" } }] })).error).toContain("'10' is not valid length for INT");
    expect((await bad({ name: "x", columns: [{ name: "a", definition: { type: "VARCHAR", length: "16777217" } }] })).error).toContain("not valid length");
    expect((await bad({ name: "x.y", columns: [{ name: "a" }] })).error).toContain("contains not allowed characters");
    expect((await bad({ name: "x", primaryKeysNames: ["b"], columns: [{ name: "a" }] })).error).toContain('Primary key columns "b"');
    expect(await bad(typedDefinition)).toMatchObject({ code: "storage.buckets.tableAlreadyExists" });
  });

  it("creates an untyped table when no column has a type; its detail lists the columns with empty definitions", async () => {
    const job = await accepted("POST", "/v2/storage/buckets/out.c-schema/tables-definition", { name: "plain", columns: [{ name: "a" }, { name: "b" }] });
    expect(job.results).toMatchObject({ isTyped: false, columns: ["a", "b"] });
    await accepted("POST", "/v2/storage/buckets/out.c-schema/tables-definition", { name: "keyed", primaryKeysNames: ["a"], columns: [{ name: "a" }, { name: "b" }] });
    // keboola/keboola-sdk-go v2.21.0 pkg/keboola/storage_table_test.go: "The Storage API now returns a
    // definition block even for untyped tables, with each column carrying an empty (non-object)
    // definition" (storage_table_column_test.go: `{"name":"inward_issue_id","definition":[]}`);
    // keboola/keboola-as-code test/cli/remote-create/table-interactive/expected-state.json.
    const untyped = { primaryKeysNames: ["a"], columns: [{ name: "a", definition: [] }, { name: "b", definition: [] }] };
    expect((await api("GET", "/v2/storage/tables/out.c-schema.keyed")).body).toMatchObject({ isTyped: false, definition: untyped });
    expect((await api("GET", "/v2/storage/tables/out.c-schema.plain")).body.definition).toEqual({ ...untyped, primaryKeysNames: [] });
    // The list has no definition, typed or not (keboola-as-code internal/pkg/utils/testproject/snapshot.go).
    const listed = (await api("GET", "/v2/storage/buckets/out.c-schema/tables")).body as Array<Record<string, unknown>>;
    expect(listed.map((t) => t.id).sort()).toEqual(["out.c-schema.keyed", "out.c-schema.orders", "out.c-schema.plain"]);
    for (const t of listed) expect(t).not.toHaveProperty("definition");
  });

  it("loads a typed table only with its columns", async () => {
    expect(await load("out.c-schema.orders", "id,amount,note,at\n1,2.50,x,2024-01-01 00:00:00\n")).toMatchObject({ status: "success" });
    const extra = await load("out.c-schema.orders", "id,amount,note,at,more\n1,2,x,y,z\n");
    expect(extra).toMatchObject({ status: "error", error: { code: "csvImport.columnsNotMatch" } });
    expect(extra.error.message).toContain("Extra columns: more");
  });
});

describe("columns and primary key", () => {
  it("adds and deletes columns with jobs; a typed table needs a type, an untyped one refuses it", async () => {
    const typedNoType = await api("POST", "/v2/storage/tables/out.c-schema.orders/columns", { json: { name: "c" } });
    expect(typedNoType.body).toMatchObject({ code: "storage.tables.validation", error: 'Column "definition" or "basetype" must be set.' });
    const untypedWithType = await api("POST", "/v2/storage/tables/out.c-schema.plain/columns", { json: { name: "c", definition: { type: "VARCHAR" } } });
    expect(untypedWithType.body).toMatchObject({ code: "storage.tables.validation", error: "Invalid parameters - definition: This field was not expected." });

    const add = await accepted("POST", "/v2/storage/tables/out.c-schema.orders/columns", { name: "qty", definition: { type: "INTEGER" } });
    expect(add).toMatchObject({ status: "success", operationName: "tableColumnAdd", operationParams: { name: "qty" } });
    const t = (await api("GET", "/v2/storage/tables/out.c-schema.orders")).body;
    expect(t.columns).toEqual(["id", "amount", "note", "at", "qty"]);
    expect(t.definition.columns[4]).toMatchObject({ name: "qty", definition: { type: "NUMBER", length: "38,0" } });
    expect((await api("POST", "/v2/storage/tables/out.c-schema.orders/columns", { json: { name: "qty", basetype: "STRING" } })).body.code).toBe(
      "storage.tables.columnAlreadyExists",
    );

    const pk = await api("DELETE", "/v2/storage/tables/out.c-schema.orders/columns/id");
    expect(pk.status).toBe(400);
    expect(pk.body.code).toBe("storage.tables.cannotDeletePrimaryKeyColumn");
    const del = await accepted("DELETE", "/v2/storage/tables/out.c-schema.orders/columns/note");
    expect(del).toMatchObject({ status: "success", operationName: "tableColumnDelete", operationParams: { name: "note", force: false } });
    const after = (await api("GET", "/v2/storage/tables/out.c-schema.orders")).body;
    expect(after.columns).toEqual(["id", "amount", "at", "qty"]);
    expect(after.definition.columns.map((c: { name: string }) => c.name)).toEqual(["id", "amount", "at", "qty"]);
    expect((await api("GET", "/v2/storage/tables/out.c-schema.orders/data-preview")).text).toBe('"id","amount","at","qty"\n"1","2.50","2024-01-01 00:00:00",""\n');
    await accepted("DELETE", "/v2/storage/tables/out.c-schema.orders/columns/id?force=true");
    expect((await api("GET", "/v2/storage/tables/out.c-schema.orders")).body).toMatchObject({ primaryKey: [], columns: ["amount", "at", "qty"] });
  });

  it("sets and removes the primary key with jobs; duplicates fail the job", async () => {
    await load("out.c-schema.plain", "a,b\n1,x\n1,y\n");
    const dup = await accepted("POST", "/v2/storage/tables/out.c-schema.plain/primary-key", { columns: ["a"] });
    expect(dup).toMatchObject({ status: "error", operationName: "tablePrimaryKeyAdd", error: { code: "storage.tables.primaryKeyDuplicateValues" } });
    const ok = await accepted("POST", "/v2/storage/tables/out.c-schema.plain/primary-key", { columns: ["a", "b"] });
    expect(ok).toMatchObject({ status: "success", operationParams: { columns: ["a", "b"], skipDuplicatesCheck: false } });
    expect((await api("GET", "/v2/storage/tables/out.c-schema.plain")).body.primaryKey).toEqual(["a", "b"]);
    const again = await api("POST", "/v2/storage/tables/out.c-schema.plain/primary-key", { json: { columns: ["a"] } });
    expect(again.body.code).toBe("storage.tables.primaryKeyAlreadyExists");
    expect(await accepted("DELETE", "/v2/storage/tables/out.c-schema.plain/primary-key")).toMatchObject({
      status: "success",
      operationName: "tablePrimaryKeyDelete",
    });
    expect((await api("GET", "/v2/storage/tables/out.c-schema.plain")).body.primaryKey).toEqual([]);
  });
});
