import { describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as path from "node:path";
import Ajv from "ajv";
import { parse } from "yaml";
import { manifestJsonSchema } from "../../provider/manifest/schema";
import { parseManifest } from "../../provider/manifest/parse";
import { MANIFEST_SCHEMA_FILE } from "../../scripts/gen-schema";

// keboola.schema.json: what an editor with the YAML language server checks the manifest
// against. It must be current, accept every example manifest and refuse bad ones.

const ROOT = path.resolve(__dirname, "..", "..");
const committed = JSON.parse(fs.readFileSync(path.join(ROOT, MANIFEST_SCHEMA_FILE), "utf8")) as Record<string, unknown>;
const validate = new Ajv({ allErrors: true, strict: false }).compile(committed);

function examples(): string[] {
  const dir = path.join(ROOT, "examples");
  return fs
    .readdirSync(dir, { recursive: true, encoding: "utf8" })
    // Manifests only: not Pulumi's stack files, nor the CI pipelines of examples/ci.
    .filter((f) => /\.ya?ml$/.test(f) && !/Pulumi\./.test(path.basename(f)) && !f.includes("node_modules") && !f.split(path.sep).includes("ci"))
    .map((f) => path.join(dir, f));
}

const quickstart = parse(fs.readFileSync(path.join(ROOT, "examples", "quickstart", "keboola.yaml"), "utf8")) as Record<string, Record<string, Record<string, unknown>>>;

describe("keboola.schema.json", () => {
  it("is generated from the current zod schemas (run `npm run schema` when this fails)", () => {
    expect(committed).toEqual(JSON.parse(JSON.stringify(manifestJsonSchema())));
  });

  it("accepts every example manifest", () => {
    const files = examples();
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const ok = validate(parse(fs.readFileSync(file, "utf8")));
      expect(ok ? [] : validate.errors, file).toEqual([]);
    }
  });

  it("accepts the manifest shown in the README, which also parses", () => {
    const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
    const blocks = [...readme.matchAll(/```yaml\n(# yaml-language-server[\s\S]*?)```/g)].map((m) => m[1]);
    expect(blocks).toHaveLength(1);
    expect(validate(parse(blocks[0])) ? [] : validate.errors).toEqual([]);
    expect(Object.keys(parseManifest(blocks[0]))).toEqual(["sources", "sinks", "variables", "configurations", "jobs"]);
  });

  it("accepts a row bound to variables by key", () => {
    const m = structuredClone(quickstart);
    (m.configurations.users.rows as unknown as Array<Record<string, unknown>>)[0].variables = "users-vars";
    expect(validate(m) ? [] : validate.errors).toEqual([]);
  });

  it("accepts { fn::readFile: <path> } wherever an entry takes a string, the code of a transformation too", () => {
    const m = structuredClone(quickstart);
    m.sources.events.description = { "fn::readFile": "docs/events.md" };
    (m.sinks.actions.columns as Array<Record<string, unknown>>)[3].template = { content: { "fn::readFile": "templates/summary.jsonnet" } };
    m.configurations.orders = {
      componentId: "keboola.snowflake-transformation",
      name: { "fn::readFile": "transformations/orders/name.txt" },
      configuration: { parameters: { blocks: [{ name: "Load", codes: [{ name: "Load orders", script: { "fn::readFile": "transformations/orders/001-load.sql" } }] }] } },
    };
    expect(validate(m) ? [] : validate.errors).toEqual([]);
  });

  const bad: Array<[string, (m: typeof quickstart) => void, RegExp]> = [
    ["fn::readFile where a number goes", (m) => ((m.sources.events.settings as { targetImportTrigger: Record<string, unknown> }).targetImportTrigger.count = { "fn::readFile": "count.txt" }), /targetImportTrigger\/count.*must be number|must be integer/],
    ["fn::readFile with another key", (m) => (m.sinks.raw.name = { "fn::readFile": "name.txt", other: 1 }), /must NOT have additional properties/],
    ["fn::readFile of something other than a path", (m) => (m.sinks.raw.name = { "fn::readFile": 42 }), /fn::readFile.*must be string/],
    ["an unknown top-level section", (m) => (m.tablez = {}), /must NOT have additional properties/],
    ["an unknown key in a sink", (m) => (m.sinks.raw.tabelId = "x"), /must NOT have additional properties/],
    ["a number where a string goes", (m) => (m.sinks.raw.tableId = 42 as unknown as Record<string, unknown>), /must be string/],
    ["a missing required field", (m) => delete m.sinks.raw.name, /must have required property 'name'/],
    ["a column type that does not exist", (m) => ((m.sinks.raw.columns as unknown as Array<{ type: string }>)[0].type = "uuidv4"), /must match a schema in anyOf|must be equal to one of the allowed values|must match exactly one schema/],
    ["a setting out of range", (m) => ((m.sources.events.settings as { targetImportTrigger: { count: number } }).targetImportTrigger.count = 0), /must be >= 1/],
    ["a row's variables given as a binding object instead of a key", (m) => ((m.configurations.users.rows as unknown as Array<Record<string, unknown>>)[0].variables = { configId: "1" }), /rows\/0\/variables.*must be string/],
    ["a key that is not a valid resource name", (m) => (m.sources["-bad key"] = m.sources.events), /property name must be valid|must match pattern/],
  ];
  for (const [what, edit, message] of bad) {
    it(`refuses ${what}`, () => {
      const m = structuredClone(quickstart);
      edit(m);
      expect(validate(m)).toBe(false);
      expect(JSON.stringify(validate.errors)).toMatch(message);
    });
  }
});
