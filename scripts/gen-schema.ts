#!/usr/bin/env node
import * as fs from "node:fs";
import * as path from "node:path";
import { CATALOG, catalogOf } from "../provider/catalog";
import { manifestJsonSchema } from "../provider/manifest/schema";
import { packageSchema, type PackageSpec } from "../provider/plugin/package-schema";
import { isKindLookup, LOOKUPS } from "../provider/lookups/lookups";
import { KINDS, type KindTable } from "../provider/kinds/registry";
import { command, runMain, type CliIo } from "../provider/cli/command";

// schema.json: the Pulumi package schema of the kinds (`pulumi schema check schema.json` passes),
// and keboola.schema.json, the JSON Schema of the manifest (keboola.yaml) for the YAML language
// server, both generated from the zod schemas (their single source of truth).
// `node dist/scripts/gen-schema.js --check` fails when either is stale (genSchemaCommand below).

/** The manifest's JSON Schema, next to schema.json. */
export const MANIFEST_SCHEMA_FILE = "keboola.schema.json";

/** The lookups as the package schema takes them (a kind's lookup by its kind's class name). */
const lookups = () => LOOKUPS.map((l) => (isKindLookup(l) ? { name: l.name, description: l.description, args: l.args, kind: KINDS[l.kind].type } : l));

/** schema.json: the Pulumi package schema of every kind (provider/plugin/package-schema.ts). */
export function buildSchema(version: string): PackageSpec {
  return packageSchema(CATALOG, version, lookups());
}

/** The package schema of a table's kinds (the registry test extends the table with a kind). */
export async function packageSchemaOf(table: KindTable, version: string): Promise<PackageSpec> {
  return packageSchema(await catalogOf(table), version, lookups());
}

/** Writes both files, or with `check` answers 1 when either differs from what would be written. */
function generate(check: boolean, io: CliIo): number {
  const root = path.resolve(__dirname, "..", "..");
  const version = (JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string }).version;
  const files: Array<[string, unknown]> = [
    ["schema.json", buildSchema(version)],
    [MANIFEST_SCHEMA_FILE, manifestJsonSchema()],
  ];
  for (const [name, schema] of files) {
    const text = `${JSON.stringify(schema, null, 2)}\n`;
    const file = path.join(root, name);
    if (check) {
      if (!fs.existsSync(file) || fs.readFileSync(file, "utf8") !== text) {
        io.error(`${name} is out of date: run \`npm run schema\`\n`);
        return 1;
      }
    } else {
      fs.writeFileSync(file, text);
    }
  }
  return 0;
}

export const genSchemaCommand = command({
  name: "gen-schema",
  summary: "write schema.json and keboola.schema.json from the zod schemas",
  usage: "node dist/scripts/gen-schema.js [--check]   (npm run schema builds, then runs it)",
  options: { check: { type: "boolean", help: "write nothing; exit 1 when either file is out of date" } },
  exitCodes: "exit code: 0 written (or up to date), 1 out of date with --check, or an error (wrong arguments too)",
  run: ({ values }, io) => generate(values.check, io),
});

if (require.main === module) runMain(genSchemaCommand);
