// Deletes at the service's pace, with the real Pulumi CLI against the emulator: the service deletes a
// source's sinks and their settings with the source, so the resource classes register a Sink and
// a SourceSettings `deletedWith` their Source and a SinkSettings `deletedWith` its Sink (see
// provider/lifecycle/program.ts). Destroying sends only the source's delete; a sink or a
// SinkSettings removed from the program on its own is still deleted (or reset) by its own request.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator/server";
import { initEmulatorStack, makePulumiWorkspace, ok, type PulumiWorkspace } from "./helpers/pulumi";

const TOKEN = "e2e-deleted-with-token-0123456789";

// The program reads which sinks and settings it declares from spec.json, so a step can drop some.
const PROGRAM = `"use strict";
const fs = require("fs");
const keboola = require("keboola-pulumi");
const spec = JSON.parse(fs.readFileSync(__dirname + "/spec.json", "utf8"));

const events = new keboola.Source("events", { name: "Events" });
new keboola.SourceSettings("events-settings", { sourceId: events.sourceId, targetImportTrigger: { count: 1000 } });
for (const name of spec.sinks) {
  const sink = new keboola.Sink(name, { sourceId: events.sourceId, name, tableId: "in.c-dw." + name, columns: [{ type: "uuid", name: "id" }, { type: "body", name: "body" }] });
  if (spec.settings.includes(name)) {
    new keboola.SinkSettings(name + "-settings", { sourceId: events.sourceId, sinkId: sink.sinkId, stagingUploadTrigger: { count: 1000 } });
  }
}
`;

const COUNT = "storage.level.staging.upload.trigger.count";

let emu: Emulator;
let ws: PulumiWorkspace;

function declare(spec: { sinks: string[]; settings: string[] }): void {
  fs.writeFileSync(path.join(ws.programDir, "spec.json"), JSON.stringify(spec));
}

/** What the last command sent that could change something: method, path and status. */
function writes(): string[] {
  return emu.writes().map((w) => `${w.method} ${w.path.replace("/stream/v1/branches/default/sources", "")} ${w.status}`);
}

const sink = (sinkId: string) => emu.state.stream.sinks[`101/events/${sinkId}`];
/** A setting of a sink as the service reports it. */
async function setting(sinkId: string, key: string): Promise<{ value: unknown; defaultValue: unknown } | undefined> {
  const res = await fetch(`${emu.urls.stream}/v1/branches/default/sources/events/sinks/${sinkId}/settings`, { headers: { "X-StorageApi-Token": TOKEN } });
  return ((await res.json()) as { settings: Array<{ key: string; value: unknown; defaultValue: unknown }> }).settings.find((s) => s.key === key);
}

describe("e2e: deletedWith", () => {
  beforeAll(async () => {
    emu = await startEmulator({ token: TOKEN, taskDurationMs: 20 });
    ws = await makePulumiWorkspace({ project: "deleted-with" });
    ws.writeProgram({ "index.js": PROGRAM }, { linkProjectPackage: true });
    await initEmulatorStack(ws, emu.url, TOKEN);
    declare({ sinks: ["first", "second", "third"], settings: ["first", "second"] });
    ok(await ws.up());
    // The state records the option as derived: the engine reads it from there on destroy.
    const recorded = Object.fromEntries((await ws.stackResources()).filter((r) => r.type.includes("keboola:")).map((r) => [r.urn.split("::").pop(), r.deletedWith ?? ""]));
    const urn = (type: string, name: string) => `urn:pulumi:test::deleted-with::pulumi-nodejs:dynamic/keboola:${type}::${name}`;
    expect(recorded).toEqual({
      events: "",
      "events-settings": urn("Source", "events"),
      first: urn("Source", "events"),
      "first-settings": urn("Sink", "first"),
      second: urn("Source", "events"),
      "second-settings": urn("Sink", "second"),
      third: urn("Source", "events"),
    });
  }, 180_000);

  afterAll(async () => {
    await ws?.cleanup();
    await emu?.close();
  });

  it("resets a SinkSettings removed on its own", async () => {
    expect(await setting("second", COUNT)).toMatchObject({ value: 1000, defaultValue: 10000 });
    declare({ sinks: ["first", "second", "third"], settings: ["first"] });
    emu.clearRequests();
    ok(await ws.up());
    expect(writes()).toEqual(["PATCH /events/sinks/second/settings 202"]);
    // Reset: the default written back (the service refuses null, see resetPatch in provider/validation/settings.ts).
    expect(await setting("second", COUNT)).toMatchObject({ value: 10000, defaultValue: 10000 });
    expect(sink("second")?.deleted).toBeUndefined();
  }, 120_000);

  it("deletes a sink removed on its own, and skips the reset of the settings removed with it", async () => {
    declare({ sinks: ["first", "third"], settings: ["first"] });
    emu.clearRequests();
    ok(await ws.up());
    expect(writes()).toEqual(["DELETE /events/sinks/second 202"]);
    expect(sink("second")?.deleted).toMatchObject({ directly: true });

    declare({ sinks: ["third"], settings: [] });
    emu.clearRequests();
    ok(await ws.up());
    expect(writes()).toEqual(["DELETE /events/sinks/first 202"]);
    expect(sink("first")?.deleted).toMatchObject({ directly: true });
  }, 120_000);

  it("destroys a source with its sink and settings by the source's delete alone, leaving nothing behind", async () => {
    declare({ sinks: ["third", "fourth"], settings: ["fourth"] });
    ok(await ws.up());
    expect(await setting("fourth", COUNT)).toMatchObject({ value: 1000, defaultValue: 10000 });
    emu.clearRequests();
    ok(await ws.destroy());
    expect(writes()).toEqual(["DELETE /events 202"]);

    expect(emu.state.stream.sources["101/events"]?.deleted).toMatchObject({ directly: true });
    for (const sinkId of ["third", "fourth"]) expect(sink(sinkId)?.deleted, sinkId).toMatchObject({ directly: false });
    const active = (await (await fetch(`${emu.urls.stream}/v1/branches/default/sources`, { headers: { "X-StorageApi-Token": TOKEN } })).json()) as { sources: unknown[] };
    expect(active.sources).toEqual([]);
    expect((await ws.stackResources()).filter((r) => r.type.includes("keboola:"))).toEqual([]);
  }, 120_000);
});
