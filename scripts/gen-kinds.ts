#!/usr/bin/env node
import * as fs from "node:fs";
import * as path from "node:path";
import { KINDS, slugOfType, type KindTable } from "../provider/kinds/registry";
import type { ManifestSection } from "../provider/lifecycle/manifest-section";
import { declarationOrder } from "../provider/lifecycle/manifest-section";
import { command, runMain, type CliIo } from "../provider/cli/command";

// What is derived from the kinds table (provider/kinds/registry.ts) as files, because TypeScript
// or Node.js must see it statically:
//
// - the package index, provider/index.ts: every kind's class module, re-exported;
// - the manifest's sections, provider/manifest/sections.ts (each kind's section of keboola.yaml,
//   provider/kinds/<kind>/manifest.ts, in the order they are declared) and
//   provider/manifest/declare-sections.ts (each section's declaration, provider/kinds/<kind>/declare.ts,
//   in that order, each given what the sections before it declared);
// - at build, dist/kinds/<slug>.js: the provider object of each kind as earlier versions registered
//   it (provider/dynamic/shim.ts): their resources' state requires `keboola-pulumi/kinds/<slug>`,
//   and reading or deleting them loads it. package.json exports them as `keboola-pulumi/kinds/*`.
//
// `npm run generate` writes the sources; test/unit/registry.test.ts fails when they are stale, and
// registers a throwaway kind to find it in each.

const GENERATED = "// Generated from provider/kinds/registry.ts by scripts/gen-kinds.ts (`npm run generate`): do not edit.";

/** A row's folder under provider/ (its class module's): where its manifest.ts and declare.ts are. */
const folderOf = (resource: string) => path.posix.dirname(resource);

/** The package index: the manifest's API, then each kind's class module, in the table's order. */
export function packageIndexSource(table: KindTable = KINDS): string {
  const modules = [...new Set(Object.values(table).map((row) => row.resource))];
  return [
    GENERATED,
    "// Public API of keboola-pulumi: the resource classes a Pulumi program uses, and the manifest's.",
    ...modules.map((m) => `export * from "./${m}";`),
    'export { deployManifest, declareManifest, type DeployedManifest, type DeployOptions } from "./manifest/deploy";',
    'export { loadManifest, parseManifest, type ManifestProblem } from "./manifest/parse";',
    'export { exportProject, type ExportOptions, type ExportResult } from "./manifest/export";',
    'export type { Manifest, ManifestInput } from "./manifest/schema";',
    "",
  ].join("\n");
}

/** A section of the table, with what names its modules' exports. */
interface SectionOf {
  name: string;
  folder: string;
  /** `sinksSection`, exported by <folder>/manifest.ts. */
  section: string;
  /** `declareSinks`, exported by <folder>/declare.ts. */
  declare: string;
}

function sectionsOf(table: KindTable): SectionOf[] {
  return Object.values(table).flatMap((row) => {
    if (!("section" in row.manifest)) return [];
    const name = row.manifest.section;
    return [{ name, folder: folderOf(row.resource), section: `${name}Section`, declare: `declare${name[0].toUpperCase()}${name.slice(1)}` }];
  });
}

/** The sections in the order they are declared (each after what it references, else in the table's order). */
async function orderedSections(table: KindTable, root: string): Promise<SectionOf[]> {
  const sections = sectionsOf(table);
  const loaded = await Promise.all(
    sections.map(async (s): Promise<ManifestSection> => {
      const mod: Record<string, ManifestSection> = await import(/* @vite-ignore */ path.join(root, s.folder, "manifest"));
      const section = mod[s.section];
      if (!section) throw new Error(`${s.folder}/manifest.ts exports no ${s.section}`);
      return section;
    }),
  );
  const order = declarationOrder(loaded);
  return order.map((name) => sections.find((s) => s.name === name)!);
}

/** provider/manifest/sections.ts. */
export async function sectionsSource(table: KindTable = KINDS, root = PROVIDER): Promise<string> {
  const sections = await orderedSections(table, root);
  return [
    GENERATED,
    "// The manifest's sections (each kind's own: provider/kinds/<kind>/manifest.ts), in the order",
    "// they are declared: what schema.ts, parse.ts and export's docs read of keboola.yaml.",
    'import { sectionSchema } from "../lifecycle/manifest-section";',
    ...sections.map((s) => `import { ${s.section} } from "../${s.folder}/manifest";`),
    "",
    `export const SECTIONS = [${sections.map((s) => s.section).join(", ")}] as const;`,
    "",
    "/** The manifest's sections as its schema's shape. */",
    "export const sectionsShape = {",
    ...sections.map((s) => `  ${s.name}: sectionSchema(${s.section}),`),
    "};",
    "",
  ].join("\n");
}

