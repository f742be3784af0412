// What a resource made through the provider plugin keeps in state, for the quickstart's shape
// (examples/yaml, the Pulumi YAML example, deployed as the README says through the plugin): its
// inputs and outputs, and nothing of ours besides (no serialized provider, no bookkeeping inputs).
// `node dist/scripts/state-size.js --plugin` prints the same figures.
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { deployYamlExample } from "../../scripts/lib/yaml-example";
import { stateBytes, type StateResource } from "../../scripts/lib/state-bytes";
import { REPO_ROOT } from "./helpers/pulumi";

describe("e2e: state of the YAML example on the provider plugin", () => {
  it("deploys, and keeps per resource only its inputs and outputs: at most 1.2 KB of them", async () => {
    const { exported, secrets } = await deployYamlExample(path.join(REPO_ROOT, "examples", "yaml"));
    for (const secret of secrets) expect(exported).not.toContain(secret);
    const state = JSON.parse(exported) as { deployment: { resources: StateResource[] } };
    const report = stateBytes(state.deployment.resources);
    expect(report.all.resources).toBe(9);
    expect([report.all.provider, report.all.bookkeeping]).toEqual([0, 0]);
    const ours = (report.all.inputs + report.all.outputs) / report.all.resources;
    expect(ours).toBeLessThanOrEqual(1200);
    expect(ours).toBeGreaterThan(300); // the figure is of real state, not of an empty one
  }, 120_000);
});
