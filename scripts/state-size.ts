#!/usr/bin/env node
import * as fs from "node:fs";
import * as path from "node:path";
import { randomBytes } from "node:crypto";
import { startEmulator } from "../emulator/server";
import { makeRootProject } from "./lib/root-project";
import { REPO_ROOT } from "./lib/pulumi-workspace";
import { deployYamlExample } from "./lib/yaml-example";
import { formatStateBytes, stateBytes, type StateResource } from "./lib/state-bytes";

// The state's bytes per resource of the quickstart manifest deployed through the repository's root
// Pulumi project (the README's main path), or of a state export given as a file:
//
//   node dist/scripts/state-size.js [--manifest examples/quickstart/keboola.yaml] [--dump FILE]
//   node dist/scripts/state-size.js --plugin [--dump FILE]   (examples/yaml through the provider plugin)
//   node dist/scripts/state-size.js --state exported.json

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

async function main(): Promise<void> {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const file = arg("state");
  const text = file
    ? fs.readFileSync(file, "utf8")
    : process.argv.includes("--plugin")
      ? (await deployYamlExample()).exported
      : await quickstartState(path.resolve(REPO_ROOT, arg("manifest") ?? "examples/quickstart/keboola.yaml"));
  if (arg("dump")) fs.writeFileSync(arg("dump")!, text);
  const state = JSON.parse(text) as { deployment?: { resources?: StateResource[] } };
  const resources = state.deployment?.resources ?? [];
  const report = stateBytes(resources);
  console.log(formatStateBytes(report, JSON.stringify(state).length, report.all.resources));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
