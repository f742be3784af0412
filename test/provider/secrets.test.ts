import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { Emulator } from "../../emulator/server";
import { componentConfig } from "./hosted";
import type { Props, ResourceContext } from "../../provider/lifecycle/types";
import { createVia, MASTER_TOKEN, startHarness, updateVia, type Harness } from "./harness";
import { isEncrypted, secretLeaves } from "../../keboola/secrets";
import { PLAIN_IN_KEBOOLA } from "../../provider/kinds/component-config/secret-values";

// `#` values of a ComponentConfig: written to Storage only as ciphertexts of the Encryption API,
// compared without encrypting again, and drift (someone else's ciphertext, a plain value) noticed.

let h: Harness;
let emu: Emulator;
let ctx: ResourceContext;

beforeAll(async () => {
  h = await startHarness({ taskDurationMs: 20 });
  emu = h.emu;
  ctx = h.ctx;
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => emu.clearRequests());

const COMPONENT = "keboola.ex-generic-v2";
const PLAIN = {
  token: "plain-api-token-5d1e",
  nested: "plain-nested-pass-77aa",
  inArray: "plain-array-key-19cc",
  row: "plain-row-password-3b0f",
};

const args = (secrets: typeof PLAIN = PLAIN): Props => ({
  componentId: COMPONENT,
  name: "Secrets",
  configuration: {
    parameters: {
      api: { baseUrl: "https://api.example.com/", http: { headers: { "#token": secrets.token } } },
      "#db": { host: "db.example.com", "#password": secrets.nested },
      accounts: [{ id: 1, "#key": secrets.inArray }, { id: 2, "#key": "" }],
      placeholder: { "#fromVariable": "{{token}}" },
    },
  },
  rows: [
    { name: "with secret", configuration: { parameters: { "#password": secrets.row } } },
    { name: "without", configuration: { parameters: { table: "users" } } },
  ],
});

/** Requests to the Encryption API since the last clear. */
const encryptCalls = () => emu.requests().filter((r) => r.method === "POST" && r.path.startsWith("/encryption/encrypt"));
const storageWrites = () => h.writes().filter((w) => !w.startsWith("POST /encryption/"));
const wholeState = () => JSON.stringify(emu.state);
const storagePath = (configId: string) => `/v2/storage/branch/default/components/${COMPONENT}/configs/${configId}`;

async function storage(method: string, path: string, body?: unknown): Promise<Props> {
  const res = await fetch(`${emu.url}${path}`, {
    method,
    headers: { "X-StorageApi-Token": MASTER_TOKEN, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return (await res.json()) as Props;
}

async function encryptFor(componentId: string, value: string): Promise<string> {
  const res = await fetch(`${emu.urls.storage}/encryption/encrypt?componentId=${componentId}&projectId=${emu.state.project.id}`, {
    method: "POST",
    headers: { "Content-Type": "text/plain" },
    body: value,
  });
  expect(res.status).toBe(200);
  return res.text();
}

async function deployed(name: string) {
  const created = await createVia(componentConfig, ctx, name, args());
  return created;
}

describe("ComponentConfig # values", () => {
  it("are written encrypted at every depth, one Encryption API call per configuration or row with secrets", async () => {
    const { outs } = await deployed("enc-create");
    const remote = await storage("GET", storagePath(String(outs.configId)));
    const leaves = [...secretLeaves(remote.configuration), ...(remote.rows as Props[]).flatMap((r) => secretLeaves(r.configuration))];
    expect(leaves.map((l) => l.value).filter((v) => v !== "" && v !== "{{token}}").every(isEncrypted)).toBe(true);
    expect(leaves.length).toBe(6);
    // The root and the row with a secret; the row without none.
    expect(encryptCalls()).toHaveLength(2);
    for (const call of encryptCalls()) expect(call.path).toMatch(new RegExp(`componentId=${COMPONENT.replace(/\./g, "\\.")}&projectId=${emu.state.project.id}$`));
    const state = wholeState();
    for (const plain of Object.values(PLAIN)) expect(state).not.toContain(plain);
    // State shows the ciphertexts; the plain texts are in the secret bookkeeping field only.
    expect(JSON.stringify({ ...outs, secretValues: undefined })).not.toMatch(/plain-/);
    expect(JSON.stringify(outs.secretValues)).toContain(PLAIN.token);
  });

  it("unchanged: no diff and no encryption; one changed secret updates that row alone, with one call", async () => {
    const { id, outs, inputs } = await deployed("enc-update");
    emu.clearRequests();
    const same = await updateVia(componentConfig, ctx, "enc-update", id, outs, inputs, args());
    expect(same.diff.changes).toBe(false);
    expect(encryptCalls()).toHaveLength(0);
    expect(emu.writes()).toHaveLength(0);

    const changed = await updateVia(componentConfig, ctx, "enc-update", id, outs, inputs, args({ ...PLAIN, row: "plain-row-password-NEW1" }));
    expect(changed.diff.changes).toBe(true);
    expect(encryptCalls()).toHaveLength(1);
    expect(storageWrites()).toEqual([`PUT ${storagePath(String(outs.configId))}/rows/${(outs.rowIds as string[])[0]}`]);
    expect(wholeState()).not.toContain("plain-row-password-NEW1");
    // The root's ciphertexts are still the ones first written.
    expect((changed.outs as Props).configuration).toEqual(outs.configuration);
    emu.clearRequests();
    const again = await updateVia(componentConfig, ctx, "enc-update", id, changed.outs as Props, changed.inputs, args({ ...PLAIN, row: "plain-row-password-NEW1" }));
    expect(again.diff.changes).toBe(false);
    expect(encryptCalls()).toHaveLength(0);
  });

  it("someone else's ciphertext is drift: read shows it, and the update writes ours back without encrypting", async () => {
    const { id, outs, inputs } = await deployed("enc-drift");
    const path = storagePath(String(outs.configId));
    const before = await storage("GET", path);
    const theirs = await encryptFor(COMPONENT, "their-token");
    const configuration = structuredClone(before.configuration) as { parameters: { api: { http: { headers: Props } } } };
    configuration.parameters.api.http.headers["#token"] = theirs;
    await storage("PUT", path, { configuration, changeDescription: "someone else" });

    const read = await componentConfig.read(ctx, id, outs);
    const refreshed = read.props as Props;
    expect(JSON.stringify(refreshed.configuration)).toContain(theirs);
    expect(refreshed.configuration).not.toEqual(outs.configuration);
    emu.clearRequests();
    const fixed = await updateVia(componentConfig, ctx, "enc-drift", id, refreshed, inputs, args());
    expect(fixed.diff.changes).toBe(true);
    expect(encryptCalls()).toHaveLength(0);
    expect((await storage("GET", path)).configuration).toEqual(before.configuration);
  });

  it("a plain value someone wrote under a # key is drift, and its text never enters state", async () => {
    const { id, outs, inputs } = await deployed("enc-plain");
    const path = storagePath(String(outs.configId));
    const before = await storage("GET", path);
    await storage("PUT", path, { configuration: { ...(before.configuration as Props), "#leaked": "someone-wrote-this-plain" }, changeDescription: "someone else" });
    const read = await componentConfig.read(ctx, id, outs);
    const refreshed = read.props as Props;
    expect(JSON.stringify(read)).not.toContain("someone-wrote-this-plain");
    expect((refreshed.configuration as Props)["#leaked"]).toBe(PLAIN_IN_KEBOOLA);
    const fixed = await updateVia(componentConfig, ctx, "enc-plain", id, refreshed, inputs, args());
    expect(fixed.diff.changes).toBe(true);
    expect((await storage("GET", path)).configuration).toEqual(before.configuration);
  });

  it("a ciphertext literal (as export writes it) is written as it is, without calling the Encryption API", async () => {
    const cipher = await encryptFor(COMPONENT, "exported-secret");
    emu.clearRequests();
    const { outs } = await createVia(componentConfig, ctx, "enc-literal", { componentId: COMPONENT, name: "Literal", configuration: { "#token": cipher } });
    expect(encryptCalls()).toHaveLength(0);
    expect((await storage("GET", storagePath(String(outs.configId)))).configuration).toEqual({ "#token": cipher });
  });

  it("a refresh of an unchanged configuration changes nothing in state", async () => {
    const { id, outs } = await deployed("enc-refresh");
    const read = await componentConfig.read(ctx, id, outs);
    expect(read.props).toEqual(outs);
  });
});

describe("literal, non-secret # values of a program", () => {
  it("check warns of each, naming the resource, the path and the fix, never the value, and writes nothing", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    try {
      const checked = await componentConfig.check(ctx, {}, {
        __resourceName: "literal",
        __program: { plainSecrets: ["configuration.parameters.#token", "rows[0].configuration.#password"] },
        componentId: COMPONENT,
        name: "Literal",
        configuration: { parameters: { "#token": "literal-value-xyz" } },
        rows: [{ name: "r", configuration: { "#password": "literal-row-xyz" } }],
      });
      expect(checked.failures).toEqual([]);
      const lines = warn.mock.calls.map((c) => String(c[0]));
      expect(lines).toEqual([
        expect.stringMatching(/^warning: ComponentConfig "literal": configuration\.parameters\.#token is a literal, non-secret value, .*Pass pulumi\.secret\(\.\.\.\) or read it from stack config/),
        expect.stringMatching(/^warning: ComponentConfig "literal": rows\[0\]\.configuration\.#password is a literal/),
      ]);
      expect(lines.join("\n")).not.toMatch(/literal-(value|row)-xyz/);
      expect(emu.writes()).toEqual([]);
    } finally {
      warn.mockRestore();
    }
  });
});

