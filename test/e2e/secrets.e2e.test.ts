// End to end with the real Pulumi CLI: `#` values of configurations (root, rows, nested arrays),
// declared as Pulumi secrets in a program and under `secrets:` in a manifest, reach Keboola only
// as ciphertexts of the Encryption API. Whole emulator state (configurations, rows, every version)
// and every command's output are searched for the plain texts. No-change preview and refresh,
// exactly one configuration updated when one secret changes, drift from someone else's
// ciphertext, a job of the encrypted configuration succeeding, and one holding another
// component's ciphertext failing with the runner's message.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator/server";
import { initEmulatorStack, makePulumiWorkspace, ok, type PulumiWorkspace, type RunResult } from "./helpers/pulumi";
import { makeRootProject, type RootProject } from "../../scripts/lib/root-project";
import { isEncrypted, passesUnencrypted, secretLeaves } from "../../keboola/secrets";

const TOKEN = "master-token-secrets-e2e";
const COMPONENT = "keboola.ex-generic-v2";
const PLAIN = {
  token: "prog-api-token-6f2a91",
  nested: "prog-nested-pass-0c3d7e",
  inArray: "prog-array-key-9b1f44",
  row: "prog-row-password-5e8a20",
  changed: "prog-api-token-CHANGED-77",
  manifestToken: "manifest-token-1d4c9b",
  manifestRow: "manifest-row-pass-83f0aa",
};
const LITERAL = "literal-plain-in-program-4a7e";

const PROGRAM = `"use strict";
const pulumi = require("@pulumi/pulumi");
const keboola = require("keboola-pulumi");
const cfg = new pulumi.Config("e2e");

const api = new keboola.ComponentConfig("api", {
  componentId: "${COMPONENT}",
  name: "API with secrets",
  configuration: {
    parameters: {
      api: { baseUrl: "https://api.example.com/", http: { headers: { "#token": cfg.requireSecret("token") } } },
      "#db": { host: "db.example.com", "#password": cfg.requireSecret("nested") },
      accounts: [{ id: 1, "#key": cfg.requireSecret("inArray") }, { id: 2, "#key": "" }],
      config: { outputBucket: "in.c-api", jobs: [{ endpoint: "users" }] },
    },
  },
  rows: [
    { name: "With secret", configuration: { parameters: { "#password": cfg.requireSecret("row") } } },
    { name: "Plain", configuration: { parameters: { config: { status: "open" } } } },
  ],
});
const other = new keboola.ComponentConfig("other", {
  componentId: "${COMPONENT}",
  name: "Untouched by a secret change",
  configuration: { parameters: { "#token": cfg.requireSecret("nested") } },
});

if (cfg.getBoolean("literal")) {
  new keboola.ComponentConfig("literal", { componentId: "${COMPONENT}", name: "Literal", configuration: { "#token": "${LITERAL}" } });
}
if (cfg.get("run")) {
  const run = new keboola.JobRun("run", { componentId: api.componentId, configId: api.configId, triggers: [cfg.get("run")] });
  exports.jobStatus = run.status;
}
if (cfg.get("foreignCipher")) {
  const foreign = new keboola.ComponentConfig("foreign", { componentId: "${COMPONENT}", name: "Foreign", configuration: { "#token": cfg.get("foreignCipher") } });
  new keboola.JobRun("run-foreign", { componentId: foreign.componentId, configId: foreign.configId });
}
exports.apiId = api.configId;
exports.otherId = other.configId;
exports.rowIds = api.rowIds;
`;


