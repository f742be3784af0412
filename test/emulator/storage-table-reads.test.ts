import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator/server";
import { call, pollUntil } from "./helpers";
import { getText, putFile } from "./s3-helpers";

// Reads that honour their parameters: the filters (`whereFilters`), the order (`orderBy`), the
// columns and the limit of a data preview and of an unload (export-async), sent as
// keboola/keboola-sdk-go sends them (pkg/keboola/storage_table_options.go toQueryParams: the
// preview's query `whereFilters[0][column]=...`; storage_table_unload.go unloadConfig: the
// unload's JSON body). Semantics from keboola/storage-api-php-client apiary.apib ("Unload Data
// Asynchronously": rows filtering and sorting, WhereFiltersObject, OrderByObject) and its Snowflake
// tests WhereFilterTest and OrderByTest (the data below is theirs), errors from the same tests.

let emu: Emulator;
const api = (method: string, path: string, opts: Parameters<typeof call>[3] = {}) => call(emu.url, method, path, { token: "master", ...opts });

async function waitJob(job: { id: number }) {
  return (await pollUntil(() => api("GET", `/v2/storage/jobs/${job.id}`), (r) => r.body.status === "success" || r.body.status === "error")).body;
}

async function createTable(name: string, csv: string): Promise<string> {
  const prep = await api("POST", "/v2/storage/files/prepare", { json: { name: `${name}.csv`, federationToken: true } });
  await putFile(prep.body, csv);
  const job = await waitJob((await api("POST", "/v2/storage/buckets/in.c-reads/tables-async", { json: { dataFileId: prep.body.id, name } })).body);
  expect(job.status).toBe("success");
  return `in.c-reads.${name}`;
}

/** The preview's query as keboola-sdk-go's toQueryParams builds it. */
function sdkQuery(opts: {
  where?: Array<{ column: string; operator: string; values: string[]; dataType?: string }>;
  order?: Array<{ column: string; order: string; dataType?: string }>;
  limit?: number;
  columns?: string[];
}): string {
  const q = new URLSearchParams();
  (opts.where ?? []).forEach((f, i) => {
    q.set(`whereFilters[${i}][column]`, f.column);
    q.set(`whereFilters[${i}][operator]`, f.operator);
    f.values.forEach((v, j) => q.set(`whereFilters[${i}][values][${j}]`, v));
    if (f.dataType) q.set(`whereFilters[${i}][dataType]`, f.dataType);
  });
  (opts.order ?? []).forEach((o, i) => {
    q.set(`orderBy[${i}][column]`, o.column);
    q.set(`orderBy[${i}][order]`, o.order);
    if (o.dataType) q.set(`orderBy[${i}][dataType]`, o.dataType);
  });
  q.set("limit", String(opts.limit ?? 100));
  if (opts.columns) q.set("columns", opts.columns.join(","));
  return q.toString();
}

const preview = async (tableId: string, query: string) => api("GET", `/v2/storage/tables/${tableId}/data-preview?${query}`);
const column = (csv: string, name: string): string[] => {
  const lines = csv.trim().split("\n").map((l) => l.slice(1, -1).split('","'));
  const i = lines[0].indexOf(name);
  return lines.slice(1).map((l) => l[i]);
};

/** Unloads the table with a JSON body as keboola-sdk-go sends it; the slices' text. */
async function unload(tableId: string, body: Record<string, unknown>): Promise<string> {
  const r = await api("POST", `/v2/storage/tables/${tableId}/export-async`, { json: body });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  const job = await waitJob(r.body);
  expect(job.status).toBe("success");
  const file = (await api("GET", `/v2/storage/files/${job.results.file.id}?federationToken=1`)).body;
  const manifest = (await (await fetch(file.url)).json()) as { entries: Array<{ url: string }> };
  let text = "";
  for (const e of manifest.entries) {
    const [, bucket, key] = /^s3:\/\/([^/]+)\/(.+)$/.exec(e.url) as RegExpExecArray;
    text += await getText(file, bucket, key);
  }
  return text;
}

let conditions: string;
let sorting: string;

beforeAll(async () => {
  emu = await startEmulator({ token: "master", taskDurationMs: 5 });
  expect((await api("POST", "/v2/storage/buckets", { json: { name: "reads", stage: "in" } })).status).toBe(201);
  // WhereFilterTest::prepareTable and OrderByTest::prepareTable.
  conditions = await createTable(
    "conditions",
    "column_string,column_string_number,column_double\nfirst,1,003.123\nsecond,4,3.123\nthird,4,0004.123\nfifth,5,4\nfifth,555111,5.1234\n",
  );
  sorting = await createTable("sorting", "column_string,column_string_number,column_double\nab,1,003.123\nbc,4,3.123\naa,4444,0004.123\nzx,5,4\nzx,555111,1.1234\n");
});
afterAll(() => emu.close());

