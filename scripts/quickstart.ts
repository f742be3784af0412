#!/usr/bin/env node
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { parseJson } from "../keboola/json";
import { startEmulator, type Emulator } from "../emulator/server";
import { describeResult, ensurePulumiBinDir, runProcess, type RunResult } from "./lib/pulumi-workspace";
import { makeRootProject, type RootProject } from "./lib/root-project";
import { command, runMain } from "../provider/cli/command";
import { KEBOOLA_PULUMI } from "./lib/bin";

// The main job: deploy examples/quickstart/keboola.yaml through the repository's root Pulumi
// project (the real Pulumi CLI, local file backend) to the bundled Keboola emulator, send a few
// events to the new source and print the rows of the reference table loaded from its CSV and
// the rows that landed in the sinks' tables; then export the
// project back into a manifest with `keboola-pulumi export`, deploy that export as a second
// stack (it takes everything over) and show that it has no changes. With KBC_HOST and
// KBC_TOKEN set it deploys to that stack instead (and skips the export, which would take over
// the whole project).
//
// The Pulumi CLI: the user's own `pulumi` when it is recent enough (see scripts/ensure-pulumi.sh;
// KEBOOLA_PULUMI_USE_PATH=0 asks for the pinned build instead), otherwise the build of the version
// pinned in package.json, compiled from source on first use with its progress shown here.

const MANIFEST = "examples/quickstart/keboola.yaml";
const SAMPLE_EVENTS = [
  { user: { id: "u-1" }, action: "signup" },
  { user: { id: "u-2" }, action: "login" },
  { user: { id: "u-1" } },
];

/** The root project's stack outputs that the quickstart reads (provider/manifest/program.ts). */
const stackOutputsSchema = z.object({
  sources: z.record(z.string(), z.object({ sourceId: z.string(), url: z.string() })),
  tables: z.record(z.string(), z.string()),
  storageTables: z.record(z.string(), z.string()).optional(),
});

function step(text: string): void {
  process.stdout.write(`\n==> ${text}\n`);
}

function mustSucceed(what: string, res: RunResult): RunResult {
  if (res.code !== 0) throw new Error(`${what} failed:\n${describeResult(res)}`);
  return res;
}

