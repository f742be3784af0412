// A whole stack in a development branch through the real Pulumi CLI (issue 26): the quickstart
// manifest deployed by a production stack, then by a `pr-1` stack with stack config
// `keboola:branch pr-1`, which creates the branch and deploys into it with zero writes to the
// default branch (from the emulator's request log), leaves out what a development branch cannot
// hold, keeps the production stack without changes, and on destroy removes the branch and all in
// it; and the branch's create, under a lost answer and under a crash during its job, leaves exactly
// one branch.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator/server";
import { makeRootProject, type RootProject } from "../../scripts/lib/root-project";
import { REPO_ROOT, ok } from "./helpers/pulumi";
import { pulumiKilledWhen } from "./helpers/kill";

const TOKEN = "e2e-dev-branch-token-5d1e";
const QUICKSTART = path.join(REPO_ROOT, "examples/quickstart/keboola.yaml");

/** The writes addressing the default branch: its storage (with or without the branch in the path), Stream, the Scheduler, the queue. */
function defaultBranchWrites(e: Emulator, writes: Array<{ method: string; path: string }>): string[] {
  const main = String(e.state.project.defaultBranchId);
  return writes
    .map((w) => `${w.method} ${w.path.replace(/\?.*$/, "")}`)
    .filter((w) => {
      const p = w.slice(w.indexOf(" ") + 1);
      if (p.startsWith("/v2/storage/dev-branches")) return false; // the project's branches themselves
      if (p.startsWith(`/v2/storage/branch/default/`) || p.startsWith(`/v2/storage/branch/${main}/`)) return true;
      if (/^\/v2\/storage\/(buckets|tables|files|components|configurations)/.test(p)) return true; // paths without a branch: the default one
      return /^\/v1\/branches\/(default|\d+)\//.test(p) || p.startsWith("/schedules") || p.startsWith("/jobs");
    });
}

let emu: Emulator;
let prod: RootProject;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dev-branch-e2e-"));

const branchesNamed = (name: string) => Object.values(emu.state.storage.branches).filter((b) => b.name === name);
const bucketsIn = (branchId: number) => Object.values(emu.state.storage.buckets).filter((b) => b.branchId === branchId).map((b) => b.id).sort();
const configsIn = (branchId: number) =>
  Object.values(emu.state.storage.configs)
    .filter((c) => c.branchId === branchId && !c.isDeleted)
    .map((c) => `${c.componentId}/${c.name}`)
    .sort();

async function stackOn(prefix: string, manifest: string, branch?: string): Promise<RootProject> {
  return makeRootProject({ prefix, host: emu.url, token: TOKEN, manifest, config: { usersApiToken: { secret: "users-api-token-e2e-dev" }, ...(branch ? { "keboola:branch": branch } : {}) } });
}

