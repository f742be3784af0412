#!/usr/bin/env node
import * as fs from "node:fs";
import * as path from "node:path";
import { z } from "zod";
import { CATALOG } from "../provider/catalog";
import { manifestJsonSchema } from "../provider/manifest/schema";

// schema.json: the resources' inputs and outputs as JSON Schema, generated from the zod schemas
// (their single source of truth), and keboola.schema.json, the JSON Schema of the manifest
// (keboola.yaml) for the YAML language server. `node dist/scripts/gen-schema.js --check` fails when stale.

/** The manifest's JSON Schema, next to schema.json. */
export const MANIFEST_SCHEMA_FILE = "keboola.schema.json";

export function buildSchema(version: string): Record<string, unknown> {
  const resources: Record<string, unknown> = {};
  for (const r of CATALOG) {
    const inputs = z.toJSONSchema(r.inputs, { io: "input", unrepresentable: "any" }) as { properties?: object; required?: string[] };
    const outputs = z.toJSONSchema(r.outputs, { io: "output", unrepresentable: "any" }) as { properties?: object };
    resources[`keboola:index:${r.type}`] = {
      description: r.description,
      token: `pulumi-nodejs:dynamic/keboola:${r.type}`,
      inputProperties: inputs.properties ?? {},
      requiredInputs: inputs.required ?? [],
      properties: { ...(inputs.properties ?? {}), ...(outputs.properties ?? {}) },
      secretOutputs: r.secretOutputs,
    };
  }
  return {
    name: "keboola",
    displayName: "Keboola",
    description: "Keboola Stream sources, sinks and settings, component configurations, variables and job runs.",
    version,
    config: {
      variables: {
        host: { type: "string", description: "Storage API host, e.g. https://connection.keboola.com (or KBC_HOST)." },
        token: { type: "string", secret: true, description: "Storage API token (or KBC_TOKEN)." },
        streamUrl: { type: "string", description: "Stream API URL override (or KBC_STREAM_URL)." },
        queueUrl: { type: "string", description: "Queue API URL override (or KBC_QUEUE_URL)." },
        taskTimeout: { type: "number", description: "Deadline of one task or job in seconds (or KBC_TASK_TIMEOUT); default 600." },
      },
    },
    resources,
  };
}

function main(): void {
  const root = path.resolve(__dirname, "..", "..");
  const version = (JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string }).version;
  const files: Array<[string, unknown]> = [
    ["schema.json", buildSchema(version)],
    [MANIFEST_SCHEMA_FILE, manifestJsonSchema()],
  ];
  for (const [name, schema] of files) {
    const text = `${JSON.stringify(schema, null, 2)}\n`;
    const file = path.join(root, name);
    if (process.argv.includes("--check")) {
      if (!fs.existsSync(file) || fs.readFileSync(file, "utf8") !== text) {
        process.stderr.write(`${name} is out of date: run \`npm run schema\`\n`);
        process.exit(1);
      }
    } else {
      fs.writeFileSync(file, text);
    }
  }
}

if (require.main === module) main();
