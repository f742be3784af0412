// Driving `keboola-pulumi drift` and `pull` as a user does: the built CLI in the Pulumi project's
// directory, with the stack's environment; and a Keboola client standing in for the UI, which
// changes objects through the same Storage and Stream APIs.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { expect } from "vitest";
import { mermaidOf } from "../../../scripts/lib/mermaid-block";
import { openMermaidPage, type RenderedNode } from "../../../scripts/lib/mermaid-browser";
import { KeboolaClient } from "../../../provider/api/client";
import { resolveSettings } from "../../../provider/config";
import { describeResult, REPO_ROOT, runProcess, type RunResult } from "../../../scripts/lib/pulumi-workspace";
import { makeRootProject, type RootProject } from "../../../scripts/lib/root-project";
import { KEBOOLA_PULUMI } from "../../helpers/cli";

/** Where a user runs the CLI: the root project (its stack named), or a program's directory with its environment. */
export type CliPlace = RootProject | { cwd: string; env: NodeJS.ProcessEnv };

/** `keboola-pulumi <command> <args>`: for the root project in the repository root, with `--stack <its stack>` unless args name one. */
export function keboolaPulumi(place: CliPlace, command: "drift" | "pull", args: string[] = []): Promise<RunResult> {
  const [cwd, env, stack] = "ws" in place ? [REPO_ROOT, place.ws.env, place.stack] : [place.cwd, place.env, undefined];
  const stackArgs = stack !== undefined && !args.includes("--stack") ? ["--stack", stack] : [];
  return runProcess(process.execPath, [KEBOOLA_PULUMI, command, ...args, ...stackArgs], { cwd, env, timeoutMs: 300_000 });
}

/** The client the tests change Keboola with, as the UI would (a master token's session). */
export function uiClient(host: string, token: string): KeboolaClient {
  return new KeboolaClient(resolveSettings(undefined, { KBC_HOST: host, KBC_TOKEN: token }));
}

/** A drift report's picture as GitHub draws it: its Mermaid block rendered in headless Chromium; fails on mermaid's error picture. */
export async function renderedInChromium(markdown: string): Promise<RenderedNode[]> {
  const page = await openMermaidPage();
  try {
    const result = await page.render(mermaidOf(markdown));
    expect(/class="error-icon"|Syntax error in text/.test(result.svg), "mermaid drew its error picture").toBe(false);
    return result.nodes;
  } finally {
    await page.close();
  }
}

/** The root project deploying `manifestText` (written to a temporary keboola.yaml) to the emulator at `host`, brought up; cleanup removes both. */
export async function deployedRootProject(prefix: string, host: string, manifestText: string): Promise<{ root: RootProject; manifest: string; cleanup(): Promise<void> }> {
  const manifest = path.join(fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-e2e-`)), "keboola.yaml");
  fs.writeFileSync(manifest, manifestText);
  const root = await makeRootProject({ prefix, host, token: "master", manifest });
  const up = await root.pulumi(["up", "--yes", "--skip-preview"], { timeoutMs: 300_000 });
  expect(up.code, describeResult(up)).toBe(0);
  return {
    root,
    manifest,
    async cleanup() {
      fs.rmSync(path.dirname(manifest), { recursive: true, force: true });
      await root.cleanup();
    },
  };
}