describe("e2e: secrets reach Keboola encrypted", () => {
  let emu: Emulator;
  let ws: PulumiWorkspace;
  const outputs: string[] = [];

  /** Every `#` value of every configuration, row and version the emulator keeps. */
  const storedSecretValues = (): string[] => {
    const values: string[] = [];
    for (const c of Object.values(emu.state.storage.configs)) {
      values.push(...secretLeaves(c.configuration).map((l) => l.value));
      for (const r of c.rows) values.push(...secretLeaves(r.configuration).map((l) => l.value));
    }
    return values;
  };
  const encryptCalls = () => emu.requests().filter((r) => r.method === "POST" && r.path.startsWith("/encryption/encrypt"));
  const run = async (p: Promise<RunResult>) => {
    const res = await p;
    outputs.push(res.stdout, res.stderr);
    return res;
  };
  const api = () => fetchJson(`/v2/storage/branch/default/components/${COMPONENT}/configs/${apiId}`);
  let apiId = "";

  async function fetchJson(p: string, init: RequestInit = {}): Promise<Record<string, unknown>> {
    const res = await fetch(`${emu.url}${p}`, { ...init, headers: { "X-StorageApi-Token": TOKEN, "Content-Type": "application/json", ...(init.headers ?? {}) } });
    const text = await res.text();
    expect(res.status, text).toBeLessThan(300);
    return JSON.parse(text) as Record<string, unknown>;
  }

  beforeAll(async () => {
    emu = await startEmulator({ token: TOKEN, taskDurationMs: 20 });
    ws = await makePulumiWorkspace({ project: "secrets" });
    ws.writeProgram({ "index.js": PROGRAM }, { linkProjectPackage: true });
    await initEmulatorStack(ws, emu.url, TOKEN, Object.fromEntries((["token", "nested", "inArray", "row"] as const).map((key) => [`e2e:${key}`, { secret: PLAIN[key] }])));
  }, 30 * 60 * 1000);

  afterAll(async () => {
    await ws?.cleanup();
    await emu?.close();
  });

  it("deploys only ciphertexts, previews and refreshes with no change and no encryption, updates exactly the changed configuration", async () => {
    emu.clearRequests();
    ok(await run(ws.up()));
    // The root of each configuration and the one row with a secret: three requests.
    expect(encryptCalls()).toHaveLength(3);
    const outs = await ws.stackOutputs();
    apiId = String(outs.apiId);
    const values = storedSecretValues();
    expect(values.filter((v) => !passesUnencrypted(v)).length).toBe(5);
    expect(values.every((v) => isEncrypted(v) || passesUnencrypted(v))).toBe(true);

    // Every version of the configuration and of its rows holds ciphertexts only.
    const versions = (await fetchJson(`/v2/storage/branch/default/components/${COMPONENT}/configs/${apiId}/versions`)) as unknown as Array<{ version: number }>;
    expect(versions.length).toBeGreaterThan(0);
    for (const v of versions) {
      const detail = await fetchJson(`/v2/storage/branch/default/components/${COMPONENT}/configs/${apiId}/versions/${v.version}`);
      const leaves = [...secretLeaves(detail.configuration), ...((detail.rows as Array<{ configuration: unknown }> | undefined) ?? []).flatMap((r) => secretLeaves(r.configuration))];
      for (const leaf of leaves) expect(isEncrypted(leaf.value) || passesUnencrypted(leaf.value), `version ${v.version}`).toBe(true);
    }

    emu.clearRequests();
    ok(await run(ws.previewExpectNoChanges()));
    ok(await run(ws.refresh(["--expect-no-changes"])));
    ok(await run(ws.previewExpectNoChanges()));
    expect(encryptCalls()).toHaveLength(0);
    expect(emu.writes()).toEqual([]);

    // One changed secret: one request, and only that configuration is written.
    ok(await ws.setConfig("e2e:token", PLAIN.changed, { secret: true }));
    emu.clearRequests();
    ok(await run(ws.up()));
    expect(encryptCalls()).toHaveLength(1);
    const writes = emu.writes().filter((w) => !w.path.startsWith("/encryption/")).map((w) => `${w.method} ${w.path.replace(/\?.*$/, "")}`);
    expect(writes).toEqual([`PUT /v2/storage/branch/default/components/${COMPONENT}/configs/${apiId}`]);
    ok(await run(ws.previewExpectNoChanges()));

    // The plain texts are nowhere in the emulator, nor in any output (nor in state outside secrets).
    const everything = JSON.stringify(emu.state) + JSON.stringify(emu.requests()) + outputs.join("\n");
    for (const plain of [PLAIN.token, PLAIN.nested, PLAIN.inArray, PLAIN.row, PLAIN.changed]) expect(everything).not.toContain(plain);
    const state = JSON.stringify(await ws.exportStack());
    for (const plain of [PLAIN.token, PLAIN.nested, PLAIN.inArray, PLAIN.row, PLAIN.changed]) expect(state).not.toContain(plain);
  }, 15 * 60 * 1000);

  it("notices someone else's ciphertext at refresh and writes ours back at the next up", async () => {
    const before = await api();
    const theirs = await (
      await fetch(`${emu.url}/encryption/encrypt?componentId=${COMPONENT}&projectId=${emu.state.project.id}`, { method: "POST", headers: { "Content-Type": "text/plain" }, body: "their-value" })
    ).text();
    const configuration = structuredClone(before.configuration) as { parameters: { "#db": Record<string, string> } };
    configuration.parameters["#db"]["#password"] = theirs;
    await fetchJson(`/v2/storage/branch/default/components/${COMPONENT}/configs/${apiId}`, { method: "PUT", body: JSON.stringify({ configuration, changeDescription: "someone else" }) });

    const refresh = await run(ws.refresh(["--expect-no-changes"]));
    expect(refresh.code).not.toBe(0);
    emu.clearRequests();
    ok(await run(ws.up()));
    expect(encryptCalls()).toHaveLength(0);
    expect((await api()).configuration).toEqual(before.configuration);
    ok(await run(ws.previewExpectNoChanges()));
  }, 10 * 60 * 1000);

  it("runs a job of the encrypted configuration; a ciphertext of another component fails its job with the runner's message", async () => {
    ok(await ws.setConfig("e2e:run", "1"));
    ok(await run(ws.up()));
    expect((await ws.stackOutputs()).jobStatus).toBe("success");

    const foreign = await (
      await fetch(`${emu.url}/encryption/encrypt?componentId=keboola.ex-http&projectId=${emu.state.project.id}`, { method: "POST", headers: { "Content-Type": "text/plain" }, body: "copied" })
    ).text();
    expect(isEncrypted(foreign)).toBe(true);
    ok(await ws.setConfig("e2e:foreignCipher", foreign));
    const up = await run(ws.up());
    expect(up.code).not.toBe(0);
    expect(up.stdout + up.stderr).toMatch(/JobRun "run-foreign": job \d+ of keboola\.ex-generic-v2 configuration kp-[0-9a-f]+ ended with status "error": Invalid cipher text for key #token/);
    ok(await ws.pulumi(["config", "rm", "--stack", ws.stack, "e2e:foreignCipher"]));
    ok(await run(ws.up()));
  }, 10 * 60 * 1000);

  it("warns of a literal, non-secret # value in the program, naming its path and the fix but not the value", async () => {
    ok(await ws.setConfig("e2e:literal", "true"));
    const preview = ok(await run(ws.preview()));
    expect(preview.stdout + preview.stderr).toMatch(/ComponentConfig "literal": configuration\.#token is a literal, non-secret value.*pulumi\.secret\(\.\.\.\)/);
    expect(preview.stdout + preview.stderr).not.toContain(LITERAL);
    ok(await ws.pulumi(["config", "rm", "--stack", ws.stack, "e2e:literal"]));
    ok(await run(ws.destroy()));
  }, 10 * 60 * 1000);
});

describe("e2e: a manifest's secrets: stack config in, ciphertexts in Keboola", () => {
  let emu: Emulator;
  let root: RootProject;
  let dir: string;

  beforeAll(async () => {
    emu = await startEmulator({ token: TOKEN, taskDurationMs: 20 });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "secrets-manifest-"));
    fs.writeFileSync(
      path.join(dir, "keboola.yaml"),
      `configurations:
  shop:
    componentId: ${COMPONENT}
    name: Shop
    configuration:
      parameters:
        api: { baseUrl: "https://shop.example.com/" }
        accounts: [{ name: main }]
        config: { outputBucket: in.c-shop, jobs: [{ endpoint: orders }] }
    secrets:
      configuration.parameters.api.#token: shopToken
      configuration.parameters.accounts.0.#key: shopToken
      rows.0.configuration.parameters.#password: shopRow
    rows:
      - { rowId: main, name: Main, configuration: { parameters: { table: orders } } }
`,
    );
    root = await makeRootProject({
      prefix: "secrets-e2e",
      host: emu.url,
      token: TOKEN,
      manifest: path.join(dir, "keboola.yaml"),
      config: { shopToken: { secret: PLAIN.manifestToken }, shopRow: { secret: PLAIN.manifestRow } },
    });
  }, 30 * 60 * 1000);

  afterAll(async () => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    await root?.cleanup();
    await emu?.close();
  });

  it("deploys ciphertexts only, then previews and refreshes with no change", async () => {
    const outputs: string[] = [];
    const up = ok(await root.pulumi(["up", "--yes", "--skip-preview"], { timeoutMs: 300_000 }));
    outputs.push(up.stdout, up.stderr);
    const cfg = Object.values(emu.state.storage.configs).find((c) => c.name === "Shop")!;
    const leaves = [...secretLeaves(cfg.configuration), ...cfg.rows.flatMap((r) => secretLeaves(r.configuration))];
    // Pulumi hands a provider its inputs with object keys sorted, so Keboola gets `accounts` before `api`.
    expect(leaves.map((l) => l.path.join("."))).toEqual(["parameters.accounts.0.#key", "parameters.api.#token", "parameters.#password"]);
    expect(leaves.every((l) => isEncrypted(l.value))).toBe(true);
    // Pulumi keeps each stack config secret secret where it is placed, not the whole configuration:
    // state (and so `pulumi preview --json`, which keboola-pulumi review reads) shows the rest.
    const state = JSON.parse(ok(await root.pulumi(["stack", "export"])).stdout) as { deployment: { resources: Array<{ type: string; inputs?: Record<string, unknown> }> } };
    const inputs = state.deployment.resources.find((r) => r.type === "pulumi-nodejs:dynamic/keboola:ComponentConfig")!.inputs!;
    const SECRET_SIG = "4dabf18193072939515e22adb298388d"; // Pulumi's secret signature key in state
    const isSecretValue = (v: unknown) => typeof v === "object" && v !== null && SECRET_SIG in v;
    const api = (inputs.configuration as { parameters: { api: Record<string, unknown> } }).parameters.api;
    expect(api.baseUrl).toBe("https://shop.example.com/");
    expect(isSecretValue(api["#token"])).toBe(true);
    // An array holding a secret is kept secret whole: the engine carries secretness from a dynamic
    // provider's inputs to what its check returns into objects but not into arrays (pulumi
    // sdk/go/common/resource/plugin/provider_plugin.go annotateSecrets). So `rows` (with a row's
    // secret) and `accounts` (with `accounts.0.#key`) are secret as a whole.
    expect(isSecretValue(inputs.rows)).toBe(true);
    expect(isSecretValue((inputs.configuration as { parameters: Record<string, unknown> }).parameters.accounts)).toBe(true);
    emu.clearRequests();
    for (const args of [["preview", "--expect-no-changes"], ["refresh", "--yes", "--expect-no-changes"], ["preview", "--expect-no-changes"]]) {
      const res = ok(await root.pulumi(args, { timeoutMs: 300_000 }));
      outputs.push(res.stdout, res.stderr);
    }
    expect(emu.writes()).toEqual([]);
    const everything = JSON.stringify(emu.state) + outputs.join("\n");
    for (const plain of [PLAIN.manifestToken, PLAIN.manifestRow]) expect(everything).not.toContain(plain);
    ok(await root.pulumi(["destroy", "--yes", "--skip-preview"], { timeoutMs: 300_000 }));
  }, 15 * 60 * 1000);
});
