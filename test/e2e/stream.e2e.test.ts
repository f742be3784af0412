// End to end with the real Pulumi CLI against the emulator: an HTTP and an OTLP source with sinks
// covering every column type and settings, through up, preview, refresh and destroy, including
// drift, a mapping change, and a mapping that does not fit its table caught at preview.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator/server";
import { describeResult, initEmulatorStack, makePulumiWorkspace, type PulumiWorkspace, type RunResult } from "./helpers/pulumi";

const TOKEN = "e2e-master-token-0123456789";

// The program reads its declarations from spec.json, so a test step can change them.
const PROGRAM = `"use strict";
const fs = require("fs");
const keboola = require("keboola-pulumi");
const spec = JSON.parse(fs.readFileSync(__dirname + "/spec.json", "utf8"));

const web = new keboola.Source("web", { name: "Web Events", description: "from the web app", ...(spec.web || {}) });
const otel = new keboola.Source("otel", { name: "Otel", type: "otlp" });

const sinks = {};
for (const [name, args] of Object.entries(spec.sinks)) {
  const parent = args.source === "otel" ? otel : web;
  const { source, ...rest } = args;
  sinks[name] = new keboola.Sink(name, { sourceId: parent.sourceId, ...rest });
}

new keboola.SourceSettings("web-settings", { sourceId: web.sourceId, targetImportTrigger: { interval: "1m", count: 1000 } });
new keboola.SinkSettings("raw-settings", { sourceId: web.sourceId, sinkId: sinks.raw.sinkId, stagingUploadTrigger: { interval: "5s", size: "1MB" }, syncWait: false });

exports.webUrl = web.url;
exports.otelSecret = otel.secret;
exports.sinkIds = Object.values(sinks).map((s) => s.sinkId);
`;

const SPEC = {
  sinks: {
    raw: {
      name: "Raw",
      tableId: "in.c-e2e.raw",
      columns: [
        { type: "uuid", name: "id" },
        { type: "datetime", name: "at" },
        { type: "ip", name: "ip" },
        { type: "headers", name: "headers" },
        { type: "body", name: "body" },
      ],
    },
    actions: {
      name: "Actions",
      tableId: "in.c-e2e.actions",
      columns: [
        { type: "uuid", name: "id" },
        { type: "path", name: "user", path: "user.id", defaultValue: "anonymous", rawString: true },
        { type: "template", name: "summary", rawString: true, template: { content: "Body('user.id', '?') + ' ' + Body('action', 'none')" } },
      ],
    },
    logs: {
      source: "otel",
      name: "Logs",
      tableId: "in.c-e2e.logs",
      allowedSignals: ["logs"],
      columns: [
        { type: "uuid", name: "id" },
        { type: "body", name: "record" },
      ],
    },
  },
};

type Spec = typeof SPEC & { sinks: Record<string, unknown>; web?: { rotateSecret?: string; enabled?: boolean } };

let emu: Emulator;
let ws: PulumiWorkspace;

function writeSpec(spec: Spec): void {
  fs.writeFileSync(path.join(ws.programDir, "spec.json"), JSON.stringify(spec, null, 2));
}

function ok(res: RunResult): RunResult {
  expect(res.code, describeResult(res)).toBe(0);
  return res;
}

async function streamGet<T>(p: string): Promise<{ status: number; body: T }> {
  const res = await fetch(`${emu.urls.stream}${p}`, { headers: { "X-StorageApi-Token": TOKEN } });
  return { status: res.status, body: (await res.json()) as T };
}

async function waitTask(task: { url: string }): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const res = await fetch(task.url, { headers: { "X-StorageApi-Token": TOKEN } });
    const t = (await res.json()) as { isFinished: boolean; status: string };
    if (t.isFinished) {
      expect(t.status).toBe("success");
      return;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("task did not finish");
}

const stateText = () =>
  fs
    .readdirSync(ws.stateDir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => fs.readFileSync(path.join(e.parentPath, e.name), "utf8"))
    .join("\n");

