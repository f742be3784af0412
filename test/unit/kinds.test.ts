import { describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as path from "node:path";
import { KINDS, KIND_NAMES, loadKind, slugOf } from "../../provider/kinds/registry";
import { CATALOG } from "../../provider/catalog";
import * as index from "../../provider/index";
import { kindModules } from "../../scripts/gen-kinds";

// The kinds table is the one list of resource kinds; what cannot be derived from it is held
// against it here.

const root = path.resolve(__dirname, "..", "..");
const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { exports: Record<string, string>; scripts: Record<string, string> };

describe("the kinds table", () => {
  it("names each kind's resource module, whose definition has the kind's type", () => {
    expect(CATALOG.map((d) => d.type)).toEqual(KIND_NAMES.map((k) => KINDS[k].type));
  });

  it("derives a provider object module per kind, exported by the package as keboola-pulumi/kinds/<file>", async () => {
    // Each row loads the module of its kind (its schema and lifecycle) under provider/kinds/;
    // no provider object module is written by hand: the build writes them from the table.
    for (const kind of KIND_NAMES) expect((await loadKind(kind)).definition.type, kind).toBe(KINDS[kind].type);
    const modules = kindModules();
    expect(Object.keys(modules).sort()).toEqual(KIND_NAMES.map((k) => `${slugOf(k)}.js`).sort());
    for (const kind of KIND_NAMES) expect(modules[`${slugOf(kind)}.js`]).toContain(`providerFor(${JSON.stringify(kind)})`);
    expect(pkg.exports["./kinds/*"]).toBe("./dist/kinds/*.js");
    expect(pkg.scripts.build).toContain("gen-kinds");
  });

  it("builds modules whose whole export is the kind's provider object", () => {
    // The build's output (npm test builds first): what Pulumi serializes as require("keboola-pulumi/kinds/<file>").
    for (const kind of KIND_NAMES) {
      const mod: unknown = require(path.join(root, "dist", "kinds", `${slugOf(kind)}.js`));
      expect(mod, kind).toMatchObject({ create: expect.any(Function), delete: expect.any(Function) });
    }
  });

  it("has each kind's class exported by the package under its type", () => {
    const classes = index as unknown as Record<string, unknown>;
    for (const kind of KIND_NAMES) expect(typeof classes[KINDS[kind].type], KINDS[kind].type).toBe("function");
  });
});
