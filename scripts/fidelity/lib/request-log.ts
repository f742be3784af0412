import * as fs from "node:fs";
import { z } from "zod";

// Every request through the fronts and the S3 bridge, one JSON line each (`requests.jsonl`).
// The reports read it back to tie non-2xx answers to the failing tests that got them.

/** One line of the log. */
const requestLogEntrySchema = z.object({
  /** When the request arrived (epoch ms). */
  t: z.number(),
  ms: z.number().optional(),
  /** The slot (emulator index) that served it, when known. */
  emu: z.number().optional(),
  ua: z.string().optional(),
  method: z.string(),
  url: z.string(),
  status: z.number(),
  /** Set when the runner answered (or changed the answer) instead of the emulator: shim, what-if. */
  shim: z.string().optional(),
  /** The emulator's own status when the runner answered instead. */
  emulatorStatus: z.number().optional(),
  /** The beginning of an error answer's body, or the runner's own error. */
  err: z.string().optional(),
  /** The S3 host the request was sent to (S3 bridge). */
  s3: z.string().optional(),
  /** A request the proxy refused (no network here). */
  proxy: z.boolean().optional(),
});
export type RequestLogEntry = z.infer<typeof requestLogEntrySchema>;

export class RequestLog {
  private readonly out: fs.WriteStream;

  constructor(readonly file: string) {
    this.out = fs.createWriteStream(file);
  }

  write(entry: RequestLogEntry): void {
    this.out.write(JSON.stringify(entry) + "\n");
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.out.end(resolve));
  }
}

export function readRequestLog(file: string): RequestLogEntry[] {
  if (!fs.existsSync(file)) return [];
  const out: RequestLogEntry[] = [];
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    if (!line) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      // A line cut short by an interrupted run.
      continue;
    }
    const entry = requestLogEntrySchema.safeParse(value);
    if (entry.success) out.push(entry.data);
  }
  return out;
}
