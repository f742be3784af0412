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
        // NUMBER "38,0" reads back as INTEGER (keboola/php-datatypes Snowflake getBasetype since 3f057dc).
        { name: "id", definition: { type: "NUMBER", nullable: false, length: "38,0" }, basetype: "INTEGER", canBeFiltered: true },
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

// Each refusal of the schema endpoints, with its field and text (the texts follow the Storage
// API's validation answers: "Invalid parameters - <field>: <problem>", see table-schema.ts).
describe("refusals", () => {
  const invalid = (field: string, problem: string) => ({ code: "storage.tables.validation", error: `Invalid parameters - ${field}: ${problem}` });
  const define = async (json: unknown) => (await api("POST", "/v2/storage/buckets/out.c-schema/tables-definition", { json })).body;

  it("refuses a table definition without a name, columns or column names, or with duplicated columns", async () => {
    expect(await define({ columns: [{ name: "a" }] })).toMatchObject(invalid("name", "This field is missing."));
    expect(await define({ name: "t" })).toMatchObject(invalid("columns", "This field is missing."));
    expect(await define({ name: "t", columns: [] })).toMatchObject(invalid("columns", "This field is missing."));
    expect(await define({ name: "t", columns: [{ name: "a" }, { basetype: "STRING" }] })).toMatchObject(invalid("columns[1].name", "This field is missing."));
    expect(await define({ name: "t", columns: [{ name: "a" }, { name: "b c" }] })).toMatchObject({ code: "storage.tables.validation", error: expect.stringMatching(/^Invalid parameters - columns\[1\]\.name: .+/) });
    expect(await define({ name: "t", columns: [{ name: "a" }, { name: "A" }] })).toMatchObject(invalid("columns", 'Column "A" is duplicated.'));
    expect(await define({ name: "t", primaryKeysNames: ["a", "zz"], columns: [{ name: "a" }] })).toMatchObject(
      invalid("primaryKeysNames", 'Primary key columns "zz" are not present in the table columns.'),
    );
  });

  it("refuses a typed definition with an untyped column, a nullable key, a definition without type or an unknown basetype", async () => {
    expect(await define({ name: "t", columns: [{ name: "a", basetype: "STRING" }, { name: "b" }] })).toMatchObject(invalid("columns", 'Column "definition" or "basetype" must be set.'));
    expect(await define({ name: "t", primaryKeysNames: ["a"], columns: [{ name: "a", definition: { type: "INT", nullable: true } }] })).toMatchObject(
      invalid("primaryKeysNames", 'Primary key column "a" cannot be nullable.'),
    );
    expect(await define({ name: "t", columns: [{ name: "a", definition: { length: "10" } }] })).toMatchObject(invalid("columns[0].definition.type", "This field is missing."));
    expect(await define({ name: "t", columns: [{ name: "a", basetype: "TEXT" }] })).toMatchObject(invalid("columns[0].basetype", "The value you selected is not a valid choice."));
  });

  it("reads columns given as an object (a form's columns[0][name]), skips empty key names, and keeps a default", async () => {
    const job = await accepted("POST", "/v2/storage/buckets/out.c-schema/tables-definition", {
      name: "formed",
      primaryKeysNames: ["", "k"],
      columns: { 0: { name: "k", definition: { type: "VARCHAR", length: "10" } }, 1: { name: "v", definition: { type: "VARCHAR", default: "none" } } },
    });
    expect(job).toMatchObject({ status: "success", operationParams: { primaryKeysNames: ["k"] } });
    expect(job.operationParams.columns).toEqual([
      { name: "k", definition: { type: "VARCHAR", length: "10", nullable: false } },
      { name: "v", definition: { type: "VARCHAR", default: "none", nullable: true } },
    ]);
    const t = (await api("GET", "/v2/storage/tables/out.c-schema.formed")).body;
    expect(t).toMatchObject({ columns: ["k", "v"], primaryKey: ["k"] });
    expect(t.definition.columns[1].definition).toMatchObject({ type: "VARCHAR", default: "none" });
  });

  it("refuses a column without a name or with a bad one, deleting a missing column or the last one", async () => {
    await accepted("POST", "/v2/storage/buckets/out.c-schema/tables-definition", { name: "single", columns: [{ name: "only" }] });
    expect((await api("POST", "/v2/storage/tables/out.c-schema.single/columns", { json: {} })).body).toMatchObject(invalid("name", "This field is missing."));
    expect((await api("POST", "/v2/storage/tables/out.c-schema.single/columns", { json: { name: "b c" } })).body).toMatchObject({
      code: "storage.tables.validation",
      error: expect.stringMatching(/^Invalid parameters - name: .+/),
    });
    const missing = await api("DELETE", "/v2/storage/tables/out.c-schema.single/columns/zz");
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: "storage.tables.columnNotFound", error: 'Column "zz" not found in table "out.c-schema.single".' });
    const last = await api("DELETE", "/v2/storage/tables/out.c-schema.single/columns/only");
    expect(last.status).toBe(400);
    expect(last.body).toMatchObject({ code: "storage.tables.cannotDeleteLastColumn", error: 'Cannot delete the last column "only" of table "out.c-schema.single".' });
  });

  it("refuses a primary key without columns or with columns the table lacks; a typed key column becomes not nullable", async () => {
    const pk = (json: unknown) => api("POST", "/v2/storage/tables/out.c-schema.formed/primary-key", { json });
    await accepted("DELETE", "/v2/storage/tables/out.c-schema.formed/primary-key");
    expect((await pk({ columns: [""] })).body).toMatchObject(invalid("columns", "This field is missing."));
    expect((await pk({ columns: ["v", "zz"] })).body).toMatchObject(invalid("columns", 'Primary key columns "zz" are not present in the table columns.'));
    expect((await api("GET", "/v2/storage/tables/out.c-schema.formed")).body.definition.columns[1].definition.nullable).toBe(true);
    await accepted("POST", "/v2/storage/tables/out.c-schema.formed/primary-key", { columns: ["v"] });
    const t = (await api("GET", "/v2/storage/tables/out.c-schema.formed")).body;
    expect(t.primaryKey).toEqual(["v"]);
    // k was created as the key (not nullable, and it stays so); v becomes not nullable with the key.
    expect(t.definition.columns.map((c: { definition: { nullable: boolean } }) => c.definition.nullable)).toEqual([false, false]);
  });

  it("sets a key over duplicate values when told to skip the check", async () => {
    await accepted("POST", "/v2/storage/buckets/out.c-schema/tables-definition", { name: "dups", columns: [{ name: "a" }] });
    await load("out.c-schema.dups", "a\n1\n1\n");
    expect(await accepted("POST", "/v2/storage/tables/out.c-schema.dups/primary-key", { columns: ["a"], skipDuplicatesCheck: true })).toMatchObject({ status: "success" });
  });
});

