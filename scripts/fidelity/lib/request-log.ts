import * as fs from "node:fs";

// Every request through the fronts and the S3 bridge, one JSON line each (`requests.jsonl`).
// The reports read it back to tie non-2xx answers to the failing tests that got them.

export interface RequestLogEntry {
  /** When the request arrived (epoch ms). */
  t: number;
  ms?: number;
  /** The slot (emulator index) that served it, when known. */
  emu?: number;
  ua?: string;
  method: string;
  url: string;
  status: number;
  /** Set when the runner answered (or changed the answer) instead of the emulator: shim, what-if. */
  shim?: string;
  /** The emulator's own status when the runner answered instead. */
  emulatorStatus?: number;
  /** The beginning of an error answer's body, or the runner's own error. */
  err?: string;
  /** The S3 host the request was sent to (S3 bridge). */
  s3?: string;
  /** A request the proxy refused (no network here). */
  proxy?: boolean;
}

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
    try {
      out.push(JSON.parse(line) as RequestLogEntry);
    } catch {
      // A line cut short by an interrupted run.
    }
  }
  return out;
}
