import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bucket, table } from "./hosted";
import type { Props } from "../../provider/lifecycle/types";
import { createVia, ownerUrn, startHarness, updateVia, type Harness } from "./harness";

// Bucket and Table against the emulator: create with owner markers, data loaded from a CSV through
// prepare + object store + tables-async, reloaded only when the content changes, columns added in
// place, typed tables through tables-definition, idempotent deletes, drift on read.

let h: Harness;
let dir: string;
beforeAll(async () => {
  h = await startHarness({ taskDurationMs: 10 });
  dir = mkdtempSync(join(tmpdir(), "kp-storage-"));
});
afterAll(async () => {
  await h?.close();
});

const rowsOf = async (tableId: string) => (await h.ctx.client().storage.previewRows("default", tableId)).rows;
const writes = () => h.writes().filter((w) => !w.includes("/_emulator"));

describe("Bucket and Table", () => {
  let bucketOuts: Props;
  it("creates a bucket with the service's id and marks it in metadata", async () => {
    const b = await createVia(bucket, h.ctx, "ref", { stage: "in", name: "ref", description: "Reference data" });
    expect(b.id).toBe("in.c-ref");
    expect(b.outs).toMatchObject({ bucketId: "in.c-ref", description: "Reference data" });
    const remote = await h.ctx.client().storage.findBucket("default", "in.c-ref");
    expect(remote?.metadata?.some((m) => m.key === "keboola-pulumi.owner" && m.value === ownerUrn("ref"))).toBe(true);
    bucketOuts = b.outs;
    // Unchanged: no diff.
    const again = await updateVia(bucket, h.ctx, "ref", b.id, b.outs, b.inputs, { stage: "in", name: "ref", description: "Reference data" });
    expect(again.diff.changes).toBe(false);
  });

  it("refuses at preview a display name the service refuses (its own message), writing nothing", async () => {
    const before = writes().length;
    const bad = await bucket.check(h.ctx, {}, { __resourceName: "app", stage: "in", name: "app", displayName: "App events" });
    expect(JSON.stringify(bad.failures)).toMatch(/displayName.*the service refuses it: Only alphanumeric characters dash and underscores are allowed/);
    expect(writes().length).toBe(before);
  });

  let tableOuts: Props;
  let tableInputs: Props;
  const csv = () => join(dir, "countries.csv");
  it("creates an untyped table from a CSV: rows land, its content summary is in state", async () => {
    writeFileSync(csv(), "code,name\nCZ,Czechia\nDE,Germany\n");
    const t = await createVia(table, h.ctx, "countries", { bucketId: "in.c-ref", name: "countries", columns: ["code", "name"], primaryKey: ["code"], data: csv() });
    expect(t.id).toBe("in.c-ref.countries");
    expect(t.outs.dataContent).toMatch(/^32 B, sha256 [0-9a-f]{64}$/);
    expect(await rowsOf(t.id)).toEqual([
      ["CZ", "Czechia"],
      ["DE", "Germany"],
    ]);
    tableOuts = t.outs;
    tableInputs = t.inputs;
  });

  it("a second check of the same content is no change and uploads nothing", async () => {
    const before = writes().length;
    const again = await updateVia(table, h.ctx, "countries", "in.c-ref.countries", tableOuts, tableInputs, { bucketId: "in.c-ref", name: "countries", columns: ["code", "name"], primaryKey: ["code"], data: csv() });
    expect(again.diff.changes).toBe(false);
    expect(writes().length).toBe(before);
  });

  it("editing one line reloads the data in full (import-async), and the summary changes", async () => {
    writeFileSync(csv(), "code,name\nCZ,Czech Republic\nDE,Germany\n");
    const u = await updateVia(table, h.ctx, "countries", "in.c-ref.countries", tableOuts, tableInputs, { bucketId: "in.c-ref", name: "countries", columns: ["code", "name"], primaryKey: ["code"], data: csv() });
    expect(u.diff.changes).toBe(true);
    expect(u.outs.dataContent).not.toBe(tableOuts.dataContent);
    expect(writes().some((w) => w.endsWith("/import-async"))).toBe(true);
    expect(await rowsOf("in.c-ref.countries")).toContainEqual(["CZ", "Czech Republic"]);
    tableOuts = u.outs;
    tableInputs = u.inputs;
  });

  it("adds a column in place", async () => {
    writeFileSync(csv(), "code,name,region\nCZ,Czechia,EU\nDE,Germany,EU\n");
    const u = await updateVia(table, h.ctx, "countries", "in.c-ref.countries", tableOuts, tableInputs, { bucketId: "in.c-ref", name: "countries", columns: ["code", "name", "region"], primaryKey: ["code"], data: csv() });
    expect(u.outs.columns).toEqual(["code", "name", "region"]);
    expect(await rowsOf("in.c-ref.countries")).toContainEqual(["CZ", "Czechia", "EU"]);
    tableOuts = u.outs;
    tableInputs = u.inputs;
  });

  it("refuses at preview: a column inserted before existing ones, a removed column of undeclared data, a header that differs, a broken CSV", async () => {
    const base = { __resourceName: "countries", __owner: ownerUrn("countries"), bucketId: "in.c-ref", name: "countries", primaryKey: ["code"] };
    const inserted = await table.check(h.ctx, tableOuts, { ...base, columns: ["code", "x", "name", "region"] });
    expect(JSON.stringify(inserted.failures)).toMatch(/adds new columns at the end/);
    const dropped = await table.check(h.ctx, tableOuts, { ...base, columns: ["code", "name"] });
    expect(JSON.stringify(dropped.failures)).toMatch(/removes column\(s\) \\"region\\".*allowDropColumns: true/);
    writeFileSync(join(dir, "bad-header.csv"), "code,title\nCZ,x\n");
    const header = await table.check(h.ctx, {}, { ...base, name: "other", columns: ["code", "name"], data: join(dir, "bad-header.csv") });
    expect(JSON.stringify(header.failures)).toMatch(/line 1: the header \[code, title\] differs from the declared columns \[code, name\]/);
    writeFileSync(join(dir, "broken.csv"), 'code,name\nCZ,"Czechia\nDE,Germany\n');
    const broken = await table.check(h.ctx, {}, { ...base, name: "other", columns: ["code", "name"], data: join(dir, "broken.csv") });
    expect(JSON.stringify(broken.failures)).toMatch(/line 2: a quoted field is never closed/);
    const fields = join(dir, "fields.csv");
    writeFileSync(fields, "code,name\nCZ,Czechia\nDE\n");
    const short = await table.check(h.ctx, {}, { ...base, name: "other", columns: ["code", "name"], data: fields });
    expect(JSON.stringify(short.failures)).toMatch(/line 3: 1 fields, but the header has 2/);
    const missing = await table.check(h.ctx, {}, { ...base, name: "other", columns: ["code", "name"], data: join(dir, "nope.csv") });
    expect(JSON.stringify(missing.failures)).toMatch(/no such file/);
    const pk = await table.check(h.ctx, {}, { ...base, name: "other", columns: ["code", "code"], primaryKey: ["id"] });
    expect(JSON.stringify(pk.failures)).toMatch(/column names must be unique/);
    expect(JSON.stringify(pk.failures)).toMatch(/\\"id\\" is not one of the columns/);
  });

  it("creates a typed table through tables-definition and loads inline rows with import-async", async () => {
    const t = await createVia(table, h.ctx, "rates", {
      bucketId: "in.c-ref",
      name: "rates",
      columns: ["code", "rate"],
      primaryKey: ["code"],
      definition: { code: { type: "VARCHAR", length: "3" }, rate: { type: "NUMBER", length: "10,4" } },
      data: { rows: [["EUR", "1.0"], ["USD", 1.08]] },
    });
    const remote = await h.ctx.client().storage.findTableDetail("default", t.id);
    expect(remote?.isTyped).toBe(true);
    expect(writes().some((w) => w.endsWith("/tables-definition"))).toBe(true);
    expect(await rowsOf(t.id)).toContainEqual(["USD", "1.08"]);
    // Read back: no drift.
    const read = await table.read(h.ctx, t.id, t.outs);
    const diff = await table.diff(h.ctx, t.id, read.props as Props, t.inputs);
    expect(diff.changes).toBe(false);

    // A column's new type replaces the table: refused at preview unless its rows are declared or given up.
    const before = writes().length;
    const retyped = { __resourceName: "rates", __owner: ownerUrn("rates"), bucketId: "in.c-ref", name: "rates", columns: ["code", "rate"], primaryKey: ["code"], definition: { code: { type: "VARCHAR", length: "3" }, rate: { type: "VARCHAR" } } };
    const refused = await table.check(h.ctx, t.outs, retyped);
    expect(JSON.stringify(refused.failures)).toMatch(
      /definition.*changes the type of column \\"rate\\" \(NUMBER\(10,4\) → VARCHAR\).*rows, which this table does not declare, lost\. Set allowRecreate: true to give them up, declare data/,
    );
    const optedIn = await table.check(h.ctx, t.outs, { ...retyped, allowRecreate: true });
    expect(optedIn.failures).toEqual([]);
    expect((await table.diff(h.ctx, t.id, t.outs, optedIn.inputs as Props)).replaces).toEqual(["definition"]);
    const withData = await table.check(h.ctx, t.outs, { ...retyped, data: { rows: [["EUR", "1.0"]] } });
    expect(withData.failures).toEqual([]);
    expect(writes().length).toBe(before);
  });

  it("refuses at preview a table whose bucket neither exists nor is declared in the program, writing nothing", async () => {
    const before = writes().length;
    const args = { __resourceName: "orphan", bucketId: "in.c-nowhere", name: "orphan", columns: ["a"] };
    const missing = await table.check(h.ctx, {}, args);
    expect(JSON.stringify(missing.failures)).toMatch(/bucketId.*bucket \\"in\.c-nowhere\\" does not exist in branch default, and no Bucket of this program declares it: declare it/);
    // Declared by a Bucket of the same program (created before the table): fine.
    const declared = await table.check(h.ctx, {}, { ...args, __program: { declared: true } });
    expect(declared.failures).toEqual([]);
    expect(writes().length).toBe(before);
  });

  it("refuses a type the backend refuses, at preview", async () => {
    const bad = await table.check(h.ctx, {}, { __resourceName: "t", bucketId: "in.c-ref", name: "t", columns: ["a"], definition: { a: { type: "VARCHAR", length: "0" } } });
    expect(JSON.stringify(bad.failures)).toMatch(/definition\.a\.length.*'0' is not valid length for VARCHAR/);
  });

  it("notices a column added by hand and a table dropped by hand on read", async () => {
    const storage = h.ctx.client().storage;
    await storage.waitJob(await storage.addColumn("default", "in.c-ref.countries", { name: "extra" }), "test");
    const read = await table.read(h.ctx, "in.c-ref.countries", tableOuts);
    expect((read.props as Props).columns).toEqual(["code", "name", "region", "extra"]);
    await storage.deleteTable("default", "in.c-ref.countries", "test");
    const gone = await table.read(h.ctx, "in.c-ref.countries", tableOuts);
    expect(gone.id).toBe("");
    // Deleting what is gone is fine.
    await table.delete(h.ctx, "in.c-ref.countries", tableOuts);
  });

  it("refuses to delete a bucket holding a table this stack does not manage, unless forceDelete", async () => {
    const storage = h.ctx.client().storage;
    const file = await storage.prepareFile("default", { name: "x.csv", federationToken: true });
    expect(file.id).toBeGreaterThan(0);
    // A table of somebody else's: created by hand (typed, so no upload is needed).
    await storage.waitJob(await storage.createTableDefinition("default", "in.c-ref", { name: "theirs", primaryKeysNames: [], columns: [{ name: "a", definition: { type: "VARCHAR" } }] }), "test");
    const err = await bucket.delete(h.ctx, "in.c-ref", { ...bucketOuts, __owner: ownerUrn("ref") }).catch((e: unknown) => e);
    expect(err instanceof Error ? err.message : JSON.stringify(err)).toMatch(/still holds .*table\(s\) this stack does not manage: .*in\.c-ref\.theirs.*forceDelete: true/);
    expect(await storage.findBucket("default", "in.c-ref")).toBeDefined();
    await bucket.delete(h.ctx, "in.c-ref", { ...bucketOuts, forceDelete: true, __owner: ownerUrn("ref") });
    expect(await storage.findBucket("default", "in.c-ref")).toBeUndefined();
    // Idempotent.
    await bucket.delete(h.ctx, "in.c-ref", { ...bucketOuts, forceDelete: true, __owner: ownerUrn("ref") });
  });
});

