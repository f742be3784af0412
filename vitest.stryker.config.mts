import { relative } from "node:path";
import type { TestSpecification } from "vitest/node";
import { BaseSequencer } from "vitest/node";
import { defineConfig } from "vitest/config";
import { LoadFailureAsFailedTest } from "./test/load-failure.reporter";

// The tests `npm run mutate` (StrykerJS, stryker.config.mjs) runs against each mutant: the
// in-process suite (unit, emulator, provider, mocks, manifest, jsonnet, review), which imports the
// sources Stryker mutates. Left out, because they run code a mutant never reaches (dist/, other
// processes) and cost seconds to minutes each:
// - test/e2e/ (all of it, smoke.test.ts included): the real Pulumi CLI running dist/;
// - test/review/cli.test.ts: runs the built command (dist/), which a mutant never reaches;
// - test/review/mermaid.test.ts: renders the review diagram in Chromium (provider/review/ is not
//   mutated);
// - test/unit/ensure-pulumi.test.ts: the shell script that finds or builds the Pulumi CLI;
// - test/manifest/package.test.ts: `npm pack --dry-run` of the package;
// - test/unit/cli-grammar.test.ts: the command lines (provider/cli/, scripts/), which no folder
//   mutates, and their built entry points; it imports most of the project through the scripts;
// - test/unit/load-failure-reporter.test.ts: a vitest run of its own fixtures, to test this
//   config's reporter.
//
// The tests that run a Pulumi program under the SDK's mocks (test/mocks/, and
// test/provider/unknown-references.test.ts and stack-branch.test.ts) run too: Stryker's vitest
// runner runs the tests in worker threads (pool "threads", which it imposes), where they hung
// until test/worker-builtins.setup.ts stood in for the one built-in module a worker cannot load.
//
// The order the test files run in. A mutant Stryker activates when modules load (a "static" one,
// such as a message in a module-level table) runs every test file that imports its module, and the
// run stops at the first failing test (bail): so files that failed last time run first (the same
// file tends to kill the next mutant of the same table), then the quickest files, whose unit
// tests assert messages and tables directly. Vitest's own order runs the slowest first.
class QuickFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const result = (file: TestSpecification) =>
      this.ctx.cache.getFileTestResults(`${file.project.name}:${relative(this.ctx.config.root, file.moduleId)}`);
    return [...files].sort((a, b) => {
      const ra = result(a);
      const rb = result(b);
      if (Boolean(ra?.failed) !== Boolean(rb?.failed)) return ra?.failed ? -1 : 1;
      return (ra?.duration ?? 0) - (rb?.duration ?? 0);
    });
  }
}

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "emulator/**/*.test.ts"],
    exclude: [
      "**/node_modules/**",
      "test/e2e/**",
      "test/review/cli.test.ts",
      "test/review/mermaid.test.ts",
      "test/unit/ensure-pulumi.test.ts",
      "test/manifest/package.test.ts",
      "test/unit/cli-grammar.test.ts",
      "test/unit/load-failure-reporter.test.ts",
    ],
    isolate: false,
    sequence: { sequencer: QuickFirst },
    setupFiles: ["test/worker-builtins.setup.ts", "test/fresh-modules.setup.ts"],
    testTimeout: 30000,
    hookTimeout: 60000,
    // A test file that fails to load is a failed test (see the reporter: otherwise Stryker counts a
    // mutant that breaks a module's import as survived).
    reporters: ["default", new LoadFailureAsFailedTest()],
  },
});
