import { spawn } from "node:child_process";
import * as path from "node:path";
import { z } from "zod";
import type { RequestLogEntry } from "../../emulator/core/context";
import { FAULT_KINDS } from "../../emulator/core/faults";

// The emulator as its own node process (`npm run emulator`, built): what a user runs, and what a
// benchmark needs so that each measured side gets an identical, fresh process. An emulator inside
// the bench process would share one heap with the bench's samplers and with whatever the side
// before it left behind.

export interface EmulatorProcess {
  url: string;
  pid: number;
  /** The request log (`GET /_emulator/requests`), or only the requests served in one project. */
  requests(projectId?: number): Promise<RequestLogEntry[]>;
  clearRequests(): Promise<void>;
  close(): Promise<void>;
}

/** GET /_emulator/requests: the emulator's request log (emulator/core/context.ts RequestLogEntry). */
const requestLogSchema = z.array(
  z.object({
    method: z.string(),
    path: z.string(),
    status: z.number(),
    at: z.string(),
    fault: z.enum(FAULT_KINDS).optional(),
    droppedStatus: z.number().optional(),
    projectId: z.number().optional(),
  }),
) satisfies z.ZodType<RequestLogEntry[]>;

/** Starts `node [nodeArgs] dist/emulator/cli.js --port 0 [flags]`; answers once it printed its URL. */
export function startEmulatorProcess(flags: string[], nodeArgs: string[] = []): Promise<EmulatorProcess> {
  const cli = path.join(__dirname, "..", "..", "emulator", "cli.js");
  const child = spawn(process.execPath, [...nodeArgs, cli, "--port", "0", ...flags], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    let out = "";
    const failed = () => reject(new Error(`the emulator process exited before printing its URL:\n${stderr}`));
    child.once("exit", failed);
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf("\n");
      if (nl < 0) return;
      child.off("exit", failed);
      const url = out.slice(0, nl).trim();
      const control = async (method: string, query = "") => {
        const res = await fetch(`${url}/_emulator/requests${query}`, { method });
        if (!res.ok) throw new Error(`${method} /_emulator/requests: ${res.status}`);
        return res;
      };
      resolve({
        url,
        pid: child.pid ?? 0,
        requests: async (projectId) => requestLogSchema.parse(await (await control("GET", projectId === undefined ? "" : `?projectId=${projectId}`)).json()),
        clearRequests: async () => void (await control("DELETE")),
        close: async () => {
          if (child.exitCode === null) child.kill("SIGTERM");
          await exited;
        },
      });
    });
  });
}
