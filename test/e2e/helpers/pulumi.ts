// The end-to-end tests use the same Pulumi workspace as the quickstart.
import { expect } from "vitest";
import { describeResult, type PulumiWorkspace, type RunResult, type StackConfig } from "../../../scripts/lib/pulumi-workspace";

export * from "../../../scripts/lib/pulumi-workspace";

/** Fails the test with the command's output unless it succeeded. */
export function ok(res: RunResult): RunResult {
  expect(res.code, describeResult(res)).toBe(0);
  return res;
}

/**
 * `pulumi stack init` and the stack config that points it at an emulator (the token as a secret),
 * with the program's own keys (`config`) written by the same `pulumi config set-all`.
 */
export async function initEmulatorStack(ws: PulumiWorkspace, host: string, token: string, config: StackConfig = {}): Promise<void> {
  ok(await ws.initStack());
  ok(await ws.setConfigs({ "keboola:host": host, "keboola:token": { secret: token }, ...config }));
}
