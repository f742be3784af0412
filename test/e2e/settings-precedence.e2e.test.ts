// Configured wins over the environment (provider/config.ts): a stack whose config holds token T
// deploys with T even when KBC_TOKEN holds another token of the same project, one that may write
// nothing (created without bucket permissions, and not a master token, so Stream refuses it too).
// Only once the stack's config has no token does KBC_TOKEN count, and then that token's refusal
// shows that the first `up` could not have written with it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator/server";
import { type PulumiWorkspace, describeResult, initEmulatorStack, makePulumiWorkspace, ok } from "./helpers/pulumi";

const TOKEN = "e2e-precedence-master-5f21";

const program = (buckets: string[]) =>
  [
    `const keboola = require("keboola-pulumi");`,
    ...buckets.map((b) => `new keboola.Bucket(${JSON.stringify(b)}, { stage: "in", name: ${JSON.stringify(b)} });`),
    `new keboola.Source("events", { name: "Events" });`,
    "",
  ].join("\n");

let emu: Emulator;
let ws: PulumiWorkspace;
let readOnly: string;

beforeAll(async () => {
  emu = await startEmulator({ token: TOKEN, taskDurationMs: 10 });
  // A token of the same project that may write nothing: created with no permission at all.
  const res = await fetch(`${emu.url}/v2/storage/tokens`, {
    method: "POST",
    headers: { "X-StorageApi-Token": TOKEN, "Content-Type": "application/json" },
    body: JSON.stringify({ description: "read only" }),
  });
  expect(res.status).toBe(201);
  const created: unknown = await res.json();
  if (typeof created !== "object" || created === null || !("token" in created) || typeof created.token !== "string") throw new Error("POST /v2/storage/tokens answered no token");
  readOnly = created.token;
  ws = await makePulumiWorkspace({ project: "precedence" });
  ws.writeProgram({ "index.js": program(["raw"]) }, { linkProjectPackage: true });
  await initEmulatorStack(ws, emu.url, TOKEN);
}, 120_000);

afterAll(async () => {
  await ws?.cleanup();
  await emu?.close();
});

describe("e2e: configured settings win over the environment", () => {
  it("up writes with the stack config's token although KBC_TOKEN holds another", async () => {
    const up = await ws.up([], { env: { KBC_TOKEN: readOnly } });
    expect(up.code, describeResult(up)).toBe(0);
    expect(Object.values(emu.state.storage.buckets).map((b) => b.id)).toContain("in.c-raw");
    expect(Object.values(emu.state.stream.sources).filter((s) => !s.deleted).map((s) => s.name)).toEqual(["Events"]);
  }, 120_000);

  it("KBC_TOKEN counts once the stack's config has no token, and that token may write nothing", async () => {
    ok(await ws.pulumi(["config", "rm", "keboola:token", "--stack", ws.stack]));
    ws.writeProgram({ "index.js": program(["raw", "more"]) }, { linkProjectPackage: true });
    emu.clearRequests();
    const up = await ws.up([], { env: { KBC_TOKEN: readOnly } });
    expect(up.code, describeResult(up)).not.toBe(0);
    expect(up.stdout + up.stderr).toMatch(/403/);
    expect(emu.writes().filter((w) => w.status < 400)).toEqual([]);
    expect(Object.values(emu.state.storage.buckets).map((b) => b.id)).not.toContain("in.c-more");
  }, 120_000);
});