describe("data preview", () => {
  it("filters: eq, a cast comparison, several filters joined by AND (WhereFilterTest)", async () => {
    const eq = await preview(conditions, sdkQuery({ where: [{ column: "column_string", operator: "eq", values: ["first"] }] }));
    expect(column(eq.text, "column_string")).toEqual(["first"]);
    const cast = await preview(conditions, sdkQuery({ where: [{ column: "column_string_number", operator: "ge", values: ["6"], dataType: "INTEGER" }] }));
    expect(column(cast.text, "column_string")).toEqual(["fifth"]);
    expect(column(cast.text, "column_string_number")).toEqual(["555111"]);
    const double = await preview(conditions, sdkQuery({ where: [{ column: "column_double", operator: "ge", values: ["4.123"], dataType: "DOUBLE" }] }));
    expect(column(double.text, "column_double")).toEqual(["0004.123", "5.1234"]);
    const both = await preview(
      conditions,
      sdkQuery({
        where: [
          { column: "column_double", operator: "ge", values: ["4.123"], dataType: "DOUBLE" },
          { column: "column_string_number", operator: "lt", values: ["5"], dataType: "INTEGER" },
        ],
      }),
    );
    expect(column(both.text, "column_string")).toEqual(["third"]);
  });

  it("filters: IN and NOT IN with several values, and comparisons of texts without a cast", async () => {
    const inList = await preview(conditions, sdkQuery({ where: [{ column: "column_string", operator: "eq", values: ["first", "third"] }] }));
    expect(column(inList.text, "column_string")).toEqual(["first", "third"]);
    const notIn = await preview(conditions, sdkQuery({ where: [{ column: "column_string", operator: "ne", values: ["fifth", "first"] }] }));
    expect(column(notIn.text, "column_string")).toEqual(["second", "third"]);
    // As texts "555111" < "6": without a dataType the column is compared as it is stored.
    const text = await preview(conditions, sdkQuery({ where: [{ column: "column_string_number", operator: "ge", values: ["6"] }] }));
    expect(column(text.text, "column_string")).toEqual([]);
    const lt = await preview(conditions, sdkQuery({ where: [{ column: "column_string", operator: "lt", values: ["g"] }] }));
    expect(column(lt.text, "column_string")).toEqual(["first", "fifth", "fifth"]);
  });

  it("sorts: by text, by a cast, by several columns (OrderByTest)", async () => {
    const simple = await preview(sorting, sdkQuery({ order: [{ column: "column_string", order: "ASC" }] }));
    expect(column(simple.text, "column_string")).toEqual(["aa", "ab", "bc", "zx", "zx"]);
    const cast = await preview(sorting, sdkQuery({ order: [{ column: "column_double", order: "ASC", dataType: "DOUBLE" }] }));
    expect(column(cast.text, "column_double")).toEqual(["1.1234", "003.123", "3.123", "4", "0004.123"]);
    const complex = await preview(
      sorting,
      sdkQuery({
        order: [
          { column: "column_string", order: "DESC" },
          { column: "column_string_number", order: "ASC", dataType: "INTEGER" },
        ],
      }),
    );
    expect(column(complex.text, "column_string_number")).toEqual(["5", "555111", "4", "1", "4444"]);
    // The order applies before the limit and the columns.
    const limited = await preview(sorting, sdkQuery({ order: [{ column: "column_string", order: "DESC" }], limit: 2, columns: ["column_string_number"] }));
    expect(limited.text).toBe('"column_string_number"\n"5"\n"555111"\n');
  });

  it("answers the real errors for a bad filter or order", async () => {
    const bad = async (query: string) => (await preview(sorting, query)).body;
    expect((await bad(sdkQuery({ order: [{ column: "non-existing", order: "ASC" }] }))).error).toBe("Can't filter by column non-existing, column does not exist");
    expect((await bad(sdkQuery({ order: [{ column: "column_string", order: "non-existing" }] }))).error).toBe(
      "Invalid sort order non-existing. Available orders are [DESC|ASC]",
    );
    expect((await bad(sdkQuery({ order: [{ column: "column_string", order: "DESC", dataType: "non-existing" }] }))).error).toBe(
      "Data type non-existing not recognized. Possible datatypes are [INTEGER|DOUBLE]",
    );
    expect((await bad(sdkQuery({ where: [{ column: "column_double", operator: "non-existing", values: ["123"] }] }))).error).toMatch(
      /Invalid where operator non-existing/,
    );
    expect((await bad("whereFilters=string")).error).toBe('Parameter "whereFilters" should be an array, but parameter contains:\n"string"');
    expect((await bad("orderBy[column]=column")).error).toBe('All items in param "orderBy" should be an arrays, but parameter contains:\n{"column":"column"}');
  });
});

describe("unload", () => {
  it("honours orderBy, whereFilters, columns (a comma-separated text) and limit of the SDK's body", async () => {
    const sorted = await unload(sorting, { orderBy: [{ column: "column_string_number", order: "DESC", dataType: "INTEGER" }], columns: "column_double,column_string" });
    expect(sorted).toBe('"1.1234","zx"\n"0004.123","aa"\n"4","zx"\n"3.123","bc"\n"003.123","ab"\n');
    const filtered = await unload(conditions, {
      whereFilters: [{ column: "column_string", operator: "eq", values: ["fifth", "second"] }],
      orderBy: [{ column: "column_string_number", order: "DESC", dataType: "INTEGER" }],
      limit: 2,
    });
    expect(filtered).toBe('"fifth","555111","5.1234"\n"fifth","5","4"\n');
  });

  it("refuses a bad order when the unload is requested", async () => {
    const r = await api("POST", `/v2/storage/tables/${sorting}/export-async`, { json: { orderBy: [{ column: "nope" }] } });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("Can't filter by column nope, column does not exist");
  });
});
