// The provider plugin (pulumi-resource-keboola) under the real Pulumi CLI, against the emulator: a
// program declares `keboola:index:<Kind>` resources, which the engine serves through the plugin it
// finds on PATH (no dynamic provider involved). Preview writes nothing; up creates; a second
// preview sees no change; an update changes in place; refresh notices an edit made outside; a bad
// input is refused at preview with the dynamic resources' text and writes nothing; the state holds
// inputs and outputs only; destroy leaves nothing.
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator/server";
import { KeboolaClient } from "../../provider/api/client";
import { initEmulatorStack, makePulumiWorkspace, ok, type PulumiWorkspace } from "./helpers/pulumi";

const TOKEN = "plugin-e2e-token-5d1c";

/** A JavaScript program declaring resources of the plugin by their type token (before any SDK exists). */
function program(description: string, extra = ""): string {
  return `const pulumi = require("@pulumi/pulumi");
const res = (type, name, args) => new pulumi.CustomResource("keboola:index:" + type, name, args);
const sales = res("Bucket", "sales", { stage: "in", name: "sales", description: ${JSON.stringify(description)}, bucketId: undefined });
const events = res("Source", "events", { name: "App events", sourceId: undefined, url: undefined });
${extra}
exports.bucketId = sales.bucketId;
exports.url = events.url;
`;
}

describe("e2e: the provider plugin under the Pulumi CLI", () => {
  let emu: Emulator;
  let ws: PulumiWorkspace;
  const client = () => new KeboolaClient({ host: emu.url, token: TOKEN, taskTimeoutSeconds: 30 });
  const writes = () => emu.writes().map((w) => `${w.method} ${w.path.replace(/\?.*$/, "")}`);

  beforeAll(async () => {
    emu = await startEmulator({ token: TOKEN, taskDurationMs: 10 });
    ws = await makePulumiWorkspace({ prefix: "plugin-e2e-", plugin: true });
    ws.writeProgram({ "index.js": program("Sales") });
    await initEmulatorStack(ws, emu.url, TOKEN);
  }, 120_000);
  afterAll(async () => {
    await ws?.cleanup();
    await emu?.close();
  });

  it("previews without writing, creates, and then sees no change", async () => {
    emu.clearRequests();
    ok(await ws.preview());
    expect(writes()).toEqual([]);
    const up = ok(await ws.up());
    expect(up.stdout).toMatch(/\+ 3 created|3 created/);
    expect((await client().storage.findBucket("default", "in.c-sales"))?.name).toBe("c-sales");
    const outputs = await ws.stackOutputs();
    expect(outputs.bucketId).toBe("in.c-sales");
    expect(outputs.url).toBe("[secret]");
    ok(await ws.previewExpectNoChanges());
  });

  it("keeps only inputs and outputs in state, the ingestion URL encrypted, the owner marker in the shared form", async () => {
    const resources = await ws.stackResources();
    const bucket = resources.find((r) => r.type === "keboola:index:Bucket");
    const source = resources.find((r) => r.type === "keboola:index:Source");
    expect(bucket?.id).toBe("in.c-sales");
    for (const r of [bucket, source]) {
      expect(Object.keys({ ...r?.inputs, ...r?.outputs }).filter((k) => k.startsWith("__"))).toEqual([]);
    }
    expect(source?.outputs?.url).toMatchObject({ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", ciphertext: expect.any(String) });
    const remote = await client().storage.findBucket("default", "in.c-sales");
    expect(remote?.metadata?.find((m) => m.key === "keboola-pulumi.owner")?.value).toBe("urn:pulumi:test::e2e::pulumi-nodejs:dynamic/keboola:Bucket::sales");
  });

  it("updates in place, and refresh brings back an edit made outside the code", async () => {
    ws.writeProgram({ "index.js": program("Sales, by day") });
    emu.clearRequests();
    ok(await ws.up());
    expect(writes()).toEqual(["POST /v2/storage/buckets/in.c-sales/metadata"]);
    await client().storage.setBucketMetadata("default", "in.c-sales", "user", [{ key: "KBC.description", value: "Edited in the UI" }]);
    const drift = await ws.previewExpectNoChanges(["--refresh"]);
    expect(drift.code).not.toBe(0);
    expect(drift.stdout).toContain("~ 1 to update");
    ok(await ws.up(["--refresh"]));
    expect((await client().storage.findBucket("default", "in.c-sales"))?.metadata?.find((m) => m.provider === "user" && m.key === "KBC.description")?.value).toBe("Sales, by day");
  });

  it("refuses a bad input at preview with the kind's own text, writing nothing", async () => {
    ws.writeProgram({ "index.js": program("Sales, by day", 'res("Bucket", "raw", { stage: "raw", name: "x" });') });
    emu.clearRequests();
    const preview = await ws.preview();
    expect(preview.code).not.toBe(0);
    expect(preview.stdout + preview.stderr).toMatch(/keboola:index:Bucket resource 'raw': property stage value \{raw\} has a problem: /);
    expect(writes()).toEqual([]);
  });

  it("destroys everything it made", async () => {
    ws.writeProgram({ "index.js": program("Sales, by day") });
    ok(await ws.destroy());
    expect(await client().storage.findBucket("default", "in.c-sales")).toBeUndefined();
    const stream = await client().stream();
    expect((await stream.listSources("default")).sources.map((s) => s.sourceId)).toEqual([]);
    expect(fs.existsSync(path.join(ws.programDir, "Pulumi.yaml"))).toBe(true);
  });
});
