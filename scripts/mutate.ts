// `npm run mutate [-- <folder>... [-- <stryker options>]]`: mutation testing (StrykerJS) of the
// folders of scripts/mutate-folders.ts, one Stryker run per folder (stryker.config.mjs with
// MUTATE_FOLDER), each incremental, each failing below its own threshold. Without a folder, all of
// them in turn. Options after a second `--` go to Stryker as they are, e.g.
// `npm run mutate -- validation -- --mutate provider/validation/ids.ts --incrementalFile /tmp/x.json`.
//
// Prints, per folder, the mutation score (Stryker's: killed and timed out over all valid mutants,
// no-coverage ones counted as survivors), the survivors left, the threshold and the wall time; and
// exits 1 when a folder is below its threshold or its run failed. TypeScript built with the rest
// (`npm run mutate` builds first), so it parses its command line as every script does
// (provider/cli/command.ts); Stryker's config reads the folders from the same build.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { parseJson } from "../keboola/json";
import { command, runMain, UsageError } from "../provider/cli/command";
import { FOLDERS } from "./mutate-folders";
import { REPO_ROOT } from "./lib/pulumi-workspace";

/** A mutation-testing-report-schema JSON report, as far as it is counted. */
const mutationReportSchema = z.object({ files: z.record(z.string(), z.object({ mutants: z.array(z.object({ status: z.string() })) })) });

/**
 * Counts by status from a mutation-testing-report-schema JSON report, and Stryker's mutation score:
 * detected (killed, timeout) over valid (detected, survived, no coverage); compile and runtime
 * errors and ignored mutants are not valid.
 */
function summary(file: string): { score: number; survivors: number; noCoverage: number } | undefined {
  if (!existsSync(file)) return undefined;
  const report = mutationReportSchema.parse(parseJson(readFileSync(file, "utf8")));
  const count: Record<string, number> = {};
  for (const f of Object.values(report.files)) for (const m of f.mutants) count[m.status] = (count[m.status] ?? 0) + 1;
  const n = (s: string) => count[s] ?? 0;
  const detected = n("Killed") + n("Timeout");
  const valid = detected + n("Survived") + n("NoCoverage");
  return { score: valid === 0 ? 100 : (100 * detected) / valid, survivors: n("Survived"), noCoverage: n("NoCoverage") };
}

/** One Stryker run per folder, in turn, then the table of their scores. */
function mutate(folders: string[], passed: string[]): number {
  const stryker = join(REPO_ROOT, "node_modules", "@stryker-mutator", "core", "bin", "stryker.js");
  if (!existsSync(stryker)) throw new Error("StrykerJS is not installed: run `npm install` (it is a dev dependency)");
  const results = [];
  for (const folder of folders) {
    const started = Date.now();
    console.log(`\n== mutate ${folder}: ${FOLDERS[folder].why} (threshold ${FOLDERS[folder].break}%)`);
    const run = spawnSync(process.execPath, [stryker, "run", "stryker.config.mjs", ...passed], { cwd: REPO_ROOT, stdio: "inherit", env: { ...process.env, MUTATE_FOLDER: folder } });
    const minutes = (Date.now() - started) / 60_000;
    const s = summary(join(REPO_ROOT, "reports", "mutation", folder, "mutation.json"));
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
  return results.every((r) => r.status === 0) ? 0 : 1;
}

export const mutateCommand = command({
  name: "mutate",
  summary: "mutation testing (StrykerJS), one run per folder, each failing below its own threshold",
  usage: "npm run mutate [-- <folder>... [-- <stryker options>]]",
  description: `The folders: ${Object.keys(FOLDERS).join(", ")} (scripts/mutate-folders.ts). Without a folder, all of them in turn.\nE.g. npm run mutate -- validation -- --mutate provider/validation/ids.ts --incrementalFile /tmp/x.json`,
  options: {},
  positionals: [{ name: "<folder>...", noun: "a folder", help: `the folders to measure (default: all of them): ${Object.keys(FOLDERS).join(", ")}`, optional: true, variadic: true }],
  rest: "options passed to every Stryker run as they are",
  exitCodes: "exit code: 0 every folder at or above its threshold, 1 a folder below it, a run that failed, or an error (wrong arguments too)",
  run({ positionals, rest }) {
    const unknown = positionals.filter((f) => !Object.hasOwn(FOLDERS, f));
    if (unknown.length > 0) throw new UsageError(`unknown folder(s) ${unknown.join(", ")}: choose among ${Object.keys(FOLDERS).join(", ")} (none: all of them)`);
    return mutate(positionals.length > 0 ? positionals : Object.keys(FOLDERS), rest);
  },
});

if (require.main === module) runMain(mutateCommand);
