#!/usr/bin/env node
import { group, runMain } from "../../provider/cli/command";
import { streamReplayCommand } from "../stream-replay";
import { kbcSuite } from "./kbc";
import { sdkGoSuite } from "./sdk-go";

// `npm run fidelity -- <kbc|sdk-go|stream> [options]`: how faithfully the emulator serves Keboola's
// own clients, measured with their own test suites (CONTRIBUTING.md, "Fidelity"). Not part of `npm test`:
// each needs a source tree of the client, and the Go suites need Go.
//   kbc     keboola-as-code's CLI e2e suite (test/cli) with the real kbc      (kbc.ts)
//   sdk-go  keboola-sdk-go's tests of pkg/keboola                              (sdk-go.ts)
//   stream  keboola-as-code's recorded Stream API cases (scripts/stream-replay.ts)
// The process ends once its suite is done, even while a front or proxy still holds the event loop
// (runMain gives them 200 ms).

export const fidelityCommand = group({
  name: "fidelity",
  program: "npm run fidelity --",
  summary: "Keboola's own clients' test suites run unchanged against the emulator",
  noun: "suite",
  exitCodes: "exit code: 0 every in-scope test passed (stream: replayed), 1 a test failed, or an error (wrong arguments too)",
  commands: { kbc: kbcSuite, "sdk-go": sdkGoSuite, stream: streamReplayCommand },
});

if (require.main === module) runMain(fidelityCommand);
