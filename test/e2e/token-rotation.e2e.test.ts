// After the token is rotated, `pulumi refresh` and `pulumi destroy` (which run with the stack
// config stored in the state, not the program) work with the new token from KBC_TOKEN; without it
// they fail with a message that says so, not with a stack trace.
import { afterAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator/server";
import { type PulumiWorkspace, describeResult, initEmulatorStack, makePulumiWorkspace, ok } from "./helpers/pulumi";

const OLD = "e2e-old-token-0123456789";
const NEW = "e2e-new-token-9876543210";

let emu: Emulator;
let ws: PulumiWorkspace;

afterAll(async () => {
  await ws?.cleanup();
  await emu?.close();
});

describe("e2e: a rotated token", () => {
  it("works for refresh and destroy through KBC_TOKEN, which wins over the stored keboola:token", async () => {
    emu = await startEmulator({ token: OLD, taskDurationMs: 10 });
    ws = await makePulumiWorkspace({ project: "rotation" });
    ws.writeProgram({ "index.js": `new (require("keboola-pulumi").Source)("events", { name: "Events" });\n` }, { linkProjectPackage: true });
    await initEmulatorStack(ws, emu.url, OLD);
    ok(await ws.up());

    // Rotate: the old token stops working, a new one with the same rights replaces it.
    const master = emu.state.tokens.find((t) => t.token === OLD)!;
    master.token = NEW;

    const refused = await ws.refresh();
    expect(refused.code).not.toBe(0);
    expect(refused.stdout + refused.stderr).toMatch(/Source "events": reading \(refresh\) failed: .*401.*KBC_TOKEN wins over the token stored with the stack/);

    const withEnv = { env: { KBC_TOKEN: NEW } };
    const refreshed = await ws.refresh([], withEnv);
    expect(refreshed.code, describeResult(refreshed)).toBe(0);
    const destroyed = await ws.destroy([], withEnv);
    expect(destroyed.code, describeResult(destroyed)).toBe(0);
    expect(Object.values(emu.state.stream.sources).filter((s) => !s.deleted)).toEqual([]);
  }, 120_000);
});
