// End to end with the real Pulumi CLI: the quickstart deployed through the root Pulumi project to
// the emulator, then the scripted change of scripts/lib/review-scenario.ts ((a) a configuration
// edit, (b) a sink column added, (c) a table reloaded, (d) a configuration replaced, (e) a source
// deleted); `pulumi preview --json` of it, reviewed by the built `keboola-pulumi review`, must be the
// reviewed golden file. Normalized, because it depends on the run: the manifest's temporary
// directory (the table's `data` path), the emulator's address and the checkout's directory
// (normalizePreview). The stack has a fixed name (`review-example`: ids derived from URNs depend on
// it) and `up --parallel 1` makes the emulator's ids the same on every run.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO_ROOT } from "./helpers/pulumi";
import { changedManifest, quickstartStack, QUICKSTART_SECRET, reloadData, REVIEW_STACK, type QuickstartStack } from "../../scripts/lib/review-scenario";
import { KEBOOLA_PULUMI } from "../helpers/cli";

const GOLDEN = path.join(REPO_ROOT, "test", "review", "golden");


function reviewOf(preview: string): string {
  const res = spawnSync(process.execPath, [KEBOOLA_PULUMI, "review", "-"], { cwd: REPO_ROOT, input: preview, encoding: "utf8", timeout: 60_000 });
  expect(res.stderr).toBe("");
  expect(res.status).toBe(0);
  return res.stdout;
}

describe("e2e: keboola-pulumi review of the quickstart's scripted change", () => {
  let stack: QuickstartStack;

  beforeAll(async () => {
    stack = await quickstartStack(REVIEW_STACK);
    await stack.up();
  }, 10 * 60 * 1000);

  afterAll(async () => {
    await stack?.cleanup();
  });

  it("reviews the preview as the golden file, with and without --show-sames, showing no secret", async () => {
    stack.write(changedManifest());
    reloadData(stack.dir);
    stack.emulator.clearRequests();
    const withSames = await stack.previewJson(["--show-sames"]);
    const plain = await stack.previewJson();
    expect(JSON.parse(withSames).changeSummary).toEqual({ delete: 1, replace: 1, same: 6, update: 3 });
    const review = reviewOf(withSames);
    expect(review).toBe(fs.readFileSync(path.join(GOLDEN, "quickstart-change.md"), "utf8"));
    expect(reviewOf(plain)).toBe(fs.readFileSync(path.join(GOLDEN, "quickstart-change-plain.md"), "utf8"));
    // The stack config secret is in neither the preview nor the review.
    for (const text of [withSames, plain, review]) expect(text).not.toContain(QUICKSTART_SECRET);
    // Nothing was written by the previews.
    expect(stack.emulator.writes()).toEqual([]);
  }, 600_000);
});
