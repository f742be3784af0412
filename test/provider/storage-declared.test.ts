import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sink } from "./hosted";
import { parseManifest } from "../../provider/manifest/parse";
import { startHarness, type Harness } from "./harness";

// A Sink writing a Table declared in the same program is checked against the declared columns and
// primary key at preview, before the table exists; and the example manifest parses as written.

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ taskDurationMs: 10 });
});
afterAll(async () => {
  await h?.close();
});

describe("a sink into a declared table", () => {
  const args = (columns: unknown[]) => ({
    __resourceName: "actions",
    sourceId: "events",
    name: "Actions",
    tableId: "in.c-app.actions",
    columns,
    __program: { declared: true, sourceType: "http", declaredTable: { resource: "actions-table", columns: ["id", "user"], primaryKey: ["id"] } },
  });

  it("fails at preview when the mapping does not match the declared columns, with zero writes", async () => {
    const before = h.writes().length;
    const checked = await sink.check(h.ctx, {}, args([{ type: "uuid", name: "id", primaryKey: true }, { type: "body", name: "payload" }]));
    expect(JSON.stringify(checked.failures)).toMatch(/declared by keboola:Table \\"actions-table\\" in this program.*table columns: +\[id, user\].*mapping columns: \[id, payload\]/);
    expect(h.writes().length).toBe(before);
  });

  it("fails when the primary key differs, and passes when both match", async () => {
    const pk = await sink.check(h.ctx, {}, args([{ type: "uuid", name: "id" }, { type: "body", name: "user" }]));
    expect(JSON.stringify(pk.failures)).toMatch(/primary key \[\] does not match the primary key \[id\]/);
    const ok = await sink.check(h.ctx, {}, args([{ type: "uuid", name: "id", primaryKey: true }, { type: "body", name: "user" }]));
    expect(ok.failures).toEqual([]);
  });
});

describe("manifest buckets and tables", () => {
  it("accepts the issue's example as written", () => {
    const m = parseManifest(
      `buckets:
  ref: { stage: in, name: ref, description: Reference data }
tables:
  countries:
    bucket: ref
    name: countries
    columns: [code, name]
    primaryKey: [code]
    data: countries.csv
`,
      "keboola.yaml",
    );
    expect(m.buckets?.ref).toMatchObject({ stage: "in", name: "ref", description: "Reference data" });
    expect(m.tables?.countries).toMatchObject({ bucket: "ref", name: "countries", columns: ["code", "name"], primaryKey: ["code"], data: "countries.csv" });
  });

  it("refuses a dangling bucket, and a primary key that is not a column, at their paths", () => {
    const text = (bucket: string, pk: string) => `buckets:\n  ref: { name: ref }\ntables:\n  countries: { bucket: ${bucket}, name: countries, columns: [code], primaryKey: [${pk}] }\n`;
    expect(() => parseManifest(text("reff", "code"))).toThrow(/tables\.countries\.bucket: "reff" is not a key under buckets/);
    expect(() => parseManifest(text("ref", "id"))).toThrow(/tables\.countries\.primaryKey(\[0\]|\.0): "id" is not one of the columns/);
  });
});
