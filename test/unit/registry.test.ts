import { describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as path from "node:path";
import { KINDS, KIND_NAMES, loadKind, slugOf, type KindTable } from "../../provider/kinds/registry";
import { CATALOG } from "../../provider/catalog";
import * as index from "../../provider/index";
import { generatedSources, kindModules, packageIndexSource, sectionsSource, declareSectionsSource } from "../../scripts/gen-kinds";
import { packageSchemaOf } from "../../scripts/gen-schema";
import { renderDocs } from "../../scripts/gen-docs";
import { kindKeyOfToken, resourceTokens } from "../../provider/plugin/resources";
import { keboolaId, reviewOrder } from "../../provider/review/kinds";
import { readLive } from "../../provider/drift/live";
import { KeboolaClient } from "../../provider/api/client";
import { widgetRow } from "./fixtures/throwaway-kind/row";
import { store } from "./fixtures/throwaway-kind/kind";

// The kinds table (provider/kinds/registry.ts) is the one list of resource kinds: every other list
// is derived from it. A throwaway kind (test/unit/fixtures/throwaway-kind/: its folder, as a
// contributor writes one) registered with one row is found in each derived list; what is derived
// as files is what the table gives today.

const root = path.resolve(__dirname, "..", "..");
const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { exports: Record<string, string>; scripts: Record<string, string> };

/** The table with the throwaway kind added: one row. */
const withWidget: KindTable = { ...KINDS, widget: widgetRow };

describe("a kind added with its folder and one row", () => {
  it("is served by the plugin under its type token, and described in the package schema", async () => {
    expect(resourceTokens(withWidget)).toContain("keboola:index:Widget");
    expect(kindKeyOfToken("keboola:index:Widget", withWidget)).toBe("widget");
    expect(kindKeyOfToken("keboola:index:Widget")).toBeUndefined();
    const schema = await packageSchemaOf(withWidget, "0.0.0");
    expect(Object.keys(schema.resources)).toContain("keboola:index:Widget");
  });

  it("is exported by the package index", () => {
    expect(packageIndexSource(withWidget)).toContain('export * from "./../test/unit/fixtures/throwaway-kind/resource";');
    expect(packageIndexSource()).not.toContain("throwaway");
  });

  it("takes its place in the review, which reads its Keboola id as its row says", () => {
    expect(reviewOrder(withWidget).at(-1)).toBe("Widget");
    expect(keboolaId("Widget", { widgetId: "w-1" }, withWidget)).toBe("w-1");
    expect(keboolaId("Widget", { widgetId: "w-1" })).toBeUndefined();
  });

  it("is read by drift with its own read", async () => {
    store.set("w-seen", { name: "seen" });
    const resource = { urn: "urn:pulumi:s::p::pulumi-nodejs:dynamic/keboola:Widget::seen", name: "seen", kind: "widget", id: "w-seen", outputs: { name: "seen", widgetId: "w-seen" } };
    const client = new KeboolaClient({ host: "http://127.0.0.1:9", token: "t", taskTimeoutSeconds: 1 });
    const live = await readLive([resource], () => client, withWidget);
    expect(live.get(resource.urn)).toEqual({ state: "found", id: "w-seen", props: { name: "seen", widgetId: "w-seen" }, inputs: { name: "seen" } });
    expect((await readLive([resource], () => client)).get(resource.urn)).toMatchObject({ state: "error" });
  });

  it("has its section in keboola.yaml, declared by its own declaration", async () => {
    const sections = await sectionsSource(withWidget);
    expect(sections).toContain('import { widgetsSection } from "../../test/unit/fixtures/throwaway-kind/manifest";');
    expect(sections).toContain("  widgets: sectionSchema(widgetsSection),");
    expect(await declareSectionsSource(withWidget)).toMatch(/const d\d+ = declareWidgets\(m\.widgets \?\? \{\}, /);
  });

  it("has its reference page, with its import id, listed in the reference's index", async () => {
    const pages = await renderDocs(root, withWidget);
    expect(pages["docs/resources/widget.md"]).toContain("pulumi import keboola:index:Widget widget w-blue");
    expect(pages["docs/resources/README.md"]).toContain("| [Widget](widget.md) |");
    expect(Object.keys(await renderDocs(root))).not.toContain("docs/resources/widget.md");
  });

  it("gets the module that state of an earlier version would require", () => {
    expect(Object.keys(kindModules(withWidget))).toContain("widget.js");
  });
});

describe("the kinds table", () => {
  it("loads each kind's module, whose definition has the kind's type, in the table's order", async () => {
    expect(CATALOG.map((d) => d.type)).toEqual(KIND_NAMES.map((k) => KINDS[k].type));
    for (const kind of KIND_NAMES) expect((await loadKind(kind)).definition.type, kind).toBe(KINDS[kind].type);
  });

  it("is what the package index and the manifest's sections are generated from (run `npm run generate` when this fails)", async () => {
    for (const [file, text] of Object.entries(await generatedSources())) expect(fs.readFileSync(path.join(root, file), "utf8"), file).toBe(text);
    expect(pkg.scripts.generate).toContain("gen-kinds.js --sources");
  });

  it("derives the provider object module of each kind that earlier versions' state requires, exported as keboola-pulumi/kinds/<slug>", () => {
    // No provider object module is written by hand: the build writes them from the table.
    const modules = kindModules();
    expect(Object.keys(modules).sort()).toEqual(KIND_NAMES.map((k) => `${slugOf(k)}.js`).sort());
    for (const kind of KIND_NAMES) expect(modules[`${slugOf(kind)}.js`]).toContain(`providerFor(${JSON.stringify(kind)})`);
    expect(pkg.exports["./kinds/*"]).toBe("./dist/kinds/*.js");
    expect(pkg.scripts.build).toContain("gen-kinds");
  });

  it("builds modules whose whole export is the kind's provider object", () => {
    // The build's output (npm test builds first): what earlier versions' state requires as keboola-pulumi/kinds/<slug>.
    for (const kind of KIND_NAMES) {
      const mod: unknown = require(path.join(root, "dist", "kinds", `${slugOf(kind)}.js`));
      expect(mod, kind).toMatchObject({ create: expect.any(Function), delete: expect.any(Function) });
    }
  });

  it("has each kind's class exported by the package under its type", () => {
    const classes: Record<string, unknown> = { ...index };
    for (const kind of KIND_NAMES) expect(typeof classes[KINDS[kind].type], KINDS[kind].type).toBe("function");
  });
});
