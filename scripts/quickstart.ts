#!/usr/bin/env node
import * as fs from "node:fs";
import * as path from "node:path";
import { randomBytes } from "node:crypto";
import { startEmulator, type Emulator } from "../emulator/server";
import { REPO_ROOT, describeResult, makePulumiWorkspace, type RunResult } from "./lib/pulumi-workspace";

// The main job: deploy examples/quickstart with the real Pulumi CLI (local file backend) against
// the bundled Keboola emulator, send a few events to the new source, and print the rows that
// landed in the tables. With KBC_HOST and KBC_TOKEN set it deploys to that stack instead.

const SAMPLE_EVENTS = [
  { user: { id: "u-1" }, action: "signup" },
  { user: { id: "u-2" }, action: "login" },
  { user: { id: "u-1" } },
];

function step(text: string): void {
  process.stdout.write(`\n==> ${text}\n`);
}

function mustSucceed(what: string, res: RunResult): RunResult {
  if (res.code !== 0) throw new Error(`${what} failed:\n${describeResult(res)}`);
  return res;
}

async function main(): Promise<void> {
  const keep = process.argv.includes("--keep");
  const realHost = process.env.KBC_HOST;
  const realToken = process.env.KBC_TOKEN;
  let emulator: Emulator | undefined;
  let host: string;
  let token: string;
  if (realHost && realToken) {
    host = realHost;
    token = realToken;
    step(`Using the Keboola stack at ${host}`);
  } else {
    token = randomBytes(16).toString("hex");
    emulator = await startEmulator({ token, taskDurationMs: 100 });
    host = emulator.url;
    step(`Started the Keboola emulator at ${host}`);
  }

  const ws = await makePulumiWorkspace({ project: "keboola-quickstart", stack: "dev", prefix: "keboola-quickstart-" });
  try {
    const example = path.join(REPO_ROOT, "examples", "quickstart");
    ws.writeProgram(
      { "index.ts": fs.readFileSync(path.join(example, "index.ts"), "utf8"), "tsconfig.json": fs.readFileSync(path.join(example, "tsconfig.json"), "utf8") },
      { linkProjectPackage: true },
    );
    mustSucceed("pulumi stack init", await ws.initStack());
    mustSucceed("pulumi config set", await ws.setConfig("keboola:host", host));
    mustSucceed("pulumi config set", await ws.setConfig("keboola:token", token, { secret: true }));

    step("pulumi up (examples/quickstart)");
    const up = mustSucceed("pulumi up", await ws.up([], { timeoutMs: 300_000 }));
    process.stdout.write(up.stdout);

    const outputs = await ws.stackOutputs({ showSecrets: true });
    const url = String(outputs.ingestionUrl);
    const tables = outputs.tables as string[];

    step(`Posting ${SAMPLE_EVENTS.length} events to source "${String(outputs.sourceId)}"`);
    for (const event of SAMPLE_EVENTS) {
      const res = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(event) });
      process.stdout.write(`  POST ${JSON.stringify(event)} -> ${res.status}\n`);
      if (!res.ok) throw new Error(`ingestion answered ${res.status}: ${await res.text()}`);
    }

    if (emulator) {
      for (const tableId of tables) {
        step(`Rows in ${tableId}`);
        const res = await fetch(`${host}/v2/storage/tables/${tableId}/data-preview?format=rfc`, { headers: { "X-StorageApi-Token": token } });
        process.stdout.write(`${(await res.text()).trimEnd()}\n`);
      }
    } else {
      step("The rows reach the tables when the import trigger fires (see targetImportTrigger in the example).");
    }

    if (!keep) {
      step("pulumi destroy");
      mustSucceed("pulumi destroy", await ws.destroy([], { timeoutMs: 300_000 }));
      process.stdout.write("Destroyed the quickstart stack.\n");
    } else {
      process.stdout.write(`\nKept the stack: program ${ws.programDir}, state ${ws.stateDir}\n`);
    }
  } finally {
    if (!keep) await ws.cleanup();
    await emulator?.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`quickstart: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
