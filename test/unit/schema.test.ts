import { describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as path from "node:path";
import { buildSchema } from "../../scripts/gen-schema";
import { CATALOG } from "../../provider/catalog";

describe("schema.json", () => {
  it("is generated from the current zod schemas (run `npm run schema` when this fails)", () => {
    const root = path.resolve(__dirname, "..", "..");
    const version = (JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string }).version;
    const committed = JSON.parse(fs.readFileSync(path.join(root, "schema.json"), "utf8")) as unknown;
    expect(committed).toEqual(JSON.parse(JSON.stringify(buildSchema(version))));
  });

  it("lists every public resource class", async () => {
    const pub = await import("../../provider/index");
    const classes = Object.keys(pub).filter((k) => /^[A-Z]/.test(k) && typeof (pub as Record<string, unknown>)[k] === "function");
    expect(CATALOG.map((c) => c.type).sort()).toEqual(classes.sort());
  });
});
