import type { ChildProcess } from "node:child_process";

// The processes a run starts (emulators, the test binary). They must not outlive the run, also
// when it is interrupted, or they would hold ports and CPU on a shared machine. Only these
// processes are ended, by their own handles, never by name.

const children: ChildProcess[] = [];
let installed = false;

export function track(child: ChildProcess): ChildProcess {
  children.push(child);
  if (!installed) {
    installed = true;
    process.on("exit", stopChildren);
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      process.on(signal, () => {
        stopChildren();
        process.exit(130);
      });
    }
  }
  return child;
}

export function stopChildren(): void {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) {
      try {
        c.kill("SIGTERM");
      } catch {
        // Already gone.
      }
    }
  }
}
