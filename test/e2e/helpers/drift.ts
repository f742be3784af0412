// Driving `keboola-pulumi drift` and `pull` as a user does: the built CLI in the Pulumi project's
// directory, with the stack's environment; and a Keboola client standing in for the UI, which
// changes objects through the same Storage and Stream APIs.
import * as path from "node:path";
import { KeboolaClient } from "../../../provider/api/client";
import { resolveSettings } from "../../../provider/config";
import { REPO_ROOT, runProcess, type RunResult } from "../../../scripts/lib/pulumi-workspace";
import type { RootProject } from "../../../scripts/lib/root-project";

/** `keboola-pulumi <command> <args> --stack <stack>` in the repository root (the root project). */
export function keboolaPulumi(root: RootProject, command: "drift" | "pull", args: string[] = []): Promise<RunResult> {
  return runProcess(process.execPath, [path.join(REPO_ROOT, "dist", "provider", "manifest", "cli.js"), command, ...args, ...(args.includes("--stack") ? [] : ["--stack", root.stack])], {
    cwd: REPO_ROOT,
    env: root.ws.env,
    timeoutMs: 300_000,
  });
}

/** The client the tests change Keboola with, as the UI would (a master token's session). */
export function uiClient(host: string, token: string): KeboolaClient {
  return new KeboolaClient(resolveSettings(undefined, { KBC_HOST: host, KBC_TOKEN: token }));
}
