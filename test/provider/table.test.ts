import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bucket, table } from "./hosted";
import { createVia, ownerUrn, startHarness, type Harness } from "./harness";
import type { Props } from "../../provider/lifecycle/types";
import { CONTENT_KEY, METADATA_PROVIDER, OWNER_KEY } from "../../provider/lifecycle/ownership";

// Table's rules across fields, its in-place changes of the primary key and columns, and read and
// update from a sparse state (provider/lifecycle/kinds.ts); storage.test.ts covers data loads and
// the preview guards.

let h: Harness;
const bucketId = "in.c-tables";
beforeAll(async () => {
  h = await startHarness({ taskDurationMs: 5 });
  await createVia(bucket, h.ctx, "tables", { stage: "in", name: "tables" });
});
afterAll(async () => h?.close());
beforeEach(() => h.emu.clearRequests());

const writes = () => h.writes().filter((w) => !w.includes("/_emulator") && !w.endsWith("/metadata"));
const typed = (name: string, extra: Props = {}) => ({
  bucketId,
  name,
  columns: ["id", "name"],
  primaryKey: ["id"],
  definition: { id: { type: "INTEGER" }, name: { type: "VARCHAR" } },
  ...extra,
});
/** Check's failures as [property, reason], for `news` of `resource` whose old inputs are `olds`. */
const failures = async (olds: Props, resource: string, news: Props) =>
  ((await table.check(h.ctx, olds, { __resourceName: resource, __owner: ownerUrn(resource), ...news })).failures ?? []).map((f) => [f.property, f.reason]);
const reasons = (news: Props) => failures({}, "bad", news);
/** The table as the emulator keeps it. */
const stored = (id: string) => Object.values(h.emu.state.storage.tables).find((t) => t.id === id)!;

