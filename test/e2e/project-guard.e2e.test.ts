// The project guard (keboola:projectId) under the real Pulumi CLI, against the emulator serving two
// projects on one host (emulator/two-projects.ts): a development project (A) and a production
// project (B), each with its own master token; as on a real stack, the token decides the project.
// A stack guarded to production deploys there; given the development project's token, preview, up,
// refresh, destroy, `keboola-pulumi drift` and the plugin's calls fail naming both projects, and the
// emulator's request log, overall and per project, holds the verify call only, served in the
// token's project: nothing else read or written in either project.
//
// How a command gets the wrong token: preview, up, drift and `--run-program` run with the stack's
// config as it is now; a plain refresh or destroy runs with the settings stored with the stack,
// which the refused `up` before it recorded (the engine stores a provider's new settings before
// the resources' calls fail).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTwoProjects, type ProjectAccess, type ProjectState, type TwoProjects } from "../../emulator";
import { describeResult, initEmulatorStack, makePulumiWorkspace, ok, runProcess, type PulumiWorkspace, type RunResult } from "./helpers/pulumi";
import { KEBOOLA_PULUMI } from "../helpers/cli";

const VERIFY = "GET /v2/storage/tokens/verify";

/** The requests the emulator saw, as "METHOD path" without the query: all, or those served in one project. */
const requestsOf = (two: TwoProjects, projectId?: number) =>
  two.emulator
    .requests()
    .filter((r) => projectId === undefined || r.projectId === projectId)
    .map((r) => `${r.method} ${r.path.replace(/\?.*$/, "")}`);

const stateOf = (two: TwoProjects, project: ProjectAccess): ProjectState => {
  const served = two.emulator.projects.find((p) => p.id === project.id);
  if (!served) throw new Error(`the emulator serves no project ${project.id}`);
  return served.state;
};
const bucketsOf = (two: TwoProjects, project: ProjectAccess) => Object.values(stateOf(two, project).storage.buckets).map((b) => b.id);
const sourcesOf = (two: TwoProjects, project: ProjectAccess) =>
  Object.values(stateOf(two, project).stream.sources)
    .filter((s) => !s.deleted)
    .map((s) => s.name);
/** What a project holds (its Storage and Stream), to compare before and after a refused command. */
const holdings = (two: TwoProjects, project: ProjectAccess) => JSON.stringify({ storage: stateOf(two, project).storage, stream: stateOf(two, project).stream });

/**
 * The command failed naming the guarded project and the token's (id and name), with no token in
 * its output; the emulator saw the verify call, served in the token's project, and nothing else in
 * either project.
 */
function refusedByGuard(two: TwoProjects, res: RunResult, guardedTo: ProjectAccess, tokenOf: ProjectAccess): void {
  expect(res.code, describeResult(res)).not.toBe(0);
  const said = res.stdout + res.stderr;
  expect(said).toContain(`this stack is guarded to project ${guardedTo.id} (keboola:projectId or KBC_PROJECT_ID) but the token belongs to project ${tokenOf.id} (${tokenOf.name})`);
  expect(said).toContain(`pulumi config set keboola:projectId ${tokenOf.id}`);
  expect(said).not.toContain(two.a.token);
  expect(said).not.toContain(two.b.token);
  const seen = requestsOf(two);
  expect(seen.length).toBeGreaterThan(0);
  expect(new Set(seen)).toEqual(new Set([VERIFY]));
  expect(new Set(requestsOf(two, tokenOf.id))).toEqual(new Set([VERIFY]));
  expect(requestsOf(two, guardedTo.id)).toEqual([]);
  expect(requestsOf(two, tokenOf.id)).toEqual(seen);
}

/** Runs each command with an empty request log, each refused by the guard; neither project changes. */
async function eachRefused(two: TwoProjects, commands: ReadonlyArray<readonly [string, () => Promise<RunResult>]>, guardedTo: ProjectAccess, tokenOf: ProjectAccess): Promise<void> {
  const before = [holdings(two, two.a), holdings(two, two.b)];
  for (const [what, run] of commands) {
    two.emulator.clearRequests();
    const res = await run();
    expect(res.code, `${what}: ${describeResult(res)}`).not.toBe(0);
    refusedByGuard(two, res, guardedTo, tokenOf);
  }
  expect([holdings(two, two.a), holdings(two, two.b)]).toEqual(before);
}

