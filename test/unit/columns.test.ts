import { describe, expect, it } from "vitest";
import { canonicalColumn, columnSchema, columnsSchema, mappingMismatch, primaryKeyMismatch, sharedTableMismatch } from "../../provider/validation/columns";

describe("columns", () => {
  it("accepts all seven column types", () => {
    const r = columnsSchema.safeParse([
      { type: "uuid", name: "id" },
      { type: "datetime", name: "at" },
      { type: "ip", name: "ip" },
      { type: "body", name: "body" },
      { type: "headers", name: "headers" },
      { type: "path", name: "user", path: "user.id", defaultValue: "anon", rawString: true },
      { type: "template", name: "tpl", template: { content: "Body('a')" } },
    ]);
    expect(r.success).toBe(true);
  });

  it("rejects duplicate names at the second column, naming the first", () => {
    const r = columnsSchema.safeParse([{ type: "uuid", name: "id" }, { type: "ip", name: "id" }]);
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]).toMatchObject({ path: [1, "name"], message: '"id" is already the name of columns[0]: column names must be unique' });
  });

  it("rejects more than 100 columns and an empty mapping", () => {
    const many = Array.from({ length: 101 }, (_, i) => ({ type: "uuid", name: `c${i}` }));
    expect(columnsSchema.safeParse(many).error!.issues[0].message).toContain("at most 100");
    expect(columnsSchema.safeParse([]).error!.issues[0].message).toBe("needs at least one column");
  });

  it("rejects an unknown type and a template too long", () => {
    expect(columnsSchema.safeParse([{ type: "json", name: "x" }]).success).toBe(false);
    const r = columnsSchema.safeParse([{ type: "template", name: "t", template: { content: "x".repeat(4097) } }]);
    expect(r.error!.issues[0]).toMatchObject({ path: [0, "template", "content"], message: "must be at most 4096 characters" });
  });

  it("canonicalizes what the service echoes back", () => {
    // toStrictEqual: what is left out is absent, not a key holding undefined (a deep-equal diff would see it).
    expect(canonicalColumn({ type: "path", name: "a", path: "x", rawString: false })).toStrictEqual({ type: "path", name: "a", path: "x" });
    expect(canonicalColumn({ type: "template", name: "t", rawString: false, template: { language: "jsonnet", content: "1" } })).toEqual({
      type: "template",
      name: "t",
      template: { language: "jsonnet", content: "1" },
    });
  });

  it("explains a mapping that does not match the table with both lists", () => {
    expect(mappingMismatch("in.c-a.b", ["id", "body"], ["id", "body"])).toBeUndefined();
    const msg = mappingMismatch("in.c-a.b", ["id", "body"], ["body", "id"])!;
    expect(msg).toContain("table columns:   [id, body]");
    expect(msg).toContain("mapping columns: [body, id]");
  });

  it("explains what each column type needs, with the fix", () => {
    const messages = (v: unknown) => columnSchema.safeParse(v).error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    expect(messages({ type: "json", name: "x" })).toEqual(['type: type must be one of "uuid", "datetime", "ip", "body", "headers", "path", "template"']);
    expect(messages({ type: "uuid", name: "" })).toEqual(["name: must not be empty"]);
    expect(messages({ type: "uuid", name: "n".repeat(65) })).toEqual(["name: must be at most 64 characters"]);
    expect(columnSchema.safeParse({ type: "uuid", name: "n".repeat(64) }).success).toBe(true);
    expect(messages({ type: "path", name: "p", path: "" })).toEqual(['path: must not be empty: a dotted path into the JSON body, e.g. "user.id"']);
    expect(messages({ type: "template", name: "t", template: { content: "" } })).toEqual(["template.content: must not be empty: write a jsonnet expression, e.g. Body('user.id')"]);
    expect(columnSchema.safeParse({ type: "template", name: "t", template: { content: "x".repeat(4096) } }).success).toBe(true);
  });

  it("keeps what matters in the canonical form: a default, rawString and primaryKey when set", () => {
    expect(canonicalColumn({ type: "path", name: "a", path: "x", defaultValue: "", rawString: true, primaryKey: true })).toEqual({
      type: "path",
      name: "a",
      path: "x",
      defaultValue: "",
      rawString: true,
      primaryKey: true,
    });
    expect(canonicalColumn({ type: "template", name: "t", rawString: true, template: { language: "jsonnet", content: "1" }, primaryKey: true })).toEqual({
      type: "template",
      name: "t",
      rawString: true,
      template: { language: "jsonnet", content: "1" },
      primaryKey: true,
    });
    expect(canonicalColumn({ type: "uuid", name: "id", primaryKey: true })).toEqual({ type: "uuid", name: "id", primaryKey: true });
    expect(canonicalColumn({ type: "uuid", name: "id", primaryKey: false })).toEqual({ type: "uuid", name: "id" });
    // The schema's output is the canonical form.
    expect(columnsSchema.parse([{ type: "path", name: "a", path: "x", rawString: false }])).toEqual([{ type: "path", name: "a", path: "x" }]);
  });

  it("says the whole of a mapping mismatch, with the fix", () => {
    expect(mappingMismatch("in.c-a.b", ["id"], ["body"])).toBe(
      'the mapping does not match the existing table "in.c-a.b".\n' +
        "  table columns:   [id]\n" +
        "  mapping columns: [body]\n" +
        "The table's columns must equal the mapping's column names, in order, or the sink fails (and imports stop). " +
        "Fix: make the mapping's columns match the table, point tableId at a new table (it is created), or change the table first.",
    );
  });

  it("sees a mapping of another length as not matching", () => {
    expect(mappingMismatch("in.c-a.b", ["id", "body"], ["id"])).toContain("mapping columns: [id]");
    expect(mappingMismatch("in.c-a.b", ["id"], ["id", "body"])).toContain("mapping columns: [id, body]");
  });

  it("explains a primary key that does not fit the table's, and how to fix it", () => {
    const cols = [{ name: "id", primaryKey: true }, { name: "at", primaryKey: true }, { name: "body" }];
    expect(primaryKeyMismatch("in.c-a.b", ["id", "at"], cols)).toBeUndefined();
    expect(primaryKeyMismatch("in.c-a.b", ["at", "id"], cols)).toBe(
      'the mapping\'s primary key [id, at] does not match the primary key [at, id] of the existing table "in.c-a.b"; ' +
        'the service would fail the sink. Fix: set primaryKey: true on exactly "at", "id", or point tableId at a new table (it is created with the mapping\'s primary key).',
    );
    expect(primaryKeyMismatch("in.c-a.b", [], cols)).toContain("Fix: remove primaryKey from the columns, or point tableId");
    expect(primaryKeyMismatch("in.c-a.b", ["id"], cols)).toContain("[id, at] does not match the primary key [id]");
    expect(primaryKeyMismatch("in.c-a.b", ["id", "at", "body"], cols)).toContain("does not match");
  });

  it("explains two sinks of one program that would create one table with different columns or keys", () => {
    const mine = [{ name: "id", primaryKey: true }, { name: "body" }];
    expect(sharedTableMismatch("in.c-a.b", { sink: "other", columns: [{ name: "id", primaryKey: true }, { name: "body" }] }, mine)).toBeUndefined();
    expect(sharedTableMismatch("in.c-a.b", { sink: "other", columns: [{ name: "id" }, { name: "body" }] }, mine)).toBe(
      'table "in.c-a.b" does not exist yet and Sink "other" of this program writes it too, with other columns; ' +
        "the sink created first creates the table with its own columns, and the other one then fails.\n" +
        '  columns of Sink "other": [id, body]\n' +
        "  columns of this sink: [id, body] (primary key [id])\n" +
        "Fix: give both sinks the same column names and primaryKey, in the same order, or point tableId at another table.",
    );
    expect(sharedTableMismatch("in.c-a.b", { sink: "other", columns: [{ name: "body" }, { name: "id", primaryKey: true }] }, mine)).toContain("[body, id] (primary key [id])");
    expect(sharedTableMismatch("in.c-a.b", { sink: "other", columns: [{ name: "id", primaryKey: true }] }, mine)).toContain('columns of Sink "other": [id] (primary key [id])');
    expect(sharedTableMismatch("in.c-a.b", { sink: "other", columns: [{ name: "id", primaryKey: true }, { name: "body", primaryKey: true }] }, mine)).toContain(
      'columns of Sink "other": [id, body] (primary key [id, body])',
    );
  });
});
