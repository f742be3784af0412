#!/usr/bin/env node
import { group, processIo, runMain, type CliIo } from "./command";
import { driftCommand } from "./drift";
import { exportCommand } from "./export";
import { prCommand } from "./pr";
import { pullCommand } from "./pull";
import { reviewCommand } from "./review";
import { tryCommand } from "./try";

// `keboola-pulumi` (package.json bin): one dispatch table of the commands, each declared in its own
// file here. The modules a command runs (the resource kinds, the Pulumi SDK, the API client) load
// when it runs, never with this table: `keboola-pulumi --help`, a command's --help and wrong
// arguments answer in a fraction of the time (test/unit/lazy-modules.test.ts holds them to it).

export const keboolaPulumi = group({
  name: "keboola-pulumi",
  summary: "Keboola projects as Pulumi stacks: export, try, review, pr, drift, pull",
  noun: "command",
  exitCodes: "exit code: 0 done, 1 an error (wrong arguments too), 2 only from drift: something drifted",
  commands: { export: exportCommand, try: tryCommand, review: reviewCommand, pr: prCommand, drift: driftCommand, pull: pullCommand },
});

/** `keboola-pulumi <argv>` in process: its exit code (tests give their own io). */
export function main(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  return keboolaPulumi.run(argv, io);
}

if (require.main === module) runMain(keboolaPulumi);
