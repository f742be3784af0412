#!/usr/bin/env node
import * as fs from "node:fs";
import * as path from "node:path";
import { randomBytes } from "node:crypto";
import { startEmulator } from "../emulator/server";
import { makeRootProject } from "./lib/root-project";
import { REPO_ROOT } from "./lib/pulumi-workspace";
import { deployYamlExample } from "./lib/yaml-example";
import { formatStateBytes, stateBytes, stateExportSchema } from "./lib/state-bytes";
import { parseJson } from "../keboola/json";
import { command, runMain } from "../provider/cli/command";

// The state's bytes per resource of the quickstart manifest deployed through the repository's root
// Pulumi project (the README's main path), of examples/yaml through the provider plugin, or of a
// state export given as a file (the command lines: stateSizeCommand below, or --help).

async function quickstartState(manifest: string): Promise<string> {
  const token = randomBytes(16).toString("hex");
  const emu = await startEmulator({ token, taskDurationMs: 10 });
  const p = await makeRootProject({ prefix: "state-size", host: emu.url, token, manifest });
  try {
    await p.setConfig("usersApiToken", `demo-${randomBytes(8).toString("hex")}`, { secret: true });
    const up = await p.pulumi(["up", "--yes", "--skip-preview"]);
    if (up.code !== 0) throw new Error(`pulumi up failed:\n${up.stdout}\n${up.stderr}`);
    const exported = await p.pulumi(["stack", "export"]);
    if (exported.code !== 0) throw new Error(exported.stderr);
    return exported.stdout;
  } finally {
    await p.cleanup();
    await emu.close();
  }
}

export const stateSizeCommand = command({
  name: "state-size",
  summary: "the state's bytes per resource of a deployed example, or of a state export",
  usage: [
    "node dist/scripts/state-size.js [--manifest examples/quickstart/keboola.yaml] [--dump FILE]",
    "node dist/scripts/state-size.js --plugin [--dump FILE]   (examples/yaml through the provider plugin)",
    "node dist/scripts/state-size.js --state exported.json",
  ],
  options: {
    manifest: { type: "string", default: "examples/quickstart/keboola.yaml", value: "<file>", help: "the manifest deployed through the root project (relative to the repository)" },
    plugin: { type: "boolean", help: "deploy examples/yaml through the provider plugin instead" },
    state: { type: "string", value: "<file>", help: "measure this state export (`pulumi stack export`); nothing is deployed" },
    dump: { type: "string", value: "<file>", help: "also write the measured state export to <file>" },
  },
  async run({ values }) {
    const text = values.state
      ? fs.readFileSync(values.state, "utf8")
      : values.plugin
        ? (await deployYamlExample()).exported
        : await quickstartState(path.resolve(REPO_ROOT, values.manifest));
    if (values.dump) fs.writeFileSync(values.dump, text);
    const state = parseJson(text);
    const resources = stateExportSchema.parse(state).deployment?.resources ?? [];
    const report = stateBytes(resources);
    console.log(formatStateBytes(report, JSON.stringify(state).length, report.all.resources));
    return 0;
  },
});

if (require.main === module) runMain(stateSizeCommand);