describe("Table in detail", () => {
  it("refuses a primary key naming a column twice, a definition that misses or adds a column, and a nullable key column", async () => {
    expect(await reasons(typed("bad", { primaryKey: ["id", "id"] }))).toEqual([["primaryKey", "names a column twice: list each once"]]);
    expect(await reasons(typed("bad", { definition: { id: { type: "INTEGER" }, extra: { type: "VARCHAR" } } }))).toEqual([
      ["definition", 'has no entry for column "name": a typed table defines every column'],
      ["definition.extra", '"extra" is not one of the columns: remove it or add the column'],
    ]);
    expect(await reasons(typed("bad", { definition: { id: { type: "INTEGER", nullable: true }, name: { type: "VARCHAR" } } }))).toEqual([
      ["definition.id.nullable", "a primary key column cannot be nullable (the backend refuses it): remove nullable"],
    ]);
    expect(h.writes()).toEqual([]);
  });

  it("changes the primary key in place: the old one removed first, the new one set; none left when none is declared", async () => {
    const made = await createVia(table, h.ctx, "keyed", typed("keyed"));
    const id = made.id;
    h.emu.clearRequests();
    const moved = await table.update(h.ctx, id, made.outs, { ...made.inputs, primaryKey: ["name"] });
    expect(writes()).toEqual([`DELETE /v2/storage/tables/${id}/primary-key`, `POST /v2/storage/tables/${id}/primary-key`]);
    expect((moved.outs as Props).primaryKey).toEqual(["name"]);
    h.emu.clearRequests();
    const none = await table.update(h.ctx, id, moved.outs as Props, { ...made.inputs, primaryKey: [] });
    expect(writes()).toEqual([`DELETE /v2/storage/tables/${id}/primary-key`]);
    expect((none.outs as Props).primaryKey).toEqual([]);
    // From none to one: nothing to remove first.
    h.emu.clearRequests();
    await table.update(h.ctx, id, none.outs as Props, { ...made.inputs, primaryKey: ["id"] });
    expect(writes()).toEqual([`POST /v2/storage/tables/${id}/primary-key`]);
  });

  it("removes a column in place when allowed", async () => {
    const made = await createVia(table, h.ctx, "narrowed", typed("narrowed", { columns: ["id", "name", "note"], definition: { id: { type: "INTEGER" }, name: { type: "VARCHAR" }, note: { type: "VARCHAR" } } }));
    h.emu.clearRequests();
    const narrowed = await table.update(h.ctx, made.id, made.outs, { ...made.inputs, columns: ["id", "name"], definition: { id: { type: "INTEGER" }, name: { type: "VARCHAR" } }, allowDropColumns: true });
    expect(writes()).toEqual([`DELETE /v2/storage/tables/${made.id}/columns/note`]);
    expect((narrowed.outs as Props).columns).toEqual(["id", "name"]);
  });

  it("reads a table from a sparse state with the defaults of what it lacks; an update of a table dropped by hand says to refresh", async () => {
    const made = await createVia(table, h.ctx, "sparse", typed("sparse"));
    const read = await table.read(h.ctx, made.id, { bucketId, columns: ["id", "name"], primaryKey: ["id"] });
    expect(read.props).toMatchObject({ branchId: "default", name: "sparse", allowDropColumns: false, allowRecreate: false, adoptExisting: false, tableId: made.id });
    const bare = await table.read(h.ctx, made.id, {});
    // What the table itself says (bucket, name, columns, key) comes from the service, whatever the state lacks.
    expect(bare.props).toMatchObject({ bucketId, name: "sparse", columns: ["id", "name"], primaryKey: ["id"] });
    await h.ctx.client().storage.deleteTable("default", made.id, "test");
    await expect(table.update(h.ctx, made.id, made.outs, made.inputs)).rejects.toThrow(`Table "${made.id}" (resource "sparse") no longer exists: run \`pulumi refresh\` so Pulumi recreates it`);
    // Deleting it again is done already.
    await table.delete(h.ctx, made.id, made.outs);
  });

  it("counts an unmarked table as this resource's only when its own create made it: a job loading a file with its tag, or a typed table still empty with the declared columns", async () => {
    // As a crash between the create job and the marker leaves it: the table, without the marker.
    const unmark = (id: string) => {
      const t = stored(id);
      t.metadata = (t.metadata ?? []).filter((m) => m.key !== OWNER_KEY);
    };
    const failuresOf = (resource: string, news: Props) => failures({}, resource, news);
    const foreign = (id: string) => ["name", `table "${id}" already exists (not created by keboola-pulumi): choose another name, or set adoptExisting: true to take it over (its rows are replaced when data is declared)`];

    const untyped = { bucketId, name: "plain_lost", columns: ["id", "name"] };
    const plain = await createVia(table, h.ctx, "plain_lost", untyped);
    unmark(plain.id);
    expect(await failuresOf("plain_lost", untyped)).toEqual([]);
    // Another resource's create job loaded no file with its tag.
    expect(await failuresOf("someone_else", untyped)).toEqual([foreign(plain.id)]);
    // A job of this resource that created another table does not make this one ours.
    const other = await createVia(table, h.ctx, "maker", { ...untyped, name: "made_by_other" });
    unmark(other.id);
    expect(await failuresOf("plain_lost", { ...untyped, name: "made_by_other" })).toEqual([foreign(other.id)]);

    const typedLost = typed("typed_lost");
    const made = await createVia(table, h.ctx, "typed_lost", typedLost);
    unmark(made.id);
    expect(await failuresOf("typed_lost", typedLost)).toEqual([]);
    // Other columns than declared: not what this resource's create makes.
    expect(await failuresOf("typed_lost", { ...typedLost, columns: ["id", "name", "x"], definition: { ...typedLost.definition, x: { type: "VARCHAR" } } })).toEqual([foreign(made.id)]);
    // Rows in it: somebody loaded them, so it is not a table our create left empty.
    stored(made.id).rows.push(["1", "a"]);
    expect(await failuresOf("typed_lost", typedLost)).toEqual([foreign(made.id)]);
  });
});

