// A fleet of 115 resources (10 sources x 5 sinks with their SinkSettings, 4 configurations with
// rows, a VariableConfig) deployed with the real Pulumi CLI while the emulator injects 10% 429,
// 5% 5xx, 5% connection resets and 5% lost answers into every request. It must converge in at
// most two `pulumi up` runs, then preview no changes, with no duplicate, no orphan, no purge and
// no object of another owner touched; destroy then leaves nothing behind.
import { afterAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator/server";
import { type PulumiWorkspace, type RunResult, describeResult, initEmulatorStack, makePulumiWorkspace } from "./helpers/pulumi";

const TOKEN = "e2e-fleet-token-0123456789";
const SOURCES = 10;
const SINKS = 5;
const CONFIGS = 4;

const PROGRAM = `"use strict";
const keboola = require("keboola-pulumi");
for (let i = 0; i < ${SOURCES}; i++) {
  const src = new keboola.Source("src-" + i, { name: "Fleet " + i });
  for (let j = 0; j < ${SINKS}; j++) {
    const snk = new keboola.Sink("sink-" + i + "-" + j, {
      sourceId: src.sourceId, name: "Out " + j, tableId: "in.c-fleet.t" + i + "_" + j,
      columns: [{ type: "uuid", name: "id" }, { type: "body", name: "body" }],
    });
    new keboola.SinkSettings("settings-" + i + "-" + j, { sourceId: src.sourceId, sinkId: snk.sinkId, stagingUploadTrigger: { count: 100 + j } });
  }
}
const vars = new keboola.VariableConfig("vars", { name: "Fleet vars", variables: [{ name: "limit" }], defaultValues: { limit: "10" } });
for (let k = 0; k < ${CONFIGS}; k++) {
  new keboola.ComponentConfig("cfg-" + k, {
    componentId: "keboola.ex-generic-v2", name: "Fleet config " + k, variables: vars.binding(),
    configuration: { parameters: { api: { baseUrl: "https://example.com/" }, config: { jobs: [{ endpoint: "e" + k, params: { limit: "{{limit}}" } }] } } },
    rows: [{ name: "r1" }, { name: "r2" }],
  });
}
`;

let emu: Emulator;
let ws: PulumiWorkspace;

afterAll(async () => {
  await ws?.cleanup();
  await emu?.close();
});

const summary = (r: RunResult) => describeResult(r).slice(-3000);

function inventory() {
  const sources = Object.values(emu.state.stream.sources).filter((s) => !s.deleted);
  const sinks = Object.values(emu.state.stream.sinks).filter((s) => !s.deleted);
  const configs = Object.values(emu.state.storage.configs);
  return {
    sources: sources.length,
    sinks: sinks.length,
    liveConfigs: configs.filter((c) => !c.isDeleted).length,
    trashed: configs.filter((c) => c.isDeleted).length,
    rows: configs.filter((c) => !c.isDeleted).reduce((n, c) => n + c.rows.length, 0),
  };
}

describe("e2e: a fleet under 429s, 5xx, resets and lost answers", () => {
  it("converges in at most two ups with no duplicate, orphan, purge or foreign object touched", async () => {
    emu = await startEmulator({ token: TOKEN, taskDurationMs: 20 });
    // Another owner's source and configuration, created through the API before the fleet.
    const headers = { "X-StorageApi-Token": TOKEN, "Content-Type": "application/json" };
    await fetch(`${emu.urls.stream}/v1/branches/default/sources`, { method: "POST", headers, body: JSON.stringify({ sourceId: "foreign", name: "Foreign", type: "http" }) });
    await fetch(`${emu.url}/v2/storage/branch/default/components/keboola.ex-generic-v2/configs`, {
      method: "POST",
      headers: { "X-StorageApi-Token": TOKEN, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ name: "Foreign config", configurationId: "foreign-config" }).toString(),
    });
    const foreign = () => ({
      source: JSON.stringify(Object.values(emu.state.stream.sources).find((s) => s.sourceId === "foreign")),
      config: JSON.stringify(emu.state.storage.configs["101/keboola.ex-generic-v2/foreign-config"]),
    });
    // Wait for the foreign source's create task to finish (reads settle due tasks).
    while (!Object.values(emu.state.stream.sources).some((s) => s.sourceId === "foreign")) {
      await fetch(`${emu.url}/_emulator/state`);
      await new Promise((r) => setTimeout(r, 10));
    }
    const foreignBefore = foreign();

    ws = await makePulumiWorkspace({ project: "fleet" });
    ws.writeProgram({ "index.js": PROGRAM }, { linkProjectPackage: true });
    await initEmulatorStack(ws, emu.url, TOKEN);

    emu.clearRequests();
    emu.setFaults({ seed: 7, rate429: 0.1, retryAfterSeconds: 0, rate5xx: 0.05, rateReset: 0.05, rateLostResponse: 0.05 });
    const ups: RunResult[] = [await ws.up(["--parallel", "16"], { timeoutMs: 600_000 })];
    if (ups[0].code !== 0) ups.push(await ws.up(["--parallel", "16"], { timeoutMs: 600_000 }));
    expect(ups.at(-1)!.code, summary(ups.at(-1)!)).toBe(0);
    const preview = await ws.previewExpectNoChanges([], { timeoutMs: 300_000 });
    expect(preview.code, summary(preview)).toBe(0);

    // Each kind of fault was really injected, writes included.
    const counts = emu.faultCounts();
    for (const kind of ["429", "5xx", "reset", "lost"] as const) expect(counts[kind], `${kind} injected`).toBeGreaterThan(0);
    const writeFaults = (kind: "5xx" | "reset" | "lost") => ["POST", "PUT", "PATCH", "DELETE"].reduce((n, m) => n + (counts.byMethod[m]?.[kind] ?? 0), 0);
    expect(writeFaults("lost"), "lost answers to writes").toBeGreaterThan(0);
    expect(writeFaults("5xx") + writeFaults("reset"), "5xx and resets of writes").toBeGreaterThan(0);

    console.info(`fleet: converged after ${ups.length} up(s); faults injected: 429=${counts["429"]} 5xx=${counts["5xx"]} reset=${counts.reset} lost=${counts.lost} (writes: lost=${writeFaults("lost")}, 5xx+reset=${writeFaults("5xx") + writeFaults("reset")})`);

    // Exactly the declared objects, plus the foreign ones, untouched.
    expect(inventory()).toEqual({ sources: SOURCES + 1, sinks: SOURCES * SINKS, liveConfigs: CONFIGS + 2, trashed: 0, rows: CONFIGS * 2 + 1 });
    expect(foreign()).toEqual(foreignBefore);

    const destroys: RunResult[] = [await ws.destroy(["--parallel", "16"], { timeoutMs: 600_000 })];
    if (destroys[0].code !== 0) destroys.push(await ws.destroy(["--parallel", "16"], { timeoutMs: 600_000 }));
    expect(destroys.at(-1)!.code, summary(destroys.at(-1)!)).toBe(0);
    emu.setFaults({});
    // Only the foreign objects remain; the fleet's configurations sit in the trash, none purged.
    expect(inventory()).toEqual({ sources: 1, sinks: 0, liveConfigs: 1, trashed: CONFIGS + 1, rows: 0 });
    expect(foreign()).toEqual(foreignBefore);
  }, 900_000);
});
