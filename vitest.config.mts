import type { TestSpecification } from "vitest/node";
import { BaseSequencer } from "vitest/node";
import { defineConfig } from "vitest/config";

// Two projects, run side by side in one pool (`npm test` runs both, `npm run test:fast` the first):
// - fast: everything in-process (unit, emulator, provider, mocks, manifest, jsonnet, review). Its
//   files share a worker's loaded node_modules (isolate: false; loading @pulumi/pulumi and the AWS
//   SDK afresh for each file cost about a second a file), while each file still evaluates the
//   project's own modules afresh (test/fresh-modules.setup.ts), as in a worker of its own.
// - e2e: the real Pulumi CLI against the emulator. Each file has its own emulator (a free port),
//   work directory and PULUMI_HOME (scripts/lib/pulumi-workspace.ts), so files cannot step on each
//   other; they mostly wait on `pulumi` and its plugins, so more of them run at once than there
//   are cores. No test builds dist/ itself: the global setup does, before any file starts.
//
// MAX_WORKERS: how many files run at once. The machine this suite is sized for has 2 cores; the
// figure and the measurements behind it are in CONTRIBUTING.md ("Slow tests").
const MAX_WORKERS = 4;

// The end-to-end files first, longest first (they are the long pole: a long file started last
// would run on alone), then the rest, longest first. Durations come from vitest's cache of the
// last run; on a fresh clone (no cache) the file size stands in, as in vitest's own order.
class EndToEndFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const e2e = (f: TestSpecification) => f.project.name === "e2e";
    return [...sorted.filter(e2e), ...sorted.filter((f) => !e2e(f))];
  }
}

export default defineConfig({
  test: {
    testTimeout: 30000,
    hookTimeout: 60000,
    reporters: ["default", "./test/summary-reporter.ts"],
    benchmark: { include: ["test/bench/**/*.bench.ts"] },
    maxWorkers: MAX_WORKERS,
    sequence: { sequencer: EndToEndFirst },
    // The build the tests run, made before any file starts (see the file).
    globalSetup: ["test/build.global.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "fast",
          include: ["test/**/*.test.ts", "emulator/**/*.test.ts"],
          exclude: ["**/node_modules/**", "test/e2e/**"],
          isolate: false,
          setupFiles: ["test/fresh-modules.setup.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          // The Node.js processes Pulumi starts load faster (scripts/lib/e2e-node-preload.ts).
          env: { KEBOOLA_E2E_PRELOAD: "1" },
          // scripts/ensure-pulumi.sh once for every e2e file, not once in each (see the files).
          globalSetup: ["test/e2e/pulumi-cli.global.ts"],
          setupFiles: ["test/e2e/pulumi-cli.setup.ts"],
        },
      },
    ],
  },
});
