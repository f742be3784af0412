import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { expect } from "vitest";
import type { Emulator } from "../../../emulator/server";
import type { PulumiWorkspace } from "../../../scripts/lib/pulumi-workspace";

// Killing a `pulumi` command at a chosen moment, as a machine that dies would: the whole process
// group (the CLI, the language host, the provider) with SIGKILL, and every process working in the
// workspace with it.

/** Runs `pulumi <args>` in its own process group and SIGKILLs it once `when` holds of the emulator's writes. Answers the writes. */
export async function pulumiKilledWhen(w: PulumiWorkspace, args: string[], cwd: string, e: Emulator, when: (writes: string[]) => boolean, env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const child = spawn(path.join(w.binDir, "pulumi"), args, { cwd, env: { ...w.env, ...env }, detached: true, stdio: "ignore" });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  let finished = false;
  void exited.then(() => (finished = true));
  const writes = () => e.writes().map((x) => `${x.method} ${x.path.replace(/\?.*$/, "")}`);
  while (!finished && !when(writes())) await new Promise((r) => setTimeout(r, 5));
  expect(finished, `pulumi ${args[0]} ended before the kill moment`).toBe(false);
  process.kill(-child.pid!, "SIGKILL");
  await exited;
  killStragglers(w.root, cwd);
  return writes();
}

/**
 * The CLI starts its plugins (the language host, the provider) in process groups of their own;
 * a machine that dies takes them along, so every process working in the workspace (or in `cwd`,
 * for a program run from the repository) is killed too. Left alive they would keep polling.
 */
function killStragglers(root: string, cwd: string): void {
  for (const pid of fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    if (Number(pid) === process.pid) continue;
    let dir: string;
    let env = "";
    try {
      dir = fs.readlinkSync(`/proc/${pid}/cwd`);
      if (dir === cwd) env = fs.readFileSync(`/proc/${pid}/environ`, "utf8");
    } catch {
      continue; // gone, or not ours to look at
    }
    // A process in the repository is ours only when it runs with this workspace's PULUMI_HOME.
    if (dir.startsWith(root) || (dir === cwd && env.includes(root))) {
      try {
        process.kill(Number(pid), "SIGKILL");
      } catch {
        /* already gone */
      }
    }
  }
}
