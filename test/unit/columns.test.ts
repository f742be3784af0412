import { describe, expect, it } from "vitest";
import { canonicalColumn, columnsSchema, mappingMismatch } from "../../provider/validation/columns";

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
    expect(canonicalColumn({ type: "path", name: "a", path: "x", rawString: false })).toEqual({ type: "path", name: "a", path: "x" });
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
});
