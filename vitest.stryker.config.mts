import { defineConfig } from "vitest/config";

// The tests `npm run mutate` (StrykerJS, stryker.config.mjs) runs against each mutant: the
// in-process suite (unit, emulator, provider, mocks, manifest, jsonnet, review), which imports the
// sources Stryker mutates. Left out, because they run code a mutant never reaches (dist/, other
// processes) and cost seconds to minutes each:
// - test/e2e/ (all of it, smoke.test.ts included): the real Pulumi CLI running dist/;
// - test/review/cli.test.ts: rebuilds dist/ with tsc when a source is newer (every mutated
//   sandbox file is) and runs the built command;
// - test/review/mermaid.test.ts: renders the review diagram in Chromium (provider/review/ is not
//   mutated);
// - test/unit/ensure-pulumi.test.ts: the shell script that finds or builds the Pulumi CLI;
// - test/manifest/package.test.ts: `npm pack --dry-run` of the package;
// - the tests that run a Pulumi program under the SDK's mocks (test/mocks/, and
//   test/provider/unknown-references.test.ts and stack-branch.test.ts through preview-program.ts):
//   Stryker's vitest runner runs the tests in a worker thread (pool "threads", which it imposes),
//   and there the SDK's mocked program never resolves its resources' URNs: the first such test
//   hangs until its timeout (`npx vitest run --pool=threads test/provider/unknown-references.test.ts`
//   shows it). Their mutants are measured by the other tests only.
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
      "test/mocks/**",
      "test/provider/unknown-references.test.ts",
      "test/provider/stack-branch.test.ts",
    ],
    testTimeout: 30000,
    hookTimeout: 60000,
    reporters: ["default"],
  },
});
