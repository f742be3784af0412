// @ts-check
// `npm run mutate [-- <folder>... [-- <stryker options>]]`: mutation testing (StrykerJS) of the
// folders of scripts/mutate-folders.mjs, one Stryker run per folder (stryker.config.mjs with
// MUTATE_FOLDER), each incremental, each failing below its own threshold. Without a folder, all of
// them in turn. Options after a second `--` go to Stryker as they are, e.g.
// `npm run mutate -- validation -- --mutate provider/validation/ids.ts --incrementalFile /tmp/x.json`.
//
// Prints, per folder, the mutation score (Stryker's: killed and timed out over all valid mutants,
// no-coverage ones counted as survivors), the survivors left, the threshold and the wall time; and
// exits non-zero when a folder is below its threshold or its run failed. A plain Node script (no
// build): it runs from a fresh checkout, like Stryker itself.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { FOLDERS } from "./mutate-folders.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const split = args.indexOf("--");
const named = split < 0 ? args : args.slice(0, split);
const passed = split < 0 ? [] : args.slice(split + 1);
const unknown = named.filter((f) => !(f in FOLDERS));
if (unknown.length > 0) {
  console.error(`mutate: unknown folder(s) ${unknown.join(", ")}: choose among ${Object.keys(FOLDERS).join(", ")} (none: all of them)`);
  process.exit(2);
}
const folders = named.length > 0 ? named : Object.keys(FOLDERS);
const stryker = join(root, "node_modules", "@stryker-mutator", "core", "bin", "stryker.js");
if (!existsSync(stryker)) {
  console.error("mutate: StrykerJS is not installed: run `npm install` (it is a dev dependency)");
  process.exit(2);
}

/**
 * Counts by status from a mutation-testing-report-schema JSON report, and Stryker's mutation score:
 * detected (killed, timeout) over valid (detected, survived, no coverage); compile and runtime
 * errors and ignored mutants are not valid.
 * @param {string} file
 */
function summary(file) {
  if (!existsSync(file)) return undefined;
  /** @type {{ files: Record<string, { mutants: Array<{ status: string }> }> }} */
  const report = JSON.parse(readFileSync(file, "utf8"));
  /** @type {Record<string, number>} */
  const count = {};
  for (const f of Object.values(report.files)) for (const m of f.mutants) count[m.status] = (count[m.status] ?? 0) + 1;
  const n = (/** @type {string} */ s) => count[s] ?? 0;
  const detected = n("Killed") + n("Timeout");
  const valid = detected + n("Survived") + n("NoCoverage");
  return { count, score: valid === 0 ? 100 : (100 * detected) / valid, survivors: n("Survived"), noCoverage: n("NoCoverage") };
}

const results = [];
for (const folder of folders) {
  const started = Date.now();
  console.log(`\n== mutate ${folder}: ${FOLDERS[folder].why} (threshold ${FOLDERS[folder].break}%)`);
  const run = spawnSync(process.execPath, [stryker, "run", "stryker.config.mjs", ...passed], { cwd: root, stdio: "inherit", env: { ...process.env, MUTATE_FOLDER: folder } });
  const minutes = (Date.now() - started) / 60_000;
  const s = summary(join(root, "reports", "mutation", folder, "mutation.json"));
  results.push({ folder, status: run.status, minutes, s });
}

console.log("\nfolder      score    survived  no-coverage  threshold  time     result");
for (const { folder, status, minutes, s } of results) {
  const score = s ? `${s.score.toFixed(2)}%` : "-";
  const result = status === 0 ? "ok" : s && s.score < FOLDERS[folder].break ? "BELOW THRESHOLD" : `failed (exit ${status})`;
  console.log(
    `${folder.padEnd(11)} ${score.padEnd(8)} ${String(s?.survivors ?? "-").padEnd(9)} ${String(s?.noCoverage ?? "-").padEnd(12)} ${`${FOLDERS[folder].break}%`.padEnd(10)} ${`${minutes.toFixed(1)} min`.padEnd(8)} ${result}`,
  );
}
console.log("\nReports: reports/mutation/<folder>/index.html (open it in a browser; it needs no server).");
process.exit(results.every((r) => r.status === 0) ? 0 : 1);
