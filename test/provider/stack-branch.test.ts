import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import * as keboola from "../../provider/index";
import { declareManifest } from "../../provider/manifest/deploy";
import { loadManifest } from "../../provider/manifest/parse";
import { OWNER_KEY } from "../../provider/lifecycle/ownership";
import { UNKNOWN } from "../../provider/validation/check";
import { componentConfig, schedule, source } from "./hosted";
import { ownerUrn, startHarness, type Harness } from "./harness";
import { mockPreview, previewInputs, registeredSince } from "./preview-program";

// A whole stack in a development branch (stack config keboola:branch), previewed under Pulumi's
// mocks as the engine previews it: the stack declares its Branch once, every resource that names
// no branchId lives in it, a resource that names one keeps it; what a development branch cannot
// hold is refused at preview in a program and left out by the manifest; and a configuration in
// the branch takes over the branch's copy of production's configuration.

let h: Harness;
beforeAll(async () => {
  await mockPreview();
  // Spaces around the name are not part of it.
  pulumi.runtime.setConfig("keboola:branch", " pr-9 ");
  h = await startHarness({ taskDurationMs: 5 });
});
afterAll(async () => {
  // The SDK's config outlives this file where test files share a worker (vitest.stryker.config.mts):
  // an empty name is no branch (stackBranchName), so the next file's programs are in none.
  pulumi.runtime.setConfig("keboola:branch", "");
  await h?.close();
});

