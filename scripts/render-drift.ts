#!/usr/bin/env node
import * as fs from "node:fs";
import * as path from "node:path";
import { KeboolaClient } from "../provider/api/client";
import { resolveSettings } from "../provider/config";
import { isRecord } from "../keboola/json";
import { writePictureOf } from "./lib/mermaid-browser";
import { describeResult, REPO_ROOT, runProcess } from "./lib/pulumi-workspace";
import { quickstartStack } from "./lib/review-scenario";
import { KEBOOLA_PULUMI } from "./lib/bin";

// Regenerates the example of `keboola-pulumi drift` in docs/: drift-example.md, the Markdown report
// of the quickstart after four changes made the way the UI makes them (a configuration's parameter,
// a sink's column mapping, a source's settings, a table column), against the emulator with the
// real Pulumi CLI, and drift-example.png, its diagram rendered by mermaid in headless Chromium
// (scripts/lib/mermaid-browser.ts), as GitHub renders the report in the drift job's pull request.
//   npm run build && node dist/scripts/render-drift.js

const STACK = "drift-example";
const TOKEN = "review-master-token"; // the scenario's emulator token (scripts/lib/review-scenario.ts)

async function main(): Promise<void> {
  const s = await quickstartStack(STACK);
  try {
    await s.up();
    const ui = new KeboolaClient(resolveSettings(undefined, { KBC_HOST: s.emulator.url, KBC_TOKEN: TOKEN }));
    const users = (await ui.storage.listConfigs("default", "keboola.ex-generic-v2"))[0];
    const configuration = structuredClone(users.configuration);
    const api = isRecord(configuration.parameters) ? configuration.parameters.api : undefined;
    if (!isRecord(api)) throw new Error("the quickstart's generic extractor has no parameters.api");
    api.baseUrl = "https://api.example.com/v2/";
    await ui.storage.updateConfig("default", "keboola.ex-generic-v2", String(users.id), { configuration, changeDescription: "Moved to the v2 API" });
    const stream = await ui.stream();
    // The quickstart's "Quickstart Events" source and its "User actions" sink (ids derived from their names).
    const source = (await stream.listSources("default")).sources.find((x) => x.name === "Quickstart Events")!;
    const sink = await stream.getSink("default", source.sourceId, "user-actions");
    if (!sink.table) throw new Error("the quickstart's sink user-actions has no table");
    const columns = sink.table.mapping.columns.map((c) => (c.name === "action" ? { ...c, defaultValue: "none" } : c));
    await stream.runTask(await stream.updateSink("default", source.sourceId, "user-actions", { table: { ...sink.table, mapping: { columns } }, changeDescription: "Default action renamed" }), "the sink edit");
    await stream.runTask(await stream.patchSettings("default", source.sourceId, undefined, [{ key: "storage.level.target.import.trigger.count", value: 5000 }], "Bigger imports"), "the settings edit");
    await ui.storage.waitJob(await ui.storage.addColumn("default", "in.c-reference.countries", { name: "region" }), "the new column");

    const out = path.join(REPO_ROOT, "docs", "drift-example.md");
    const drift = await runProcess(process.execPath, [KEBOOLA_PULUMI, "drift", "--stack", STACK, "--markdown", out], {
      cwd: REPO_ROOT,
      env: s.root.ws.env,
      timeoutMs: 300_000,
    });
    if (drift.code !== 2) throw new Error(`keboola-pulumi drift should find the drift (exit 2):\n${describeResult(drift)}`);
    await writePictureOf(fs.readFileSync(out, "utf8"), path.join(REPO_ROOT, "docs", "drift-example.png"), (nodes) => {
      const marked = nodes.filter((n) => n.classes.includes("updated")).length;
      if (marked !== 4) throw new Error(`the picture marks ${marked} objects as changed in Keboola, not the 4 changed`);
    });
  } finally {
    await s.cleanup();
  }
  process.stdout.write("wrote docs/drift-example.md and docs/drift-example.png\n");
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
