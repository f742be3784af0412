// @ts-check
// Mutation testing (StrykerJS) of one folder of scripts/mutate-folders.ts, named by MUTATE_FOLDER:
// `npm run mutate` (scripts/mutate.ts) runs it once per folder, `npm run mutate -- <folder>` one.
// Results are kept between runs (incremental: only mutants of changed code, or reached by changed
// tests, run again), and each mutant runs only the tests that reach it (per-test coverage).
// Reports under reports/mutation/<folder>/ (git-ignored): index.html, mutation.json, and the
// incremental file.
import { mkdirSync, writeFileSync } from "node:fs";
// The folders as `npm run mutate` built them (it builds before it runs Stryker): one list, typed.
import { FOLDERS } from "./dist/scripts/mutate-folders.js";

const folder = process.env.MUTATE_FOLDER ?? "";
const chosen = FOLDERS[folder];
if (!chosen) {
  throw new Error(`MUTATE_FOLDER must be one of ${Object.keys(FOLDERS).join(", ")} (got "${folder}"): run \`npm run mutate -- <folder>\``);
}
const reportDir = `reports/mutation/${folder}`;

// The TypeScript checker compiles the folder's own files and what they import, not the whole
// project: after each mutant it re-checks every file of its program that depends on the mutated
// one, and with the tests in it (tsconfig.json) that took most of the run (tsc --noEmit on a
// 2-core machine: 36.7 s for tsconfig.json's 387 files, 2.4 s for keboola/ alone). A mutant that
// compiles here but would break a caller's types is then run against the tests instead of being
// dropped as a compile error. The file is made here from FOLDERS, so the folders have one list;
// it sits in the project (git-ignored) because the checker reads it inside Stryker's sandbox copy.
const tsconfigFile = `.mutate/tsconfig.${folder}.json`;
mkdirSync(".mutate", { recursive: true });
writeFileSync(
  tsconfigFile,
  `${JSON.stringify({ extends: "../tsconfig.json", include: chosen.mutate.map((p) => `../${p}`), exclude: ["../**/*.test.ts"] }, null, 2)}\n`,
);

/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  packageManager: "npm",
  testRunner: "vitest",
  vitest: { configFile: "vitest.stryker.config.mts" },
  // Mutants that do not compile are dropped before any test runs (strict TypeScript would reject
  // them anyway).
  checkers: ["typescript"],
  tsconfigFile,
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  mutate: [...chosen.mutate, "!**/*.test.ts", "!**/*.d.ts"],
  coverageAnalysis: "perTest",
  // Four processes on 2 cores (two checkers and two test runners, four runners once every mutant
  // is checked): a test runner alone keeps only about a third of a core busy (the tests mostly
  // wait on the emulator). Six kept both cores busy and went faster on keboola/'s first files, but
  // on its Storage and Stream-record files the runners starved each other: mutants ran past their
  // timeout, each timeout restarted a runner, which cost more CPU (47 timeouts in 596 mutants, and
  // a timeout counts as detected). Four gave the same result, mutant for mutant, as one runner.
  concurrency: 4,
  incremental: true,
  incrementalFile: `${reportDir}/stryker-incremental.json`,
  thresholds: { high: 90, low: chosen.break, break: chosen.break },
  reporters: ["html", "json", "clear-text", "progress"],
  htmlReporter: { fileName: `${reportDir}/index.html` },
  jsonReporter: { fileName: `${reportDir}/mutation.json` },
  clearTextReporter: { allowColor: false, logTests: false, maxTestsToLog: 0, reportScoreTable: true },
  // Each folder its own sandbox, so a run of one folder never removes another's.
  tempDirName: `.stryker-tmp/${folder}`,
  ignorePatterns: ["reports", ".pulumi-state", "examples/*/node_modules"],
  // The suite's tests wait on emulator tasks and retries: a busy 2-core machine needs room.
  timeoutMS: 10000,
  // A mutant times out after timeoutFactor times the dry-run time of the tests it runs (plus
  // timeoutMS), and a timeout counts as detected. The dry run has the cores to itself; a mutant
  // shares them with three other processes and runs up to twice as slowly. With Stryker's 1.5, a
  // static mutant (it runs the whole suite) that no test kills outlived its limit and was counted
  // as a timeout, not a survivor: 95 of keboola/storage.ts's mutants, until direct tests killed
  // them. At 3 such a mutant finishes and shows as what it is; a real endless loop costs more.
  timeoutFactor: 3,
  dryRunTimeoutMinutes: 20,
};
