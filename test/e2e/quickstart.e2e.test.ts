// The README's main job, as a new user runs it: `npm run quickstart` (the build, then
// dist/scripts/quickstart.js) against the bundled emulator, with the Pulumi CLI the tests use.
import { describe, expect, it } from "vitest";
import * as path from "node:path";
import { describeResult, REPO_ROOT, runProcess } from "./helpers/pulumi";

describe("e2e: npm run quickstart", () => {
  it("deploys the quickstart to the emulator, shows the rows, exports the project, takes the export over with no changes, and destroys it", async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, KEBOOLA_PULUMI_USE_PATH: "0" };
    // On the bundled emulator, whatever the environment holds.
    delete env.KBC_HOST;
    delete env.KBC_TOKEN;
    const res = await runProcess(process.execPath, [path.join(REPO_ROOT, "dist", "scripts", "quickstart.js")], { cwd: REPO_ROOT, env, timeoutMs: 400_000 });
    expect(res.code, describeResult(res)).toBe(0);
    const steps = [...res.stdout.matchAll(/^==> (.*)$/gm)].map((m) => m[1]);
    expect(steps.some((s) => s.startsWith("pulumi up: the root project deploys examples/quickstart/keboola.yaml"))).toBe(true);
    expect(steps.some((s) => s.startsWith("Rows in "))).toBe(true);
    expect(steps.some((s) => s.startsWith("keboola-pulumi export --host "))).toBe(true);
    expect(steps.some((s) => s.startsWith("pulumi up: the exported manifest takes everything over"))).toBe(true);
    expect(res.stdout).toMatch(/pulumi preview --expect-no-changes \(the exported manifest\)[\s\S]*\d+ unchanged/);
    expect(res.stdout).toContain("Destroyed the quickstart project.");
  }, 420_000);
});