describe("keboola:branch", () => {
  it("declares the stack's Branch once; a resource naming no branchId lives in it, one naming a branch keeps it", async () => {
    const from = registeredSince();
    const inBranch = await previewInputs(() => [new keboola.Bucket("in-branch", { name: "raw" }), new keboola.Bucket("in-prod", { name: "prod", branchId: "default" })], "in-branch");
    expect(inBranch.branchId).toBe(UNKNOWN);
    expect(inBranch.__program).toMatchObject({ branch: { resource: "keboola-branch", name: "pr-9" } });
    const prod = await previewInputs(() => [new keboola.VariableConfig("vars", { name: "Vars", variables: [] })], "vars");
    expect(prod.branchId).toBe(UNKNOWN);
    const branches = registeredSince(from).filter((r) => r.type === "pulumi-nodejs:dynamic/keboola:Branch");
    expect(branches.map((b) => [b.name, b.inputs.name, b.inputs.description])).toEqual([
      ["keboola-branch", "pr-9", `Development branch of Pulumi stack "${pulumi.getStack()}" (stack config keboola:branch)`],
    ]);
    const explicit = registeredSince(from).find((r) => r.name === "in-prod");
    expect(explicit?.inputs.branchId).toBe("default");
  });

  it("refuses at preview, writing nothing, a Source and a Schedule in the stack's branch, saying why and what to do", async () => {
    const before = h.writes().length;
    const src = await previewInputs(() => [new keboola.Source("events", { name: "Events" })], "events");
    const refused = await source.check(h.ctx, {}, src);
    expect(refused.failures).toEqual([
      {
        property: "branchId",
        reason: expect.stringMatching(/^this stack deploys into development branch "pr-9" \(stack config keboola:branch\), and the Stream service serves only the default branch .*declare them only in the production stack \(in a program, when keboola\.stackBranch\(\) is undefined/),
      },
    ]);
    const sched = await previewInputs(() => [new keboola.Schedule("nightly", { name: "Nightly", cron: "0 3 * * *", target: { componentId: "keboola.ex-generic-v2", configId: "x" } })], "nightly");
    const refusedSchedule = await schedule.check(h.ctx, {}, sched);
    expect(refusedSchedule.failures).toEqual([
      { property: "target", reason: expect.stringMatching(/^this stack deploys into development branch "pr-9" \(stack config keboola:branch\), and schedules run only in the default branch/) },
    ]);
    expect(h.writes().length).toBe(before);
  });

  it("the manifest leaves out the Stream sources with their sinks and settings, and the schedules, and declares the rest in the branch", async () => {
    const from = registeredSince();
    const file = path.join(__dirname, "../../examples/quickstart/keboola.yaml");
    pulumi.runtime.setConfig("project:usersApiToken", "secret-token");
    const deployed = declareManifest(loadManifest(file), { baseDir: path.dirname(file) });
    await Promise.all(Object.values(deployed.configurations).map((c) => new Promise<void>((r) => c.urn.apply(() => r()))));
    expect(Object.keys(deployed.sources)).toEqual([]);
    expect(Object.keys(deployed.sinks)).toEqual([]);
    expect(Object.keys(deployed.sourceSettings)).toEqual([]);
    expect(Object.keys(deployed.schedules)).toEqual([]);
    expect(Object.keys(deployed.configurations)).toEqual(["users"]);
    const types = registeredSince(from).map((r) => r.type.replace("pulumi-nodejs:dynamic/keboola:", ""));
    expect(types).not.toContain("Source");
    expect(types).not.toContain("Sink");
    expect(types).toEqual(expect.arrayContaining(["Bucket", "Table", "VariableConfig", "ComponentConfig"]));
    for (const r of registeredSince(from).filter((x) => x.type !== "pulumi-nodejs:dynamic/keboola:Branch")) {
      expect(r.inputs.__program, r.name).toMatchObject({ branch: { resource: "keboola-branch" } });
    }
  });
});

describe("a configuration in a development branch of the program", () => {
  it("takes over the branch's copy of production's configuration (same id, the production stack's marker) instead of refusing it", async () => {
    const storage = h.ctx.client().storage;
    const configId = "users-shared";
    await storage.createConfig("default", "keboola.ex-generic-v2", { configurationId: configId, name: "Users", configuration: { parameters: { a: 1 } } });
    await storage.setConfigMetadata("default", "keboola.ex-generic-v2", configId, [{ key: OWNER_KEY, value: ownerUrn("users", "production") }]);
    const job = await storage.waitJob(await storage.createDevBranch({ name: "copy-test", description: "" }), "branch");
    const branchId = String((job.results as { id: number }).id);
    const inputs = { __resourceName: "users", __owner: ownerUrn("users", "pr-9"), __program: { branch: { resource: "keboola-branch", name: "copy-test" } }, branchId, componentId: "keboola.ex-generic-v2", configId, name: "Users", configuration: { parameters: { a: 2 } } };
    const checked = await componentConfig.check(h.ctx, {}, inputs);
    expect(checked.failures).toEqual([]);
    const made = await componentConfig.create(h.ctx, checked.inputs as Record<string, unknown>);
    expect(made.id).toBe(`${branchId}/keboola.ex-generic-v2/${configId}`);
    const inBranch = await storage.getConfig(branchId, "keboola.ex-generic-v2", configId);
    expect(inBranch.configuration).toEqual({ parameters: { a: 2 } });
    expect((await storage.configMetadata(branchId, "keboola.ex-generic-v2", configId)).find((m) => m.key === OWNER_KEY)?.value).toBe(ownerUrn("users", "pr-9"));
    // Production's is untouched.
    expect((await storage.getConfig("default", "keboola.ex-generic-v2", configId)).configuration).toEqual({ parameters: { a: 1 } });
    expect((await storage.configMetadata("default", "keboola.ex-generic-v2", configId)).find((m) => m.key === OWNER_KEY)?.value).toBe(ownerUrn("users", "production"));
    // Without the branch fact (a branch the program did not create), the same copy is refused.
    const { __program: _f, ...plain } = inputs;
    const refused = await componentConfig.check(h.ctx, {}, { ...plain, __owner: ownerUrn("other", "pr-10"), __resourceName: "other" });
    expect(refused.failures?.[0]?.reason).toMatch(/already exists in branch \d+ and belongs to stack "pr-9"/);
  });

  it("a configuration whose id is derived takes over the branch's copy of its production counterpart (same project, type and name in another stack), and a rerun finds it again", async () => {
    const storage = h.ctx.client().storage;
    const args = { componentId: "keboola.ex-generic-v2", name: "Derived", configuration: { parameters: { v: 1 } } };
    const prod = await componentConfig.create(h.ctx, (await componentConfig.check(h.ctx, {}, { __resourceName: "derived", __owner: ownerUrn("derived", "production"), ...args })).inputs as Record<string, unknown>);
    const prodId = String(prod.outs.configId);
    const job = await storage.waitJob(await storage.createDevBranch({ name: "derived-copy", description: "" }), "branch");
    const branchId = String((job.results as { id: number }).id);
    const inBranch = { __resourceName: "derived", __owner: ownerUrn("derived", "pr-9"), __program: { branch: { resource: "keboola-branch" } }, branchId, ...args, configuration: { parameters: { v: 2 } } };
    const checked = await componentConfig.check(h.ctx, {}, inBranch);
    expect(checked.failures).toEqual([]);
    const made = await componentConfig.create(h.ctx, checked.inputs as Record<string, unknown>);
    expect(made.outs.configId).toBe(prodId);
    // A rerun of the create (its answer lost) addresses the same configuration.
    const again = await componentConfig.create(h.ctx, checked.inputs as Record<string, unknown>);
    expect(again.outs.configId).toBe(prodId);
    const named = Object.values(h.emu.state.storage.configs).filter((c) => c.branchId === Number(branchId) && c.name === "Derived" && !c.isDeleted);
    expect(named).toHaveLength(1);
    expect((await storage.getConfig(branchId, "keboola.ex-generic-v2", prodId)).configuration).toEqual({ parameters: { v: 2 } });
    expect((await storage.getConfig("default", "keboola.ex-generic-v2", prodId)).configuration).toEqual({ parameters: { v: 1 } });
  });
});
