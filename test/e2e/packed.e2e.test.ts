// The path a new user takes: the packed package installed into a fresh program directory with
// `npm install keboola-pulumi @pulumi/pulumi` and nothing else (no TypeScript of its own, so Pulumi
// compiles the program with the TypeScript it bundles), a TypeScript program using every resource
// class as the README and docs/configurations.md show them, and a tsconfig like
// examples/quickstart's. `pulumi preview` and `pulumi up` must work, and the state must store each
// resource's provider as a short reference to the installed package.
import { afterAll, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator/server";
import { packAndInstall } from "../../scripts/lib/packed";
import { type PulumiWorkspace, REPO_ROOT, initEmulatorStack, makePulumiWorkspace, ok } from "./helpers/pulumi";
import { referenceOf } from "../../provider/program/reference";

const TOKEN = "e2e-packed-token-0123456789";

// The program begins on its second line, so that its first is a marker line of its own.
const PROGRAM = `
// docs:example Overview
import * as keboola from "keboola-pulumi";
// docs:end Overview

// docs:example Source Sink SourceSettings SinkSettings Overview
const events = new keboola.Source("events", { name: "App Events" });
// docs:end Source SourceSettings

const actions = new keboola.Sink("actions", {
  sourceId: events.sourceId,
  name: "User actions",
  tableId: "in.c-app.actions",
  columns: [
    { type: "uuid", name: "id" },
    { type: "datetime", name: "received_at" },
    { type: "path", name: "user", path: "user.id", rawString: true },
    { type: "template", name: "summary", rawString: true,
      template: { content: "Body('user.id') + ' did ' + Body('action', 'nothing')" } },
  ],
});
// docs:end Sink SinkSettings Overview

// docs:example SourceSettings
new keboola.SourceSettings("events-settings", { sourceId: events.sourceId, stagingUploadTrigger: { interval: "10s" } });
// docs:end SourceSettings
// docs:example SinkSettings
new keboola.SinkSettings("actions-settings", {
  sourceId: events.sourceId,
  sinkId: actions.sinkId,
  targetImportTrigger: { interval: "5m", count: 10000 },
});
// docs:end SinkSettings

// docs:example VariableConfig ComponentConfig JobRun Flow Schedule
const vars = new keboola.VariableConfig("vars", {
  name: "Users variables",
  variables: [{ name: "limit", type: "int" }],
  defaultValues: { limit: "10" },
});
// docs:end VariableConfig
const users = new keboola.ComponentConfig("users", {
  componentId: "keboola.ex-generic-v2",
  name: "Users",
  variables: vars.binding(),
  configuration: { parameters: { api: { baseUrl: "https://api.example.com/" }, config: { outputBucket: "in.c-users", jobs: [{ endpoint: "users", params: { limit: "{{limit}}" } }] } } },
  rows: [{ name: "active", configuration: { parameters: { status: "active" } } }],
});
// docs:end ComponentConfig Flow Schedule
new keboola.JobRun("users-run", { componentId: "keboola.ex-generic-v2", configId: users.configId, variableValuesData: { limit: "5" } });
// docs:end JobRun

// docs:example Flow Schedule
const nightly = new keboola.Flow("nightly", {
  name: "Nightly",
  phases: [{ name: "extract", tasks: [{ componentId: "keboola.ex-generic-v2", configId: users.configId }] }],
});
// docs:end Flow
export const nextRuns = new keboola.Schedule("nightly", { name: "Nightly", cron: "0 3 * * *", timezone: "Europe/Prague", target: nightly.target() }).nextRuns;
// docs:end Schedule

// docs:example Source Overview
export const ingestionUrl = events.url; // secret
// docs:end Source Overview
`;

let emu: Emulator;
let ws: PulumiWorkspace;
let installDir: string;

afterAll(async () => {
  await ws?.cleanup();
  await emu?.close();
  if (installDir) fs.rmSync(installDir, { recursive: true, force: true });
});


describe("e2e: the packed package in a fresh TypeScript program", () => {
  it("compiles with the TypeScript Pulumi bundles, previews, deploys and stores a short provider reference", async () => {
    emu = await startEmulator({ token: TOKEN, taskDurationMs: 10 });
    installDir = fs.mkdtempSync(path.join(os.tmpdir(), "keboola-packed-"));
    const nodeModules = packAndInstall(installDir);
    expect(fs.existsSync(path.join(nodeModules, "typescript"))).toBe(false); // Pulumi's own TypeScript compiles it

    ws = await makePulumiWorkspace({ project: "packed" });
    ws.writeProgram({ "index.ts": PROGRAM, "tsconfig.json": fs.readFileSync(path.join(REPO_ROOT, "examples/quickstart/tsconfig.json"), "utf8") });
    fs.rmSync(path.join(ws.programDir, "node_modules"), { recursive: true, force: true });
    fs.symlinkSync(nodeModules, path.join(ws.programDir, "node_modules"), "dir");
    await initEmulatorStack(ws, emu.url, TOKEN);

    const preview = ok(await ws.preview([], { timeoutMs: 300_000 }));
    expect(preview.stdout).toMatch(/\+ 10 to create/); // the 9 resources and the stack
    expect(emu.writes()).toEqual([]);
    ok(await ws.up([], { timeoutMs: 300_000 }));
    ok(await ws.previewExpectNoChanges([], { timeoutMs: 300_000 }));

    // Each resource stores a reference to the installed package's runtime naming the resource
    // (provider/program/reference.ts), not the provider's code.
    const resources = (await ws.stackResources()).filter((r) => r.type.includes("keboola:"));
    expect(resources).toHaveLength(9);
    for (const r of resources) {
      const provider = String(r.inputs?.__provider ?? "");
      expect(provider).toMatch(/^exports\.handler = \(\) => require\("keboola-pulumi\/runtime"\)\.resourceProvider\(/);
      expect(referenceOf(provider)?.urn).toBe(r.urn);
      expect(provider.length).toBeLessThanOrEqual(r.urn.length + 200);
      // The recorded source position is the program's line that declared the resource, and the
      // stack holds the program's frames only (provider/registration.ts).
      const r2 = r as typeof r & { sourcePosition?: string; stackTrace?: Array<{ sourcePosition?: string }> };
      expect(r2.sourcePosition).toMatch(/^project:\/\/\/index\.(ts|js)#\d+/);
      expect((r2.stackTrace ?? []).every((f) => !/node_modules/.test(f.sourcePosition ?? ""))).toBe(true);
    }
    ok(await ws.destroy([], { timeoutMs: 300_000 }));
  }, 600_000);
});
