import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createVitest } from "vitest/node";
import { LoadFailureAsFailedTest } from "../load-failure.reporter";

// The reporter of the mutation runs (vitest.stryker.config.mts) in a real vitest run, read as
// Stryker's vitest runner 9.6.1 reads it: the tests of each file in ctx.state.getFiles(), a mutant
// killed when one of them failed (vitest-test-runner.js, vitest-helpers.js collectTestsFromSuite).

async function collected(withReporter: boolean): Promise<Array<{ file: string; name: string; state: string | undefined; error?: string }>> {
  // config: false: the fixtures alone, not the projects of the repository's vitest.config.mts.
  const ctx = await createVitest("test", {
    config: false,
    watch: false,
    root: process.cwd(),
    include: ["test/unit/fixtures/load-failure/*.check.ts"],
    reporters: withReporter ? [new LoadFailureAsFailedTest()] : [],
    setupFiles: [],
  }, {}, { stdout: new PassThrough(), stderr: new PassThrough() });
  try {
    await ctx.start();
    return ctx.state.getFiles().flatMap((file) =>
      file.tasks.map((t) => ({
        file: file.name.split("/").at(-1) ?? "",
        name: t.name,
        state: t.result?.state,
        ...(t.result?.errors?.[0] ? { error: t.result.errors[0].message } : {}),
      })),
    );
  } finally {
    await ctx.close();
  }
}

describe("a test file that fails to load, in a mutation run", () => {
  it("collects no test without the reporter (the runner would see nothing fail)", async () => {
    expect((await collected(false)).sort((a, b) => a.file.localeCompare(b.file))).toEqual([{ file: "loads.check.ts", name: "passes", state: "pass" }]);
  }, 60_000);

  it("is one failed test with its load error with the reporter; a file that loaded is left as it is", async () => {
    expect((await collected(true)).sort((a, b) => a.file.localeCompare(b.file))).toEqual([
      { file: "loads.check.ts", name: "passes", state: "pass" },
      { file: "unloadable.check.ts", name: "the test file loads", state: "fail", error: "this module refuses to load" },
    ]);
  }, 60_000);
});
