// Stacks created by an earlier version keep working: their state holds the provider that version
// serialized (a closure calling `keboola-pulumi/runtime`, not a reference to a kind module) and no
// owner marker. Phase 1 registers resources exactly as version 0.1.0 did (its shim, copied below);
// phase 2 switches the program to today's classes. Refresh, an update, a delete run by the old
// serialized provider, a no-change preview and destroy must all work through the real CLI.
import { afterAll, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator/server";
import { type PulumiWorkspace, initEmulatorStack, makePulumiWorkspace, ok } from "./helpers/pulumi";

const TOKEN = "e2e-upgrade-token-0123456789";

// provider/shim.ts and resources/common.ts#resourceArgs of keboola-pulumi 0.1.0 (commit eab4aec).
const OLD_PROGRAM = `"use strict";
const pulumi = require("@pulumi/pulumi");
function providerFor(kind) {
  const rt = () => require("keboola-pulumi/runtime");
  return {
    configure: async (req) => rt().configure(req.config),
    check: async (olds, news) => await rt().call(kind, "check", [olds, news]),
    diff: async (id, olds, news) => await rt().call(kind, "diff", [id, olds, news]),
    create: async (inputs) => await rt().call(kind, "create", [inputs]),
    read: async (id, props) => await rt().call(kind, "read", [id, props]),
    update: async (id, olds, news) => await rt().call(kind, "update", [id, olds, news]),
    delete: async (id, props) => { await rt().call(kind, "delete", [id, props]); },
  };
}
const register = (kind, type, outputs, secrets) => (name, args) => new pulumi.dynamic.Resource(
  providerFor(kind), name,
  { ...Object.fromEntries(outputs.map((o) => [o, undefined])), ...args, __resourceName: name },
  { additionalSecretOutputs: secrets }, "keboola", type);
const Source = register("source", "Source", ["sourceId", "branchId", "projectId", "branch", "url", "baseUrl", "secret", "description", "type"], ["url", "baseUrl", "secret"]);
const Sink = register("sink", "Sink", ["sinkId", "branchId", "projectId", "branch", "enabled", "description"], []);
const kept = Source("kept", { name: "Kept" });
Source("changed", { name: "Changed", description: "before" });
Sink("removed", { sourceId: kept.sourceId, name: "Removed", tableId: "in.c-upgrade.removed", columns: [{ type: "uuid", name: "id" }] });
`;

const NEW_PROGRAM = `"use strict";
const keboola = require("keboola-pulumi");
new keboola.Source("kept", { name: "Kept" });
new keboola.Source("changed", { name: "Changed", description: "after" });
`;

let emu: Emulator;
let ws: PulumiWorkspace;

afterAll(async () => {
  await ws?.cleanup();
  await emu?.close();
});


const live = () => ({
  sources: Object.values(emu.state.stream.sources).filter((s) => !s.deleted).map((s) => `${s.sourceId}:${s.description.split("\n")[0]}`).sort(),
  sinks: Object.values(emu.state.stream.sinks).filter((s) => !s.deleted).map((s) => s.sinkId),
});

describe("e2e: upgrading a stack created by keboola-pulumi 0.1.0", () => {
  it("refreshes, updates, deletes with the old serialized provider, previews no changes and destroys", async () => {
    emu = await startEmulator({ token: TOKEN, taskDurationMs: 10 });
    ws = await makePulumiWorkspace({ project: "upgrade" });
    ws.writeProgram({ "index.js": OLD_PROGRAM }, { linkProjectPackage: true });
    await initEmulatorStack(ws, emu.url, TOKEN);
    ok(await ws.up());
    const oldProviders = (await ws.stackResources()).filter((r) => r.type.includes("keboola:")).map((r) => String(r.outputs?.__provider ?? ""));
    expect(oldProviders.every((p) => p.includes('require("keboola-pulumi/runtime")') && !p.includes("keboola-pulumi/kinds/"))).toBe(true);
    expect(live()).toEqual({ sources: ["changed:before", "kept:"], sinks: ["removed"] });

    // Phase 1 ran today's runtime: put its state into the shape 0.1.0 stored (resources/source.ts
    // and sink.ts at eab4aec): the declared branch as `branch`, the service's numeric one as `branchId`.
    const exported = await ws.exportStack();
    let rewritten = 0;
    for (const r of exported.deployment.resources ?? []) {
      if (!/keboola:(Source|Sink)$/.test(r.type) || !r.outputs) continue;
      r.outputs.branch = r.outputs.branchId;
      r.outputs.branchId = Number(String(r.id).split("/")[0]);
      rewritten++;
    }
    expect(rewritten).toBe(3);
    const file = path.join(ws.programDir, "old-state.json");
    fs.writeFileSync(file, JSON.stringify(exported));
    ok(await ws.pulumi(["stack", "import", "--file", file]));
    expect((await ws.stackResources()).filter((r) => typeof r.outputs?.branchId === "number")).toHaveLength(3);

    fs.writeFileSync(path.join(ws.programDir, "index.js"), NEW_PROGRAM);
    ok(await ws.refresh(["--expect-no-changes"]));
    // Refresh rewrote the state in today's shape, without showing a change.
    const refreshed = (await ws.stackResources()).filter((r) => /keboola:(Source|Sink)$/.test(r.type));
    expect(refreshed.map((r) => [r.outputs?.branchId, r.outputs?.branch])).toEqual([["default", undefined], ["default", undefined], ["default", undefined]]);
    const up = ok(await ws.up());
    expect(up.stdout).toMatch(/1 updated/);
    expect(up.stdout).toMatch(/1 deleted/);
    expect(live()).toEqual({ sources: ["changed:after", "kept:"], sinks: [] });
    ok(await ws.previewExpectNoChanges());
    ok(await ws.destroy());
    expect(live()).toEqual({ sources: [], sinks: [] });
  }, 180_000);
});
