// After the token is rotated and set with `pulumi config set --secret keboola:token <new>`, a plain
// `pulumi refresh` still runs with the config stored in the state (not the program), so it fails,
// with a message that says what works: `--run-program` (which runs the program with the current
// config), for refresh and destroy alike. KBC_TOKEN does not: configured settings win over the
// environment (provider/config.ts), the stored keboola:token included.
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
  it("after `pulumi config set`, refresh says what works, KBC_TOKEN does not override the stored keboola:token, and --run-program works for refresh and destroy", async () => {
    emu = await startEmulator({ token: OLD, taskDurationMs: 10 });
    ws = await makePulumiWorkspace({ project: "rotation" });
    ws.writeProgram({ "index.js": `new (require("keboola-pulumi").Source)("events", { name: "Events" });\n` }, { linkProjectPackage: true });
    await initEmulatorStack(ws, emu.url, OLD);
    ok(await ws.up());

    // Rotate: the old token stops working, a new one with the same rights replaces it.
    const master = emu.state.tokens.find((t) => t.token === OLD)!;
    master.token = NEW;

    ok(await ws.setConfig("keboola:token", NEW, { secret: true }));
    const refused = await ws.refresh();
    expect(refused.code).not.toBe(0);
    const said = refused.stdout + refused.stderr;
    expect(said).toMatch(/Source "events": reading \(refresh\) failed: .*401.*set the valid one with `pulumi config set --secret keboola:token <token>`, then run them with --run-program \(`pulumi refresh --run-program`, `pulumi destroy --run-program`\)/);
    expect(said).not.toContain(NEW);
    expect(said).not.toContain(OLD);

    // The environment does not override what the stack's last deployment configured.
    const withEnv = await ws.refresh([], { env: { KBC_TOKEN: NEW } });
    expect(withEnv.code, describeResult(withEnv)).not.toBe(0);
    expect(withEnv.stdout + withEnv.stderr).toMatch(/401/);

    const runProgram = await ws.refresh(["--run-program"]);
    expect(runProgram.code, describeResult(runProgram)).toBe(0);
    const destroyed = await ws.destroy(["--run-program"]);
    expect(destroyed.code, describeResult(destroyed)).toBe(0);
    expect(Object.values(emu.state.stream.sources).filter((s) => !s.deleted)).toEqual([]);
  }, 120_000);
});
