#!/usr/bin/env node
import { runKbc } from "./kbc";
import { runSdkGo } from "./sdk-go";
import { runStream } from "./stream";

// `npm run fidelity -- <kbc|sdk-go|stream> [options]`: how faithfully the emulator serves Keboola's
// own clients, measured with their own test suites (README "Fidelity"). Not part of `npm test`:
// each needs a source tree of the client, and the Go suites need Go.
//   kbc     keboola-as-code's CLI e2e suite (test/cli) with the real kbc      (kbc.ts)
//   sdk-go  keboola-sdk-go's tests of pkg/keboola                              (sdk-go.ts)
//   stream  keboola-as-code's recorded Stream API cases (scripts/stream-replay.ts)

const SUITES: Record<string, (argv: string[]) => Promise<number>> = { kbc: runKbc, "sdk-go": runSdkGo, stream: runStream };

const USAGE = `usage: npm run fidelity -- <kbc|sdk-go|stream> [options]   (<suite> --help for its options)
`;

async function main(): Promise<number> {
  const [suite, ...rest] = process.argv.slice(2);
  const run = suite === undefined ? undefined : SUITES[suite];
  if (!run) {
    process.stdout.write(USAGE);
    return suite === "--help" || suite === "-h" ? 0 : 2;
  }
  return run(rest);
}

main().then(
  (code) => {
    process.exitCode = code;
    // Fronts and proxies may still hold the event loop; nothing is left to wait for.
    setTimeout(() => process.exit(code), 200).unref();
  },
  (e: unknown) => {
    process.stderr.write(`fidelity: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(2);
  },
);