// A job runs after its request was answered: what changed in between decides it.
describe("jobs that find the project changed", () => {
  let slow: Emulator;
  const slowApi = (method: string, path: string, json?: unknown) => call(slow.url, method, path, { token: "master", ...(json === undefined ? {} : { json }) });
  const finished = async (job: { id: number }) =>
    (await pollUntil(() => slowApi("GET", `/v2/storage/jobs/${job.id}`), (r) => r.body.status === "success" || r.body.status === "error")).body;
  /** Removes a bucket's or table's record, as if another client had dropped it meanwhile. */
  const drop = (records: Record<string, { id: string }>, id: string) => {
    for (const [k, r] of Object.entries(records)) if (r.id === id) delete records[k];
  };

  beforeAll(async () => {
    // Jobs take a second, so the test changes the state before each one runs.
    slow = await startEmulator({ token: "master", taskDurationMs: 1000 });
    for (const name of ["a", "b"]) expect((await slowApi("POST", "/v2/storage/buckets", { name, stage: "in" })).status).toBe(201);
  });
  afterAll(() => slow.close());

  it("fails a table definition whose bucket is gone, or whose table was created meanwhile", async () => {
    const gone = await slowApi("POST", "/v2/storage/buckets/in.c-a/tables-definition", { name: "t", columns: [{ name: "x" }] });
    drop(slow.state.storage.buckets, "in.c-a");
    expect(await finished(gone.body)).toMatchObject({
      status: "error",
      error: { code: "storage.buckets.notFound", message: `The bucket "in.c-a" was not found in the project "${slow.state.project.id}"` },
    });
    // Both requests are accepted (no table yet); the first job creates it, the second finds it.
    const first = await slowApi("POST", "/v2/storage/buckets/in.c-b/tables-definition", { name: "t", columns: [{ name: "x" }] });
    const second = await slowApi("POST", "/v2/storage/buckets/in.c-b/tables-definition", { name: "t", columns: [{ name: "x" }] });
    expect([first.status, second.status]).toEqual([202, 202]);
    expect(await finished(first.body)).toMatchObject({ status: "success" });
    expect(await finished(second.body)).toMatchObject({
      status: "error",
      error: { code: "storage.buckets.tableAlreadyExists", message: 'The table "t" already exists in the bucket "in.c-b".' },
    });
  });

  it("fails a column, key or column delete job whose table is gone, naming the table and its bucket", async () => {
    await finished((await slowApi("POST", "/v2/storage/buckets/in.c-b/tables-definition", { name: "u", columns: [{ name: "x" }, { name: "y" }] })).body);
    const jobs = [
      (await slowApi("POST", "/v2/storage/tables/in.c-b.u/columns", { name: "z" })).body,
      (await slowApi("POST", "/v2/storage/tables/in.c-b.u/primary-key", { columns: ["x"] })).body,
      (await slowApi("DELETE", "/v2/storage/tables/in.c-b.u/columns/y")).body,
    ];
    drop(slow.state.storage.tables, "in.c-b.u");
    for (const job of jobs) {
      expect(await finished(job)).toMatchObject({
        status: "error",
        error: { code: "storage.tables.notFound", message: `The table "u" was not found in the bucket "in.c-b" in the project "${slow.state.project.id}"` },
      });
    }
  });
});