describe("Table: what a change would lose, tables of others, drift of the content, failed jobs", () => {
  const undeclared = (inputs: Props): Props => {
    const { data: _data, dataContent: _content, ...rest } = inputs;
    return rest;
  };

  it("refuses a new name or bucket for a table holding rows it does not declare; allowRecreate, declared data or an empty table lift it", async () => {
    const loaded = await createVia(table, h.ctx, "moving", { bucketId, name: "moving", columns: ["id", "name"], data: { rows: [["1", "a"], ["2", "b"]] } });
    const olds = undeclared(loaded.inputs);
    h.emu.clearRequests();
    expect(await failures(olds, "moving", { ...olds, name: "moved" })).toEqual([
      [
        "name",
        'changing name ("moving" → "moved") replaces the table: "in.c-tables.moving" is dropped with its 2 row(s), which this table does not declare. Set allowRecreate: true to give them up, declare data so it is loaded into the new table, or keep the name',
      ],
    ]);
    expect(await failures(olds, "moving", { ...olds, name: "moved", allowRecreate: true })).toEqual([]);
    expect(await failures(olds, "moving", { ...olds, name: "moved", data: { rows: [["1", "a"]] } })).toEqual([]);
    expect(h.writes()).toEqual([]);
    // No rows to lose: a typed table just created is empty.
    const empty = await createVia(table, h.ctx, "empty_moving", typed("empty_moving"));
    expect(await failures(empty.inputs, "empty_moving", { ...empty.inputs, name: "empty_moved" })).toEqual([]);
  });

  it("refuses a table that another stack's resource created, naming it, and a retype the backend cannot make in place", async () => {
    const held = await createVia(table, h.ctx, "holder", typed("held"));
    expect(await failures({}, "intruder", typed("held"))).toEqual([
      ["name", `table "${held.id}" already exists and belongs to stack "test" of project "harness", resource keboola:Resource "holder": choose another name, or set adoptExisting: true to take it over`],
    ]);
    expect(await failures({}, "intruder", typed("held", { adoptExisting: true }))).toEqual([]);

    const lossy = "which the backend cannot alter in place: the table would be replaced and its rows, which this table does not declare, lost. Set allowRecreate: true to give them up, declare data so it is loaded into the new table, or keep the type";
    const sized = typed("held", { definition: { id: { type: "INTEGER" }, name: { type: "VARCHAR", length: "10" } } });
    const olds = held.inputs;
    expect(await failures(olds, "holder", { ...undeclared(olds), definition: undefined })).toEqual([["definition", `makes the table untyped, ${lossy}`]]);
    expect(await failures({ ...undeclared(olds), definition: undefined }, "holder", olds)).toEqual([["definition", `makes the table typed, ${lossy}`]]);
    expect(await failures(sized, "holder", { ...sized, definition: { id: { type: "INTEGER" }, name: { type: "VARCHAR", length: "20" } } })).toEqual([
      ["definition", `changes the type of column "name" (VARCHAR(10) → VARCHAR(20)), ${lossy}`],
    ]);
    expect(await failures(olds, "holder", { ...olds, allowRecreate: true, definition: { id: { type: "INTEGER" }, name: { type: "BIGINT" } } })).toEqual([]);

    // The diff replaces the table for a retype, and only then.
    const diff = (news: Props) => table.diff(h.ctx, held.id, held.outs, { ...held.inputs, ...news });
    expect((await diff({ definition: { id: { type: "INTEGER" }, name: { type: "BIGINT" } } })).replaces).toEqual(["definition"]);
    expect((await diff({ definition: undefined })).replaces).toEqual(["definition"]);
    expect(await diff({})).toMatchObject({ changes: false, replaces: [] });
  });

  it("takes over a table another stack created with adoptExisting: the marker becomes this resource's, the same content is not loaded again, other content is", async () => {
    const rows = { rows: [["1", "a"]] };
    const first = await createVia(table, h.ctx, "first_owner", { bucketId, name: "adopted", columns: ["id", "name"], data: rows });
    const marker = () => stored(first.id).metadata?.find((m) => m.key === OWNER_KEY)?.value;
    expect(marker()).toBe(ownerUrn("first_owner"));
    h.emu.clearRequests();
    const same = await createVia(table, h.ctx, "second_owner", { bucketId, name: "adopted", columns: ["id", "name"], data: rows, adoptExisting: true });
    expect(h.writes().filter((w) => w.endsWith("/import-async") || w.includes("/files"))).toEqual([]);
    expect(same.outs.dataContent).toBe(first.outs.dataContent);
    expect(marker()).toBe(ownerUrn("second_owner"));
    h.emu.clearRequests();
    const other = await createVia(table, h.ctx, "third_owner", { bucketId, name: "adopted", columns: ["id", "name"], data: { rows: [["2", "b"]] }, adoptExisting: true });
    expect(h.writes().filter((w) => w.endsWith("/import-async"))).toEqual([`POST /v2/storage/tables/${first.id}/import-async`]);
    expect(other.outs.dataContent).not.toBe(first.outs.dataContent);
    expect(marker()).toBe(ownerUrn("third_owner"));
  });

  it("reads content loaded by someone else as a change of dataContent, and its own as it recorded it", async () => {
    const made = await createVia(table, h.ctx, "drifting", { bucketId, name: "drifting", columns: ["id", "name"], data: { rows: [["1", "a"]] } });
    expect((await table.read(h.ctx, made.id, made.outs)).props?.dataContent).toBe(made.outs.dataContent);
    await h.ctx.client().storage.setTableMetadata("default", made.id, METADATA_PROVIDER, [{ key: CONTENT_KEY, value: "0123abcd" }]);
    expect((await table.read(h.ctx, made.id, made.outs)).props?.dataContent).toBe("changed outside Pulumi (sha256 0123abcd)");
  });

  it("says which step of a create or an update failed, with the job's message and the fix; a table created before its load failed stays tracked", async () => {
    const failing = async (operation: string, step: () => Promise<unknown>) => {
      h.emu.setFaults({ failTasks: [operation] });
      try {
        return await step().then(
          () => undefined,
          (err: unknown) => err as Error & { id?: string },
        );
      } finally {
        h.emu.setFaults({});
      }
    };
    const jobError = /failed: Application error\. Please contact our support support@keboola\.com with following exception id \([^)]+\) and we will look into it\./;
    const create = await failing("tableDefinitionCreate", () => createVia(table, h.ctx, "never", typed("never")));
    expect(create?.message).toMatch(/^Table "in\.c-tables\.never" \(resource "never"\): creating the table failed: Application error/);
    expect(create?.message).toMatch(/\. Fix the table's declaration \(or its data\) and run `pulumi up` again\.$/);

    const load = await failing("tableImport", () => createVia(table, h.ctx, "unloaded", typed("unloaded", { data: { rows: [["1", "a"]] } })));
    expect(load?.message).toMatch(/^Table "in\.c-tables\.unloaded" \(resource "unloaded"\): loading the data \(import-async of file \d+\) failed: Application error/);
    expect(load?.message).toMatch(/the table keeps its previous rows\.$/);
    // Created, without a recorded content: Pulumi keeps the table and the next `up` loads it.
    expect(load?.id).toBe("in.c-tables.unloaded");

    const made = await createVia(table, h.ctx, "grown", typed("grown"));
    const grown = { ...made.inputs, columns: ["id", "name", "note"], definition: { id: { type: "INTEGER" }, name: { type: "VARCHAR" }, note: { type: "VARCHAR" } } };
    const add = await failing("tableColumnAdd", () => table.update(h.ctx, made.id, made.outs, grown));
    expect(add?.message).toMatch(jobError);
    expect(add?.message).toMatch(/^Table "in\.c-tables\.grown" \(resource "grown"\): adding column "note" failed: .*Fix the declaration and run `pulumi up` again\.$/);
    const unkeyed = await failing("tablePrimaryKeyDelete", () => table.update(h.ctx, made.id, made.outs, { ...made.inputs, primaryKey: [] }));
    expect(unkeyed?.message).toMatch(/: removing the primary key failed: /);
    const keyed = await failing("tablePrimaryKeyAdd", () => table.update(h.ctx, made.id, made.outs, { ...made.inputs, primaryKey: ["id", "name"] }));
    expect(keyed?.message).toMatch(/: setting the primary key \[id, name\] failed: /);
    const narrowed = await failing("tableColumnDelete", () => table.update(h.ctx, made.id, made.outs, { ...made.inputs, columns: ["id"], definition: { id: { type: "INTEGER" } }, allowDropColumns: true }));
    expect(narrowed?.message).toMatch(/: removing column "name" failed: /);
  });

  it("adds a typed column as declared: nullable unless declared otherwise, with its length and default", async () => {
    const made = await createVia(table, h.ctx, "widened", typed("widened"));
    const definition = { id: { type: "INTEGER" }, name: { type: "VARCHAR" }, note: { type: "VARCHAR", length: "12", default: "none" } };
    await table.update(h.ctx, made.id, made.outs, { ...made.inputs, columns: ["id", "name", "note"], definition });
    const detail = await h.ctx.client().storage.findTableDetail("default", made.id);
    const note = detail?.definition?.columns.find((c) => c.name === "note");
    expect(note?.definition).toMatchObject({ type: "VARCHAR", length: "12", nullable: true, default: "none" });
  });
});
