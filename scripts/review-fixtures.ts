#!/usr/bin/env node
import * as fs from "node:fs";
import * as path from "node:path";
import { isRecord, parseJson } from "../keboola/json";
import { REPO_ROOT } from "./lib/pulumi-workspace";
import { baseManifest, changedManifest, EDITS, QUICKSTART_DIR, QUICKSTART_SECRET, quickstartStack, reloadData, REVIEW_STACK } from "./lib/review-scenario";

// Captures the previews the unit tests of `keboola-pulumi review` read (test/review/fixtures/):
// real `pulumi preview --json` output of the pinned CLI against the emulator, for the scenario of
// scripts/lib/review-scenario.ts and a few single changes. Run after `npm run build`:
//   node dist/scripts/review-fixtures.js
// The run-dependent parts are normalized (see normalizePreview), and each serialized dynamic
// provider (`__provider`, ~2 KB of JavaScript per state, the same for every resource of a kind) is
// cut to "(trimmed)", as are stack traces of source positions: nothing the review reads.

const OUT = path.join(REPO_ROOT, "test", "review", "fixtures");

function trim(json: string): string {
  const digest = parseJson(json);
  if (isRecord(digest)) {
    for (const step of Array.isArray(digest.steps) ? digest.steps : []) {
      if (!isRecord(step)) continue;
      for (const side of ["oldState", "newState"]) {
        const state = step[side];
        if (!isRecord(state)) continue;
        delete state.stackTrace;
        delete state.sourcePosition;
        for (const part of ["inputs", "outputs"]) {
          const values = state[part];
          if (isRecord(values) && "__provider" in values) values.__provider = "(trimmed)";
        }
      }
    }
    delete digest.duration;
  }
  return `${JSON.stringify(digest, null, 2)}\n`;
}

function save(name: string, json: string): void {
  fs.writeFileSync(path.join(OUT, name), trim(json));
  process.stdout.write(`wrote test/review/fixtures/${name}\n`);
}

async function main(): Promise<void> {
  fs.mkdirSync(OUT, { recursive: true });
  // The stack of the golden file (test/review/golden/), so that ids derived from URNs match it.
  const s = await quickstartStack(REVIEW_STACK);
  try {
    save("quickstart-first.json", await s.previewJson(["--show-sames"]));
    await s.up();
    // The scenario's change (the golden file's) first, as the e2e test makes it: with and without
    // the unchanged resources, and with a replacement's own steps.
    s.write(changedManifest());
    reloadData(s.dir);
    save("quickstart-change.json", await s.previewJson(["--show-sames"]));
    save("quickstart-change-plain.json", await s.previewJson());
    save("quickstart-change-steps.json", await s.previewJson(["--show-sames", "--show-replacement-steps"]));
    s.write(baseManifest());
    fs.copyFileSync(path.join(QUICKSTART_DIR, "countries.csv"), path.join(s.dir, "countries.csv"));
    // A stack config secret (a # value) changed, nothing else.
    await s.root.setConfig("usersApiToken", "demo-users-api-token-2", { secret: true });
    save("secret-changed.json", await s.previewJson(["--show-sames"]));
    await s.root.setConfig("usersApiToken", QUICKSTART_SECRET, { secret: true });
    // A column added to a sink whose table has the old columns: the preview fails.
    s.write(EDITS.column(baseManifest()).replace("in.c-quickstart.actions_v2", "in.c-quickstart.actions"));
    save("column-refused.json", await s.previewJson(["--show-sames"]));
    // A # value written as a ciphertext literal in the manifest (so the preview shows it), changed.
    const encrypt = async (plain: string) =>
      (await fetch(`${s.emulator.url}/encryption/encrypt?componentId=keboola.ex-generic-v2&projectId=4242`, { method: "POST", headers: { "Content-Type": "text/plain" }, body: plain })).text();
    const withCipher = (cipher: string) => baseManifest().replace("configuration: { parameters: { config: { userData: { status: active } } } }", `configuration: { parameters: { "#apiKey": "${cipher}", config: { userData: { status: active } } } }`);
    s.write(withCipher(await encrypt("row-api-key-1")));
    await s.up();
    s.write(withCipher(await encrypt("row-api-key-2")));
    save("cipher-changed.json", await s.previewJson(["--show-sames"]));
  } finally {
    await s.cleanup();
  }
  // Flows, schedules and a job run: examples/manifest with its extractor replaced.
  const manifest = fs.readFileSync(path.join(REPO_ROOT, "examples", "manifest", "keboola.yaml"), "utf8");
  const m = await quickstartStack("review-fixtures-flows", manifest);
  try {
    await m.root.setConfig("ordersApiToken", "orders-token-1", { secret: true });
    await m.up();
    m.write(
      manifest
        .replace("    configId: orders-extractor\n", "    configId: orders-extractor-v2\n")
        .replace('cron: "0 3 * * *"', 'cron: "0 4 * * *"')
        .replace("      - { name: extract, tasks: [{ configuration: orders-extractor }] }\n", "      - { name: extract, tasks: [{ configuration: orders-extractor }] }\n      - { name: again, dependsOn: [extract], tasks: [{ configuration: orders-extractor, continueOnFailure: true }] }\n"),
    );
    save("flows-change.json", await m.previewJson(["--show-sames"]));
  } finally {
    await m.cleanup();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