describe("e2e: the project guard, dynamic resources", () => {
  let two: TwoProjects;
  let dev: ProjectAccess;
  let prod: ProjectAccess;
  let ws: PulumiWorkspace;
  const drift = () => runProcess(process.execPath, [KEBOOLA_PULUMI, "drift", "--stack", ws.stack], { cwd: ws.programDir, env: ws.env, timeoutMs: 120_000 });

  beforeAll(async () => {
    two = await startTwoProjects({ taskDurationMs: 10 });
    [dev, prod] = [two.a, two.b];
    ws = await makePulumiWorkspace({ project: "guard" });
    ws.writeProgram(
      { "index.js": `const keboola = require("keboola-pulumi");\nnew keboola.Bucket("raw", { stage: "in", name: "raw" });\nnew keboola.Source("events", { name: "Events" });\n` },
      { linkProjectPackage: true },
    );
    await initEmulatorStack(ws, two.emulator.url, prod.token, { "keboola:projectId": String(prod.id) });
  }, 120_000);
  afterAll(async () => {
    await ws?.cleanup();
    await two?.close();
  });

  it("deploys a stack guarded to the production project into it, having verified the token first", async () => {
    two.emulator.clearRequests();
    ok(await ws.up());
    expect(requestsOf(two)[0]).toBe(VERIFY);
    expect(requestsOf(two, prod.id)).toEqual(requestsOf(two));
    expect(bucketsOf(two, prod)).toEqual(["in.c-raw"]);
    expect(sourcesOf(two, prod)).toEqual(["Events"]);
    expect(bucketsOf(two, dev)).toEqual([]);
    expect(sourcesOf(two, dev)).toEqual([]);
  }, 120_000);

  it("given the development project's token, preview, up, refresh, destroy and drift fail naming both projects, reading or writing nothing else in either", async () => {
    ok(await ws.setConfig("keboola:token", dev.token, { secret: true }));
    await eachRefused(
      two,
      [
        ["preview", () => ws.preview()],
        ["keboola-pulumi drift", drift],
        ["up", () => ws.up()],
        // With the settings stored with the stack: the refused up recorded the development token.
        ["refresh", () => ws.refresh()],
        ["destroy", () => ws.destroy()],
        ["refresh --run-program", () => ws.refresh(["--run-program"])],
        ["destroy --run-program", () => ws.destroy(["--run-program"])],
      ],
      prod,
      dev,
    );
    expect(bucketsOf(two, prod)).toEqual(["in.c-raw"]);
    expect(sourcesOf(two, prod)).toEqual(["Events"]);
    expect(bucketsOf(two, dev)).toEqual([]);
    expect(sourcesOf(two, dev)).toEqual([]);
  }, 300_000);

  it("with the production token, a stack config keboola:projectId of the development project fails at preview and at refresh --run-program; set back, the stack goes on in production", async () => {
    ok(await ws.setConfigs({ "keboola:token": { secret: prod.token }, "keboola:projectId": String(dev.id) }));
    await eachRefused(
      two,
      [
        ["preview", () => ws.preview()],
        ["refresh --run-program", () => ws.refresh(["--run-program"])],
      ],
      dev,
      prod,
    );
    ok(await ws.setConfig("keboola:projectId", String(prod.id)));
    ok(await ws.previewExpectNoChanges());
    // An up stores the production token with the stack again: a plain refresh reads production only.
    ok(await ws.up());
    two.emulator.clearRequests();
    ok(await ws.refresh());
    expect(requestsOf(two)[0]).toBe(VERIFY);
    expect(requestsOf(two).length).toBeGreaterThan(1);
    expect(requestsOf(two, prod.id)).toEqual(requestsOf(two));
  }, 240_000);
});

describe("e2e: the project guard, the provider plugin (a YAML program)", () => {
  let two: TwoProjects;
  let dev: ProjectAccess;
  let prod: ProjectAccess;
  let ws: PulumiWorkspace;
  const RESOURCES = ["resources:", "  sales:", "    type: keboola:index:Bucket", "    properties:", "      stage: in", "      name: sales"].join("\n");
  const drift = () => runProcess(process.execPath, [KEBOOLA_PULUMI, "drift", "--stack", ws.stack], { cwd: ws.programDir, env: ws.env, timeoutMs: 120_000 });

  beforeAll(async () => {
    two = await startTwoProjects({ taskDurationMs: 10 });
    [dev, prod] = [two.a, two.b];
    ws = await makePulumiWorkspace({ prefix: "guard-plugin-", plugin: true });
    ws.writeProgram({}, { runtime: "yaml", extraYaml: RESOURCES });
    await initEmulatorStack(ws, two.emulator.url, prod.token, { "keboola:projectId": String(prod.id) });
  }, 120_000);
  afterAll(async () => {
    await ws?.cleanup();
    await two?.close();
  });

  it("deploys into the production project when guarded to it, and with the development project's id fails at preview naming both", async () => {
    two.emulator.clearRequests();
    ok(await ws.up());
    expect(requestsOf(two)[0]).toBe(VERIFY);
    expect(requestsOf(two, prod.id)).toEqual(requestsOf(two));
    expect(bucketsOf(two, prod)).toEqual(["in.c-sales"]);
    expect(bucketsOf(two, dev)).toEqual([]);

    ok(await ws.setConfig("keboola:projectId", String(dev.id)));
    await eachRefused(two, [["preview", () => ws.preview()]], dev, prod);
    ok(await ws.setConfig("keboola:projectId", String(prod.id)));
    ok(await ws.previewExpectNoChanges());
  }, 180_000);

  it("given the development project's token, preview, up, refresh, destroy and drift fail naming both projects, reading or writing nothing else in either", async () => {
    ok(await ws.setConfig("keboola:token", dev.token, { secret: true }));
    await eachRefused(
      two,
      [
        ["preview", () => ws.preview()],
        ["keboola-pulumi drift", drift],
        ["up", () => ws.up()],
        // With the settings stored with the stack: the refused up recorded the development token.
        ["refresh", () => ws.refresh()],
        ["destroy", () => ws.destroy()],
        ["refresh --run-program", () => ws.refresh(["--run-program"])],
        ["destroy --run-program", () => ws.destroy(["--run-program"])],
      ],
      prod,
      dev,
    );
    expect(bucketsOf(two, prod)).toEqual(["in.c-sales"]);
    expect(bucketsOf(two, dev)).toEqual([]);
  }, 300_000);
});
