import type { ChildProcessByStdio } from "node:child_process";
import type { Readable } from "node:stream";

// The plugin's half of Pulumi's provider handshake, read by the build's check of an executable
// and by plugin-first-call alike.

/** The port a plugin process prints as its first line of stdout (Pulumi's provider handshake), or why it printed none. */
export function portOf(child: ChildProcessByStdio<null, Readable, Readable>, exited: Promise<number | null>, timeoutMs: number): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`no port on stdout after ${timeoutMs} ms`)), timeoutMs);
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      const m = /^(\d+)\n/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.on("error", reject);
    void exited.then((code) => reject(new Error(`exited (${String(code)}) before printing its port`)));
  });
}
