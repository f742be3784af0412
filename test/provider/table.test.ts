import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bucket, table } from "./hosted";
import { createVia, ownerUrn, startHarness, type Harness } from "./harness";
import type { Props } from "../../provider/resources/types";
import { OWNER_KEY } from "../../provider/resources/ownership";

// Table's rules across fields, its in-place changes of the primary key and columns, and read and
// update from a sparse state (provider/resources/table.ts); storage.test.ts covers data loads and
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
const reasons = async (news: Props) =>
  ((await table.check(h.ctx, {}, { __resourceName: "bad", __owner: ownerUrn("bad"), ...news })).failures ?? []).map((f) => [f.property, f.reason]);

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
    const stored = (id: string) => Object.values(h.emu.state.storage.tables).find((t) => t.id === id)!;
    const unmark = (id: string) => {
      const t = stored(id);
      t.metadata = (t.metadata ?? []).filter((m) => m.key !== OWNER_KEY);
    };
    const failuresOf = async (resource: string, news: Props) =>
      ((await table.check(h.ctx, {}, { __resourceName: resource, __owner: ownerUrn(resource), ...news })).failures ?? []).map((f) => f.reason);
    const foreign = (id: string) => `table "${id}" already exists (not created by keboola-pulumi): choose another name, or set adoptExisting: true to take it over (its rows are replaced when data is declared)`;

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
