import { main as replay } from "../stream-replay";

// The Stream suite: keboola-as-code's recorded Stream API cases (test/stream/api) replayed
// against in-process emulators by scripts/stream-replay.ts, unchanged; its output ends with the
// `steps: <matched>/<total> matched (<pct>%)` line. The replay needs no Go, TLS or projects file:
// it reads the recorded cases and speaks to the emulator directly.

export async function runStream(argv: string[]): Promise<number> {
  await replay(argv);
  return typeof process.exitCode === "number" ? process.exitCode : 0;
}