async function quickstart(keep: boolean): Promise<void> {
  process.env.KEBOOLA_PULUMI_USE_PATH ??= "1";
  step("The Pulumi CLI");
  await ensurePulumiBinDir({ progress: (text) => process.stderr.write(text) });

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

  const stacks: RootProject[] = [];
  const exportDir = fs.mkdtempSync(path.join(os.tmpdir(), "keboola-quickstart-export-"));
  try {
    const first = await makeRootProject({ prefix: "quickstart", host, token, manifest: MANIFEST });
    stacks.push(first);
    // The manifest reads the extractor's API token from stack config (a made-up one here).
    mustSucceed("pulumi config set", await first.setConfig("usersApiToken", `demo-${randomBytes(12).toString("hex")}`, { secret: true }));
    step(`pulumi up: the root project deploys ${MANIFEST} (stack ${first.stack})`);
    process.stdout.write(mustSucceed("pulumi up", await first.pulumi(["up", "--yes", "--skip-preview"], { timeoutMs: 300_000 })).stdout);

    const outputs = stackOutputsSchema.parse(parseJson(mustSucceed("pulumi stack output", await first.pulumi(["stack", "output", "--json", "--show-secrets"])).stdout));
    const source = outputs.sources.events;
    step(`Posting ${SAMPLE_EVENTS.length} events to source "${source.sourceId}"`);
    for (const event of SAMPLE_EVENTS) {
      const res = await fetch(source.url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(event) });
      process.stdout.write(`  POST ${JSON.stringify(event)} -> ${res.status}\n`);
      if (!res.ok) throw new Error(`ingestion answered ${res.status}: ${await res.text()}`);
    }

    if (!emulator) {
      step("The rows reach the tables when the import trigger fires (see targetImportTrigger in the manifest).");
    } else {
      // The reference table declared with its CSV, then the sinks' tables the events landed in.
      for (const tableId of [...Object.values(outputs.storageTables ?? {}), ...Object.values(outputs.tables)]) {
        step(`Rows in ${tableId}`);
        const res = await fetch(`${host}/v2/storage/tables/${tableId}/data-preview?format=rfc`, { headers: { "X-StorageApi-Token": token } });
        process.stdout.write(`${(await res.text()).trimEnd()}\n`);
      }

      const exported = path.join(exportDir, "keboola.yaml");
      step(`keboola-pulumi export --host ${host} > ${exported}`);
      const cli = KEBOOLA_PULUMI;
      const res = mustSucceed("keboola-pulumi export", await runProcess(process.execPath, [cli, "export", "--host", host], { cwd: exportDir, env: { ...process.env, KBC_TOKEN: token } }));
      fs.writeFileSync(exported, res.stdout);
      process.stdout.write(res.stdout + res.stderr);
      const cipher = /"#token": (KBC::\S+)/.exec(res.stdout)?.[1];
      process.stdout.write(
        `\nThe API token is in the export as Keboola holds it, encrypted (${cipher ? `${cipher.slice(0, 32)}...` : "no ciphertext found"}): ` +
          "only this stack's job runner can decrypt it, so the file is safe to commit, and the export's stack needs no secret config.\n",
      );

      const second = await makeRootProject({ prefix: "quickstart-export", host, token, manifest: exported });
      stacks.push(second);
      step(`pulumi up: the exported manifest takes everything over (stack ${second.stack})`);
      emulator.clearRequests();
      process.stdout.write(mustSucceed("pulumi up", await second.pulumi(["up", "--yes", "--skip-preview"], { timeoutMs: 300_000 })).stdout);
      const writes = emulator.writes();
      process.stdout.write(
        `Writes to Keboola while taking over: ${writes.length}, the takeover bookkeeping: each object taken over gets this stack's owner marker, nothing else changes\n` +
          writes.map((w) => `  ${w.method} ${w.path.replace(/\?.*$/, "")}\n`).join(""),
      );

      step("pulumi preview --expect-no-changes (the exported manifest)");
      process.stdout.write(mustSucceed("pulumi preview --expect-no-changes", await second.pulumi(["preview", "--expect-no-changes"], { timeoutMs: 300_000 })).stdout);
    }

    if (!keep) {
      // The last stack owns the objects: destroy it; the others are forgotten without touching them.
      const owner = stacks[stacks.length - 1];
      step(`pulumi destroy (stack ${owner.stack})`);
      mustSucceed("pulumi destroy", await owner.pulumi(["destroy", "--yes", "--skip-preview"], { timeoutMs: 300_000 }));
      for (const s of stacks.slice(0, -1)) mustSucceed("pulumi stack rm", await s.pulumi(["stack", "rm", "--force", "--yes"]));
      process.stdout.write("Destroyed the quickstart project.\n");
    } else {
      process.stdout.write(`\nKept the stacks ${stacks.map((s) => s.stack).join(", ")}: state in ${stacks.map((s) => s.ws.stateDir).join(", ")}\n`);
    }
  } finally {
    if (!keep) {
      for (const s of stacks) await s.cleanup();
      fs.rmSync(exportDir, { recursive: true, force: true });
    }
    await emulator?.close();
  }
}

export const quickstartCommand = command({
  name: "quickstart",
  summary: "deploy examples/quickstart to the bundled emulator (or KBC_HOST with KBC_TOKEN), send events, export it, take it over, destroy it",
  usage: "npm run quickstart [-- --keep]",
  description: "With KBC_HOST and KBC_TOKEN set it deploys to that Keboola stack instead (and skips the export).",
  options: {
    keep: { type: "boolean", help: "keep the stacks and their state (nothing is destroyed); their state directories are printed" },
  },
  async run({ values }) {
    await quickstart(values.keep);
    return 0;
  },
});

if (require.main === module) runMain(quickstartCommand);
