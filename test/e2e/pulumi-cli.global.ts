import type { TestProject } from "vitest/node";
import { ensurePulumiBinDir } from "../../scripts/lib/pulumi-workspace";

// The end-to-end project's global setup: scripts/ensure-pulumi.sh once, in vitest's main process
// before any end-to-end file starts, instead of once in each file's worker (each run is about half
// a second: two `node` and a `pulumi version`). A first run that builds the CLI (minutes) happens
// here too, not inside a file's hook timeout. Each file takes the directory in
// test/e2e/pulumi-cli.setup.ts. Only the e2e project has it: `npm run test:fast` needs no CLI.

declare module "vitest" {
  export interface ProvidedContext {
    /** The directory holding the Pulumi CLI that scripts/ensure-pulumi.sh provides. */
    pulumiBinDir: string;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  project.provide("pulumiBinDir", await ensurePulumiBinDir());
}