// The Storage rules the README promises, each asserted through the handlers' own code paths so
// that a one-line bug in one of them fails here (issue 29: each of these survived the suite once).
describe("Storage guards", () => {
  const bucketId = "in.c-guard";
  const files = () => writes().filter((w) => w.endsWith("/files/prepare"));
  const imports = () => writes().filter((w) => w.endsWith("/import-async"));
  const data = (name: string, text: string) => {
    const p = join(dir, `${name}.csv`);
    writeFileSync(p, text);
    return p;
  };
  let guardBucket: Props;
  beforeAll(async () => {
    guardBucket = (await createVia(bucket, h.ctx, "guard", { stage: "in", name: "guard" })).outs;
  });

  it("reloads a table's declared data only when its content changed, not on another change of the table", async () => {
    const path = data("reload", "code,name\nCZ,Czechia\nDE,Germany\n");
    const args = { bucketId, name: "reload", columns: ["code", "name"], data: path };
    const t = await createVia(table, h.ctx, "reload", args);
    // The primary key changes in place; the file is the same: no upload, no load.
    h.emu.clearRequests();
    const keyed = await updateVia(table, h.ctx, "reload", t.id, t.outs, t.inputs, { ...args, primaryKey: ["code"] });
    expect(keyed.diff.changes).toBe(true);
    expect(writes().some((w) => w.endsWith("/primary-key"))).toBe(true);
    expect(files()).toEqual([]);
    expect(imports()).toEqual([]);
    expect(keyed.outs.dataContent).toBe(t.outs.dataContent);
    // The same bytes written again (a new mtime) are still the same content.
    writeFileSync(path, "code,name\nCZ,Czechia\nDE,Germany\n");
    h.emu.clearRequests();
    const touched = await updateVia(table, h.ctx, "reload", t.id, keyed.outs, keyed.inputs, { ...args, primaryKey: ["code"] });
    expect(touched.diff.changes).toBe(false);
    expect(writes()).toEqual([]);
    // A changed line: loaded once, in full.
    writeFileSync(path, "code,name\nCZ,Czech Republic\nDE,Germany\n");
    h.emu.clearRequests();
    const edited = await updateVia(table, h.ctx, "reload", t.id, keyed.outs, keyed.inputs, { ...args, primaryKey: ["code"] });
    expect(edited.diff.changes).toBe(true);
    expect(files()).toHaveLength(1);
    expect(imports()).toHaveLength(1);
    expect(edited.outs.dataContent).not.toBe(keyed.outs.dataContent);
    expect(await rowsOf(t.id)).toEqual([
      ["CZ", "Czech Republic"],
      ["DE", "Germany"],
    ]);
  });

  it("lets only allowDropColumns (or declared data) lift the refusal to remove a column at preview, and only allowRecreate a type change", async () => {
    const t = await createVia(table, h.ctx, "drops", { bucketId, name: "drops", columns: ["code", "name"], definition: { code: { type: "VARCHAR" }, name: { type: "VARCHAR" } } });
    const base = { __resourceName: "drops", __owner: ownerUrn("drops"), bucketId, name: "drops" };
    const dropped = { ...base, columns: ["code"], definition: { code: { type: "VARCHAR" } } };
    const refusal = /removes column\(s\) \\"name\\" and the data in them.*set allowDropColumns: true/;
    h.emu.clearRequests();
    expect(JSON.stringify((await table.check(h.ctx, t.inputs, dropped)).failures)).toMatch(refusal);
    // The other flags a Table has do not give the column's data up.
    for (const flag of ["allowRecreate", "adoptExisting"] as const) {
      const other = await table.check(h.ctx, t.inputs, { ...dropped, [flag]: true });
      expect(JSON.stringify(other.failures), flag).toMatch(refusal);
    }
    expect((await table.check(h.ctx, t.inputs, { ...dropped, allowDropColumns: true })).failures).toEqual([]);
    expect((await table.check(h.ctx, t.inputs, { ...dropped, data: { rows: [["CZ"]] } })).failures).toEqual([]);
    // And the other way round: a type change is lifted by allowRecreate, not by allowDropColumns.
    const retyped = { ...base, columns: ["code", "name"], definition: { code: { type: "VARCHAR" }, name: { type: "NUMBER" } } };
    expect(JSON.stringify((await table.check(h.ctx, t.inputs, { ...retyped, allowDropColumns: true })).failures)).toMatch(/changes the type of column \\"name\\".*Set allowRecreate: true/);
    expect((await table.check(h.ctx, t.inputs, { ...retyped, allowRecreate: true })).failures).toEqual([]);
    expect(writes()).toEqual([]);
  });

  it("refuses at preview a CSV whose header lacks the last declared columns, or has more", async () => {
    const base = { __resourceName: "short", __owner: ownerUrn("short"), bucketId, name: "short", columns: ["code", "name", "region"] };
    const lacking = await table.check(h.ctx, {}, { ...base, data: data("short", "code,name\nCZ,Czechia\n") });
    expect(JSON.stringify(lacking.failures)).toMatch(/line 1: the header \[code, name\] differs from the declared columns \[code, name, region\]: make them equal, in order/);
    const onlyFirst = await table.check(h.ctx, {}, { ...base, data: data("first", "code\nCZ\n") });
    expect(JSON.stringify(onlyFirst.failures)).toMatch(/the header \[code\] differs from the declared columns \[code, name, region\]/);
    const more = await table.check(h.ctx, {}, { ...base, data: data("more", "code,name,region,extra\nCZ,Czechia,EU,x\n") });
    expect(JSON.stringify(more.failures)).toMatch(/the header \[code, name, region, extra\] differs from the declared columns \[code, name, region\]/);
    const equal = await table.check(h.ctx, {}, { ...base, data: data("equal", "code,name,region\nCZ,Czechia,EU\n") });
    expect(equal.failures).toEqual([]);
  });

  it("never drops a table of another stack with its bucket unless forceDelete, naming only the tables that are not this stack's", async () => {
    const storage = h.ctx.client().storage;
    const args = (name: string) => ({ bucketId, name, columns: ["a"], definition: { a: { type: "VARCHAR" } } });
    await createVia(table, h.ctx, "mine", args("mine"));
    // The same project's resource in another stack (production, say): its marker names that stack.
    await createVia(table, h.ctx, "theirs", { ...args("theirs"), __owner: ownerUrn("theirs", "production") });
    const recorded: Props = { ...guardBucket, __owner: ownerUrn("guard") };
    h.emu.clearRequests();
    const err = await bucket.delete(h.ctx, bucketId, recorded).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    const message = (err as Error).message;
    expect(message).toMatch(/still holds 1 table\(s\) this stack does not manage: in\.c-guard\.theirs\. Nothing was deleted.*forceDelete: true/);
    expect(message).not.toMatch(/in\.c-guard\.mine/);
    expect(writes()).toEqual([]);
    expect(await storage.findTableDetail("default", `${bucketId}.theirs`)).toBeDefined();
    // Renaming the bucket would delete it too: refused at preview for the same table.
    const renamed = await bucket.check(h.ctx, { ...guardBucket }, { __resourceName: "guard", __owner: ownerUrn("guard"), stage: "in", name: "guard2" });
    expect(JSON.stringify(renamed.failures)).toMatch(/changing name replaces the bucket.*holds 1 table\(s\) this stack does not manage \(in\.c-guard\.theirs\)/);
    expect(writes()).toEqual([]);
    // Given up explicitly: dropped with the bucket (a state recorded without a branch, as older
    // versions wrote it, is the default branch's).
    const { branchId: _recordedBranch, ...withoutBranch } = recorded;
    await bucket.delete(h.ctx, bucketId, { ...withoutBranch, forceDelete: true });
    expect(await storage.findBucket("default", bucketId)).toBeUndefined();
  });
});