describe("e2e: Stream resources with the real Pulumi CLI", () => {
  beforeAll(async () => {
    emu = await startEmulator({ token: TOKEN, taskDurationMs: 20 });
    ws = await makePulumiWorkspace({ project: "stream-e2e" });
    ws.writeProgram({ "index.js": PROGRAM }, { linkProjectPackage: true });
    writeSpec(SPEC);
    await initEmulatorStack(ws, emu.url, TOKEN);
  }, 120_000);

  afterAll(async () => {
    await ws?.cleanup();
    await emu?.close();
  });

  it("creates everything with up, then previews no changes", async () => {
    ok(await ws.up());
    const sources = await streamGet<{ sources: Array<{ sourceId: string }> }>("/v1/branches/default/sources");
    expect(sources.body.sources.map((s) => s.sourceId).sort()).toEqual(["otel", "web-events"]);
    const sinks = await streamGet<{ sinks: Array<{ sinkId: string; table: { mapping: { columns: unknown[] } } }> }>("/v1/branches/default/sources/web-events/sinks");
    expect(sinks.body.sinks.map((s) => s.sinkId).sort()).toEqual(["actions", "raw"]);
    const settings = await streamGet<{ settings: Array<{ key: string; value: unknown; overwritten: boolean }> }>("/v1/branches/default/sources/web-events/sinks/raw/settings");
    expect(settings.body.settings.find((s) => s.key === "storage.level.local.encoding.sync.wait")).toMatchObject({ value: false, overwritten: true });

    ok(await ws.previewExpectNoChanges());
  }, 120_000);

  it("never stores the token or an ingestion URL in plain text", async () => {
    const outputs = await ws.stackOutputs({ showSecrets: true });
    const url = String(outputs.webUrl);
    expect(url).toMatch(/\/stream\/\d+\/web-events\/[A-Za-z0-9]{48}$/);
    const secret = url.split("/").pop()!;
    const state = stateText();
    expect(state).not.toContain(TOKEN);
    expect(state).not.toContain(secret);
    expect(state).not.toContain(String(outputs.otelSecret));
    expect((await ws.stackOutputs()).webUrl).toBe("[secret]");
  });

  it("shows exactly the changed sink as an update in preview --diff, then applies it", async () => {
    const changed = structuredClone(SPEC) as Spec;
    changed.sinks.actions.columns[1] = { type: "path", name: "user", path: "user.uid", defaultValue: "anonymous", rawString: true };
    writeSpec(changed);
    const preview = ok(await ws.previewDiff());
    expect(preview.stdout).toMatch(/~ pulumi-nodejs:dynamic\/keboola:Sink: \(update\)\n\s+\[id=101\/web-events\/actions\]/);
    expect(preview.stdout).toContain('"user.uid"');
    expect(preview.stdout.match(/\(update\)/g)).toHaveLength(1);
    expect(preview.stdout).not.toMatch(/\((create|delete|replace)\)/);
    ok(await ws.up());
    const actions = await streamGet<{ table: { mapping: { columns: Array<{ path?: string }> } } }>("/v1/branches/default/sources/web-events/sinks/actions");
    expect(actions.body.table.mapping.columns[1].path).toBe("user.uid");
    ok(await ws.pulumi(["refresh", "--yes", "--skip-preview", "--expect-no-changes"]));
  }, 120_000);

  it("notices a sink deleted behind its back on refresh, and brings it back with up", async () => {
    const del = await fetch(`${emu.urls.stream}/v1/branches/default/sources/web-events/sinks/raw`, { method: "DELETE", headers: { "X-StorageApi-Token": TOKEN } });
    expect(del.status).toBe(202);
    await waitTask((await del.json()) as { url: string });
    const refresh = ok(await ws.refresh());
    expect(refresh.stdout).toMatch(/- pulumi-nodejs:dynamic\/keboola:Sink raw deleted|raw\s+deleted/);
    ok(await ws.up());
    expect((await streamGet("/v1/branches/default/sources/web-events/sinks/raw")).status).toBe(200);
    ok(await ws.previewExpectNoChanges());
  }, 120_000);

  it("fails at preview, writing nothing, when a mapping does not match an existing table", async () => {
    const clash = structuredClone(SPEC) as Spec;
    clash.sinks.actions.columns[1] = { type: "path", name: "user", path: "user.uid", defaultValue: "anonymous", rawString: true };
    clash.sinks.clash = { name: "Clash", tableId: "in.c-e2e.raw", columns: [{ type: "uuid", name: "id" }, { type: "body", name: "body" }] };
    writeSpec(clash);
    emu.clearRequests();
    const preview = await ws.preview();
    expect(preview.code).not.toBe(0);
    const text = preview.stdout + preview.stderr;
    expect(text).toContain("table columns:   [id, at, ip, headers, body]");
    expect(text).toContain("mapping columns: [id, body]");
    expect(emu.writes()).toEqual([]);
    expect(emu.requests().length).toBeGreaterThan(0);
    const spec = structuredClone(SPEC) as Spec;
    spec.sinks.actions.columns[1] = clash.sinks.actions.columns[1];
    writeSpec(spec);
  }, 120_000);

  it("keeps tracking a sink whose creation failed halfway, and finishes it on the next up", async () => {
    const spec = structuredClone(SPEC) as Spec;
    spec.sinks.actions.columns[1] = { type: "path", name: "user", path: "user.uid", defaultValue: "anonymous", rawString: true };
    spec.sinks.paused = { name: "Paused", tableId: "in.c-e2e.paused", enabled: false, columns: [{ type: "uuid", name: "id" }] };
    writeSpec(spec);
    emu.setFaults({ failTasks: ["api.disable.sink"] });
    const failed = await ws.up();
    emu.setFaults({});
    expect(failed.code, describeResult(failed)).not.toBe(0);
    expect(failed.stdout + failed.stderr).toMatch(/Sink "web-events\/paused" \(resource "paused"\).*failed: Unknown error/);
    const tracked = (await ws.stackResources()).filter((r) => r.type === "pulumi-nodejs:dynamic/keboola:Sink" && r.urn.endsWith("::paused"));
    expect(tracked).toHaveLength(1);
    expect(tracked[0]!.id).toBe("101/web-events/paused");

    ok(await ws.up());
    const paused = await streamGet<{ disabled?: unknown }>("/v1/branches/default/sources/web-events/sinks/paused");
    expect(paused.body.disabled).toBeDefined();
    ok(await ws.previewExpectNoChanges());
  }, 120_000);

  /** The last spec the steps above leave: the changed mapping and the paused sink. */
  const lastSpec = (): Spec => {
    const spec = structuredClone(SPEC) as Spec;
    spec.sinks.actions.columns[1] = { type: "path", name: "user", path: "user.uid", defaultValue: "anonymous", rawString: true };
    spec.sinks.paused = { name: "Paused", tableId: "in.c-e2e.paused", enabled: false, columns: [{ type: "uuid", name: "id" }] };
    return spec;
  };
  const ingest = async (url: string) => {
    const res = await fetch(url, { method: "POST", body: JSON.stringify({ user: { id: "u1" } }), headers: { "Content-Type": "application/json" } });
    return { status: res.status, body: await res.text() };
  };

  it("rotates a leaked ingestion URL in place: one rotation, the old URL refused, no change after", async () => {
    const before = String((await ws.stackOutputs({ showSecrets: true })).webUrl);
    expect((await ingest(before)).status).toBeLessThan(300);
    const spec = lastSpec();
    spec.web = { rotateSecret: "leak-1" };
    writeSpec(spec);
    const preview = ok(await ws.previewDiff());
    expect(preview.stdout).toMatch(/~ pulumi-nodejs:dynamic\/keboola:Source: \(update\)\n\s+\[id=101\/web-events\]/);
    expect(preview.stdout.match(/\(update\)/g)).toHaveLength(1);
    emu.clearRequests();
    ok(await ws.up());
    expect(emu.requests().filter((r) => r.path.endsWith("/rotate-secret"))).toHaveLength(1);
    const after = String((await ws.stackOutputs({ showSecrets: true })).webUrl);
    expect(after).not.toBe(before);
    const refused = await ingest(before);
    expect(refused.status).toBe(404);
    expect(JSON.parse(refused.body)).toMatchObject({ error: "stream.in.noSourceFound" });
    expect((await ingest(after)).status).toBeLessThan(300);
    expect(stateText()).not.toContain(after.split("/").pop()!);
    ok(await ws.previewExpectNoChanges());
    ok(await ws.pulumi(["refresh", "--yes", "--skip-preview", "--expect-no-changes"]));
  }, 120_000);

  it("disables a source in place (its sinks follow with no diff of their own) and enables it again", async () => {
    const spec = lastSpec();
    spec.web = { rotateSecret: "leak-1", enabled: false };
    writeSpec(spec);
    ok(await ws.up());
    const source = await streamGet<{ disabled?: unknown }>("/v1/branches/default/sources/web-events");
    expect(source.body.disabled).toBeDefined();
    const raw = await streamGet<{ disabled?: { reason: string } }>("/v1/branches/default/sources/web-events/sinks/raw");
    expect(raw.body.disabled?.reason).toBe("Auto-disabled with the parent source.");
    ok(await ws.previewExpectNoChanges());
    ok(await ws.pulumi(["refresh", "--yes", "--skip-preview", "--expect-no-changes"]));
    spec.web = { rotateSecret: "leak-1", enabled: true };
    writeSpec(spec);
    ok(await ws.up());
    expect((await streamGet<{ disabled?: unknown }>("/v1/branches/default/sources/web-events/sinks/raw")).body.disabled).toBeUndefined();
    ok(await ws.previewExpectNoChanges());
  }, 120_000);

  it("destroys everything, leaving the emulator without sources and sinks", async () => {
    ok(await ws.destroy());
    const sources = await streamGet<{ sources: unknown[] }>("/v1/branches/default/sources");
    expect(sources.body.sources).toEqual([]);
    expect(await ws.stackResources()).toEqual([]);
  }, 120_000);
});
