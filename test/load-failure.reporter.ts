import type { RunnerTestCase as Test, RunnerTestFile as File } from "vitest";
import { experimental_getRunnerTask, type Reporter, type TestModule } from "vitest/node";

// For the mutation runs only (vitest.stryker.config.mts): a test file that fails to load counts as
// one failed test.
//
// Stryker's vitest runner (9.6.1) builds a mutant's result from the tests vitest collected, and a
// test file whose imports throw collects none. So a mutant that stops a module from loading (a
// static one, say a range in keboola/settings.ts that the settings table then refuses at import)
// was reported as survived, although no test of that file can even run (stryker-mutator/stryker-js
// issue 6150, open). This reporter runs before the runner reads the results, and gives each such
// file one failed test holding its load error, so the mutant counts as killed. A file that loaded
// is left as it is.

/** What a file that failed to load adds: one failed test named after the load, with the file's errors. */
export function loadFailureTest(file: File): Test {
  // A minimal Test: Stryker reads its name, file, suite chain, mode and result; vitest's other
  // fields (context, timeout, annotations...) belong to a test that ran, which this one did not.
  const test = {
    type: "test",
    id: `${file.id}_load`,
    name: "the test file loads",
    fullName: `${file.name} the test file loads`,
    fullTestName: "the test file loads",
    mode: "run",
    file,
    suite: file,
    meta: {},
    timeout: 0,
    annotations: [],
    artifacts: [],
    result: { state: "fail", errors: file.result?.errors ?? [] },
  };
  return test as unknown as Test;
}

export class LoadFailureAsFailedTest implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    for (const module of testModules) markLoadFailure(experimental_getRunnerTask(module));
  }
}

/** Adds the failed test to a file that failed and collected no test. */
export function markLoadFailure(file: File): void {
  if (file.result?.state === "fail" && file.tasks.length === 0) file.tasks.push(loadFailureTest(file));
}
