// The project guard (keboola:projectId) under the real Pulumi CLI, against the emulator: a stack
// guarded to its project deploys; given a token of another project, preview, refresh, destroy,
// `keboola-pulumi drift` and the plugin's calls fail naming both projects, and the emulator's
// request log holds the verify call only (nothing else read, nothing written).
//
// The emulator serves one project: "a token of another project" is made by renaming that project
// after the stack deployed (its id and name, as `GET /v2/storage/tokens/verify` answers them), so
// the stack's stored and current config still name the project it was deployed to. Two real
// projects on one host (issue 52, part 5) are not needed for what the guard decides.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator/server";
import { describeResult, initEmulatorStack, makePulumiWorkspace, ok, runProcess, type PulumiWorkspace, type RunResult } from "./helpers/pulumi";
import { KEBOOLA_PULUMI } from "../helpers/cli";

const TOKEN = "e2e-guard-master-3b7d";
const PROJECT = 4242;
const OTHER = { id: 5151, name: "Dev sales" };
const VERIFY = "GET /v2/storage/tokens/verify";

/** Every request the emulator saw, as "METHOD path" without the query. */
const requestsOf = (emu: Emulator) => emu.requests().map((r) => `${r.method} ${r.path.replace(/\?.*$/, "")}`);

/** The command failed, naming both projects, and the emulator saw the verify call and nothing else. */
function refusedByGuard(emu: Emulator, res: RunResult, guardedTo: number, actual: { id: number; name: string }): void {
  expect(res.code, describeResult(res)).not.toBe(0);
  const said = res.stdout + res.stderr;
  expect(said).toContain(`this stack is guarded to project ${guardedTo} (keboola:projectId or KBC_PROJECT_ID) but the token belongs to project ${actual.id} (${actual.name})`);
  expect(said).toContain(`pulumi config set keboola:projectId ${actual.id}`);
  expect(said).not.toContain(TOKEN);
  const seen = requestsOf(emu);
  expect(seen.length).toBeGreaterThan(0);
  expect(new Set(seen)).toEqual(new Set([VERIFY]));
}

describe("e2e: the project guard, dynamic resources", () => {
  let emu: Emulator;
  let ws: PulumiWorkspace;
  const drift = () => runProcess(process.execPath, [KEBOOLA_PULUMI, "drift", "--stack", ws.stack], { cwd: ws.programDir, env: ws.env, timeoutMs: 120_000 });

  beforeAll(async () => {
    emu = await startEmulator({ token: TOKEN, projectId: PROJECT, taskDurationMs: 10 });
    ws = await makePulumiWorkspace({ project: "guard" });
    ws.writeProgram(
      { "index.js": `const keboola = require("keboola-pulumi");\nnew keboola.Bucket("raw", { stage: "in", name: "raw" });\nnew keboola.Source("events", { name: "Events" });\n` },
      { linkProjectPackage: true },
    );
    await initEmulatorStack(ws, emu.url, TOKEN, { "keboola:projectId": String(PROJECT) });
  }, 120_000);
  afterAll(async () => {
    await ws?.cleanup();
    await emu?.close();
  });

  it("deploys a stack guarded to its own project, having verified the token first", async () => {
    emu.clearRequests();
    ok(await ws.up());
    expect(requestsOf(emu)[0]).toBe(VERIFY);
    expect(Object.values(emu.state.storage.buckets).map((b) => b.id)).toContain("in.c-raw");
  }, 120_000);

  it("given another project's token, preview, refresh, destroy and drift fail naming both projects, and read or write nothing else", async () => {
    const own = { ...emu.state.project };
    Object.assign(emu.state.project, OTHER);
    try {
      for (const [what, run] of [
        ["preview", () => ws.preview()],
        ["refresh", () => ws.refresh()],
        ["destroy", () => ws.destroy()],
        ["keboola-pulumi drift", drift],
      ] as const) {
        emu.clearRequests();
        const res = await run();
        expect(res.code, `${what}: ${describeResult(res)}`).not.toBe(0);
        refusedByGuard(emu, res, PROJECT, OTHER);
      }
      expect(Object.values(emu.state.storage.buckets).map((b) => b.id)).toContain("in.c-raw");
    } finally {
      Object.assign(emu.state.project, own);
    }
  }, 240_000);

  it("a stack config keboola:projectId of another project fails at preview, and at refresh --run-program", async () => {
    ok(await ws.setConfig("keboola:projectId", String(OTHER.id)));
    emu.clearRequests();
    refusedByGuard(emu, await ws.preview(), OTHER.id, { id: PROJECT, name: "Emulated Project" });
    emu.clearRequests();
    refusedByGuard(emu, await ws.refresh(["--run-program"]), OTHER.id, { id: PROJECT, name: "Emulated Project" });
    // Set back to the project's own id, the stack goes on.
    ok(await ws.setConfig("keboola:projectId", String(PROJECT)));
    ok(await ws.previewExpectNoChanges());
  }, 180_000);
});

describe("e2e: the project guard, the provider plugin (a YAML program)", () => {
  let emu: Emulator;
  let ws: PulumiWorkspace;
  const RESOURCES = ["resources:", "  sales:", "    type: keboola:index:Bucket", "    properties:", "      stage: in", "      name: sales"].join("\n");

  beforeAll(async () => {
    emu = await startEmulator({ token: TOKEN, projectId: PROJECT, taskDurationMs: 10 });
    ws = await makePulumiWorkspace({ prefix: "guard-plugin-", plugin: true });
    ws.writeProgram({}, { runtime: "yaml", extraYaml: RESOURCES });
    await initEmulatorStack(ws, emu.url, TOKEN, { "keboola:projectId": String(PROJECT) });
  }, 120_000);
  afterAll(async () => {
    await ws?.cleanup();
    await emu?.close();
  });

  it("deploys when guarded to the token's project, and with another project's id fails at preview naming both, having asked only the verify call", async () => {
    emu.clearRequests();
    ok(await ws.up());
    expect(requestsOf(emu)[0]).toBe(VERIFY);
    expect(Object.values(emu.state.storage.buckets).map((b) => b.id)).toContain("in.c-sales");

    ok(await ws.setConfig("keboola:projectId", String(OTHER.id)));
    emu.clearRequests();
    refusedByGuard(emu, await ws.preview(), OTHER.id, { id: PROJECT, name: "Emulated Project" });

    // Another project's token for the stack as deployed: refresh and destroy with the stored configuration.
    ok(await ws.setConfig("keboola:projectId", String(PROJECT)));
    const own = { ...emu.state.project };
    Object.assign(emu.state.project, OTHER);
    try {
      emu.clearRequests();
      refusedByGuard(emu, await ws.refresh(), PROJECT, OTHER);
      emu.clearRequests();
      refusedByGuard(emu, await ws.destroy(), PROJECT, OTHER);
    } finally {
      Object.assign(emu.state.project, own);
    }
    expect(Object.values(emu.state.storage.buckets).map((b) => b.id)).toContain("in.c-sales");
  }, 240_000);
});
