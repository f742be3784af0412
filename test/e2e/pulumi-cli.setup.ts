import { inject } from "vitest";
import { usePulumiBinDir } from "../../scripts/lib/pulumi-workspace";

// Each end-to-end file's workspaces use the Pulumi CLI the global setup found
// (test/e2e/pulumi-cli.global.ts), without running scripts/ensure-pulumi.sh again in this worker.
usePulumiBinDir(inject("pulumiBinDir"));