/** provider/manifest/declare-sections.ts. */
export async function declareSectionsSource(table: KindTable = KINDS, root = PROVIDER): Promise<string> {
  const sections = await orderedSections(table, root);
  const declared = (i: number) => (i === 0 ? "{}" : `{ ${sections.slice(0, i).map((_, j) => `...d${j}`).join(", ")} }`);
  return [
    GENERATED,
    "// Each section's entries declared as resources (provider/kinds/<kind>/declare.ts), in the order",
    "// of sections.ts, each given what the sections before it declared.",
    'import type { DeployBase } from "../program/manifest-context";',
    'import type { Manifest } from "./schema";',
    ...sections.map((s) => `import { ${s.declare} } from "../${s.folder}/declare";`),
    "",
    '/** Every entry of the manifest as a resource, by section (and `sourceSettings`, `sinkSettings`). */',
    "export function declareSections(m: Manifest, base: DeployBase) {",
    ...sections.map((s, i) => `  const d${i} = ${s.declare}(m.${s.name} ?? {}, { ...base, optsOf: (key, part) => base.optsOf("${s.name}", key, part), manifest: m, declared: ${declared(i)} });`),
    `  return ${declared(sections.length)};`,
    "}",
    "",
  ].join("\n");
}

/** The sources written from the table, by path relative to the repository. */
export async function generatedSources(table: KindTable = KINDS, root = PROVIDER): Promise<Record<string, string>> {
  return {
    "provider/index.ts": packageIndexSource(table),
    "provider/manifest/sections.ts": await sectionsSource(table, root),
    "provider/manifest/declare-sections.ts": await declareSectionsSource(table, root),
  };
}

/** The modules state of earlier versions requires: dist/kinds/<slug>.js. */
export function kindModules(table: KindTable = KINDS): Record<string, string> {
  return Object.fromEntries(
    Object.entries(table).map(([kind, row]) => [
      `${slugOfType(row.type)}.js`,
      `"use strict";\n// Generated from provider/kinds/registry.ts by scripts/gen-kinds.ts: the provider object of every ${row.type} an earlier version registered.\nmodule.exports = require("../provider/dynamic/shim").providerFor(${JSON.stringify(kind)});\n`,
    ]),
  );
}

/** provider/ of the sources (run from dist/scripts, or from the sources under vitest). */
const PROVIDER = path.resolve(__dirname, "..", "provider");
/** The repository (run from dist/scripts). */
const REPO = path.resolve(__dirname, "..", "..");

async function run(values: { sources: boolean; check: boolean }, io: CliIo): Promise<number> {
  if (!values.sources) {
    const dir = path.resolve(__dirname, "..", "kinds");
    fs.mkdirSync(dir, { recursive: true });
    for (const [file, text] of Object.entries(kindModules())) fs.writeFileSync(path.join(dir, file), text);
    return 0;
  }
  let stale = 0;
  for (const [file, text] of Object.entries(await generatedSources())) {
    const at = path.join(REPO, file);
    if (values.check) {
      if (!fs.existsSync(at) || fs.readFileSync(at, "utf8") !== text) {
        io.error(`${file} is out of date: run \`npm run generate\`\n`);
        stale++;
      }
    } else if (!fs.existsSync(at) || fs.readFileSync(at, "utf8") !== text) {
      fs.writeFileSync(at, text);
      io.write(`wrote ${file}\n`);
    }
  }
  return stale ? 1 : 0;
}

export const genKindsCommand = command({
  name: "gen-kinds",
  summary: "write what is derived from the kinds table: the legacy kind modules under dist/kinds (the build), or with --sources the package index and the manifest's sections",
  usage: "node dist/scripts/gen-kinds.js [--sources [--check]]   (npm run build runs it; npm run generate runs it with --sources)",
  options: {
    sources: { type: "boolean", help: "write provider/index.ts, provider/manifest/sections.ts and declare-sections.ts" },
    check: { type: "boolean", help: "with --sources: write nothing; exit 1 when one is out of date" },
  },
  exitCodes: "exit code: 0 written (or up to date), 1 out of date with --check, or an error (wrong arguments too)",
  run: ({ values }, io) => run(values, io),
});

if (require.main === module) runMain(genKindsCommand);