beforeAll(async () => {
  emu = await startEmulator({ token: TOKEN, taskDurationMs: 10 });
  prod = await stackOn("production", QUICKSTART);
  ok(await prod.pulumi(["up", "--yes", "--skip-preview"]));
}, 240_000);
afterAll(async () => {
  await prod?.cleanup();
  await emu?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("e2e: a stack in a development branch (keboola:branch)", () => {
  it("deploys the quickstart manifest into branch pr-1 with zero writes to the default branch, leaves production without changes, and destroy removes the branch and all in it", async () => {
    const main = emu.state.project.defaultBranchId;
    ok(await prod.pulumi(["preview", "--expect-no-changes"]));
    const prodConfigs = configsIn(main);
    const pr = await stackOn("pr-1", QUICKSTART, "pr-1");
    try {
      const from = emu.writes().length;
      const up = ok(await pr.pulumi(["up", "--yes"]));
      // What the branch cannot hold is named, with the reason.
      expect(up.stdout + up.stderr).toMatch(/development branch "pr-1" \(stack config keboola:branch\), which cannot hold sources events with their sinks raw, actions and settings \(the Stream service serves only the default branch\)/);
      const upWrites = emu.writes().slice(from);
      expect(defaultBranchWrites(emu, upWrites)).toEqual([]);

      const [branch] = branchesNamed("pr-1");
      expect(branchesNamed("pr-1")).toHaveLength(1);
      expect(bucketsIn(branch.id)).toEqual(["in.c-reference"]);
      // The branch began as a copy of production's configurations; the stack took the copies over (one each).
      expect(configsIn(branch.id)).toEqual(prodConfigs);
      const countries = Object.values(emu.state.storage.tables).find((t) => t.branchId === branch.id && t.name === "countries");
      expect(countries?.rows.length).toBeGreaterThan(0);

      ok(await pr.pulumi(["preview", "--expect-no-changes"]));
      ok(await prod.pulumi(["preview", "--expect-no-changes"]));
      expect(configsIn(main)).toEqual(prodConfigs);

      const beforeDestroy = emu.writes().length;
      ok(await pr.pulumi(["destroy", "--yes", "--skip-preview"]));
      expect(defaultBranchWrites(emu, emu.writes().slice(beforeDestroy))).toEqual([]);
      expect(branchesNamed("pr-1")).toHaveLength(0);
      expect(bucketsIn(branch.id)).toEqual([]);
      expect(configsIn(branch.id)).toEqual([]);
      ok(await prod.pulumi(["preview", "--expect-no-changes"]));
    } finally {
      await pr.cleanup();
    }
  }, 300_000);

  it("a lost answer to the branch's create leaves exactly one branch, and the up converges", async () => {
    const manifest = path.join(dir, "lost.yaml");
    fs.writeFileSync(manifest, "buckets:\n  scratch: { name: scratch }\n");
    const pr = await stackOn("pr-2", manifest, "pr-2");
    try {
      const before = emu.faultCounts().byMethod.POST?.lost ?? 0;
      emu.setFaults({ rateLostResponse: 1, limit: 1, methods: ["POST"], pathPrefixes: ["/v2/storage/dev-branches"] });
      const up = await pr.pulumi(["up", "--yes", "--skip-preview"]);
      emu.setFaults({});
      expect((emu.faultCounts().byMethod.POST?.lost ?? 0) - before, "one lost answer injected").toBe(1);
      ok(up);
      expect(branchesNamed("pr-2")).toHaveLength(1);
      ok(await pr.pulumi(["preview", "--expect-no-changes"]));
      ok(await pr.pulumi(["destroy", "--yes", "--skip-preview"]));
      expect(branchesNamed("pr-2")).toHaveLength(0);
    } finally {
      await pr.cleanup();
    }
  }, 180_000);

  it("a crash during the branch's create job: after `pulumi cancel`, the next up takes the branch back and makes no second one", async () => {
    // Slow jobs, so that the kill lands while the branch's create job runs.
    const slow = await startEmulator({ token: TOKEN, taskDurationMs: 1500 });
    const manifest = path.join(dir, "crash.yaml");
    fs.writeFileSync(manifest, "buckets:\n  scratch: { name: scratch }\n");
    const pr = await makeRootProject({ prefix: "pr-3", host: slow.url, token: TOKEN, manifest, config: { "keboola:branch": "pr-3" } });
    try {
      const writes = await pulumiKilledWhen(pr.ws, ["up", "--yes", "--skip-preview", "--stack", pr.stack], REPO_ROOT, slow, (w) => w.includes("POST /v2/storage/dev-branches"));
      expect(writes.filter((w) => w === "POST /v2/storage/dev-branches")).toHaveLength(1);
      ok(await pr.pulumi(["cancel", "--yes"]));
      const up = ok(await pr.pulumi(["up", "--yes", "--skip-preview"]));
      expect(up.stdout + up.stderr).not.toMatch(/already exists|belongs to/);
      expect(Object.values(slow.state.storage.branches).filter((b) => b.name === "pr-3")).toHaveLength(1);
      ok(await pr.pulumi(["preview", "--expect-no-changes"]));
    } finally {
      await pr.cleanup();
      await slow.close();
    }
  }, 240_000);
});
