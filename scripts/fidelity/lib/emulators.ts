import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as readline from "node:readline";
import { track } from "./children";

// The emulators a run serves its projects from: this checkout's built CLI
// (dist/emulator/cli.js), one process per parallel slot, so that parallel tests never share a
// project, as each test project of a real test pool is its own. Started under `nice` (shared
// machine); their logs and state files go to the work dir.

export interface EmulatorSlot {
  slot: number;
  url: string;
  token: string;
  projectId: number;
  child: ChildProcess;
}

/** dist/scripts/fidelity/lib -> dist/emulator/cli.js */
const CLI = path.join(__dirname, "..", "..", "..", "emulator", "cli.js");

export function startEmulator(work: string, slot: number, token: string, projectId: number, taskDurationMs = 50): Promise<EmulatorSlot> {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build`);
  const args = [CLI, "--port", "0", "--token", token, "--task-duration", String(taskDurationMs), "--project-id", String(projectId),
    "--state-file", path.join(work, `emulator-${slot}.json`)];
  const logFile = path.join(work, `emulator-${slot}.log`);
  const out = fs.createWriteStream(logFile);
  const child = track(spawn("nice", ["-n", "10", process.execPath, ...args], { stdio: ["ignore", "pipe", "pipe"] }));
  child.stderr?.pipe(out);
  return new Promise((resolve, reject) => {
    let first = true;
    const rl = readline.createInterface({ input: child.stdout! });
    rl.on("line", (line) => {
      out.write(line + "\n");
      if (!first) return;
      first = false;
      resolve({ slot, url: line.trim(), token, projectId, child });
    });
    child.on("exit", (code) => {
      if (first) reject(new Error(`emulator ${slot} exited with ${code} (see ${logFile})`));
    });
  });
}

/** Keeps each emulator's own request log (`emulator-N-requests.json`) for later analysis. */
export async function saveEmulatorRequests(work: string, slots: EmulatorSlot[]): Promise<void> {
  for (const s of slots) {
    try {
      const r = await fetch(`${s.url}/_emulator/requests`);
      fs.writeFileSync(path.join(work, `emulator-${s.slot}-requests.json`), await r.text());
    } catch {
      // The emulator is gone: its log file is all there is.
    }
  }
}
