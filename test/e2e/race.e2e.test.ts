// Two stacks racing for the same ids with the real Pulumi CLI: both `pulumi up` at once declare a
// source and a configuration with the same ids. Each object must end up in exactly one stack's
// state, carrying that stack's owner marker; the other stack fails with a conflict that names
// both owners, and its destroy never touches the winner's objects.
import { afterAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator/server";
import { type PulumiWorkspace, describeResult, initEmulatorStack, makePulumiWorkspace } from "./helpers/pulumi";

const TOKEN = "e2e-race-token-0123456789";

const PROGRAM = `"use strict";
const keboola = require("keboola-pulumi");
new keboola.Source("shared", { name: "Shared" });
new keboola.ComponentConfig("config", { componentId: "keboola.ex-generic-v2", configId: "shared-config", name: "Shared" });
`;

let emu: Emulator;
const stacks: PulumiWorkspace[] = [];

afterAll(async () => {
  for (const ws of stacks) await ws.cleanup();
  await emu?.close();
});

const marker = (text: string | undefined) => /managed by keboola-pulumi: urn:pulumi:(\w+)::/.exec(text ?? "")?.[1];

describe("e2e: two stacks racing for one id", () => {
  it("gives each object to exactly one stack, refuses the other with both owners named, and never deletes the winner's", async () => {
    emu = await startEmulator({ token: TOKEN, taskDurationMs: 200 });
    for (const stack of ["alpha", "beta"]) {
      const ws = await makePulumiWorkspace({ project: "race", stack });
      ws.writeProgram({ "index.js": PROGRAM }, { linkProjectPackage: true });
      await initEmulatorStack(ws, emu.url, TOKEN);
      stacks.push(ws);
    }
    const results = await Promise.all(stacks.map((ws) => ws.up()));

    // Who holds what, by each stack's own state.
    const holders = new Map<string, string[]>();
    for (const [i, ws] of stacks.entries()) {
      for (const r of await ws.stackResources()) {
        if (!r.id || !r.type.includes("keboola:")) continue;
        holders.set(r.type, [...(holders.get(r.type) ?? []), ws.stack]);
      }
      const out = results[i].stdout + results[i].stderr;
      if (results[i].code !== 0) {
        expect(out).toMatch(/belongs to stack "(alpha|beta)" of project "race".*this resource is stack "(alpha|beta)" of project "race"/);
        expect(out).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/); // no stack trace
      }
    }
    const sourceHolders = holders.get("pulumi-nodejs:dynamic/keboola:Source") ?? [];
    const configHolders = holders.get("pulumi-nodejs:dynamic/keboola:ComponentConfig") ?? [];
    expect(sourceHolders).toHaveLength(1);
    expect(configHolders).toHaveLength(1);
    // At least one of the two ups lost at least one race.
    expect(results.filter((r) => r.code !== 0).length).toBeGreaterThanOrEqual(1);

    // The remote objects carry the marker of the stack that holds them.
    const source = Object.values(emu.state.stream.sources).find((s) => s.sourceId === "shared" && !s.deleted);
    const config = emu.state.storage.configs["101/keboola.ex-generic-v2/shared-config"];
    expect(marker(source?.description)).toBe(sourceHolders[0]);
    expect(marker(config?.changeDescription)).toBe(configHolders[0]);

    // Destroying each stack removes only what it holds: the other's object survives.
    for (const ws of stacks) {
      const res = await ws.destroy();
      expect(res.code, describeResult(res)).toBe(0);
      const sourceAlive = Object.values(emu.state.stream.sources).some((s) => s.sourceId === "shared" && !s.deleted);
      const configAlive = emu.state.storage.configs["101/keboola.ex-generic-v2/shared-config"]?.isDeleted === false;
      const destroyed = stacks.slice(0, stacks.indexOf(ws) + 1).map((w) => w.stack);
      expect(sourceAlive).toBe(!destroyed.includes(sourceHolders[0]));
      expect(configAlive).toBe(!destroyed.includes(configHolders[0]));
    }
  }, 180_000);
});
