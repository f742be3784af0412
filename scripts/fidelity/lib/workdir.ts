import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

// Where a fidelity run keeps its artifacts, and its progress log. Progress goes to stderr so that
// stdout carries only the report, whose last line is the summary a caller may grep.

export type Log = (message: string) => void;

/** `given`, or `<tmp>/<prefix>-<time>`; created if missing. */
export function createWorkDir(prefix: string, given: string | undefined): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const dir = path.resolve(given ?? path.join(os.tmpdir(), `${prefix}-${stamp}`));
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** A logger that prefixes each line with the suite and the seconds since it started. */
export function makeLog(suite: string): Log {
  const started = Date.now();
  return (message) => process.stderr.write(`[${suite} ${((Date.now() - started) / 1000).toFixed(1)}s] ${message}\n`);
}

/**
 * Lowers this process's priority: the machine is shared, and a fidelity run is measurement, not a
 * build anyone waits for. Child processes are started under `nice` for the same reason.
 */
export function beNice(): void {
  try {
    os.setPriority(10);
  } catch {
    // Not allowed (e.g. already lower): running at the current priority is fine.
  }
}
