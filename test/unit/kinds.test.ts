import { describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as path from "node:path";
import { KINDS, KIND_NAMES } from "../../provider/kinds/table";
import { CATALOG } from "../../provider/catalog";
import * as index from "../../provider/index";

// The kinds table is the one list of resource kinds; what cannot be derived from it is held
// against it here.

const root = path.resolve(__dirname, "..", "..");
const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { exports: Record<string, string> };

describe("the kinds table", () => {
  it("names each kind's resource module, whose definition has the kind's type", () => {
    expect(CATALOG.map((d) => d.type)).toEqual(KIND_NAMES.map((k) => KINDS[k].type));
  });

  it("has a provider object per kind, exported by the package as keboola-pulumi/kinds/<file>", () => {
    const files = fs.readdirSync(path.join(root, "provider", "kinds")).filter((f) => f !== "table.ts");
    expect(files.sort()).toEqual(KIND_NAMES.map((k) => `${KINDS[k].file}.ts`).sort());
    for (const kind of KIND_NAMES) {
      const file = KINDS[kind].file;
      expect(fs.readFileSync(path.join(root, "provider", "kinds", `${file}.ts`), "utf8")).toContain(`providerFor(${JSON.stringify(kind)})`);
    }
    const exported = Object.entries(pkg.exports).filter(([k]) => k.startsWith("./kinds/"));
    expect(Object.fromEntries(exported)).toEqual(Object.fromEntries(KIND_NAMES.map((k) => [`./kinds/${KINDS[k].file}`, `./dist/provider/kinds/${KINDS[k].file}.js`])));
  });

  it("has each kind's class exported by the package under its type", () => {
    const classes = index as unknown as Record<string, unknown>;
    for (const kind of KIND_NAMES) expect(typeof classes[KINDS[kind].type], KINDS[kind].type).toBe("function");
  });
});
