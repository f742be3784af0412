import { describe, expect, it } from "vitest";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import { CONFIG_KEYS, resolveSettings, type ConfigKey, type ConfigName } from "../../provider/config";
import type { ClientSettings } from "../../provider/api/client";
import { configSourceOf } from "../../provider/plugin/provider-config";
import { settingsOf } from "../../provider/drift/live";
import { isDefaultProvider } from "../../provider/drift/stack";
import { SECRET_SIG, SIG_KEY } from "../../provider/lifecycle/secret-sig";

// Where each setting comes from, for every key of CONFIG_KEYS and through every place settings are
// resolved: an explicit provider's argument, then stack config, then the environment variable
// (provider/config.ts). The token is no exception (it was, before: KBC_TOKEN won over everything).

const NAMES = Object.keys(CONFIG_KEYS) as ConfigName[];
type Layer = "argument" | "stack" | "env";

/** A value of the setting that tells the layers apart: each layer's own, valid for the setting. */
function valueOf(name: ConfigName, layer: Layer): string {
  const key: ConfigKey = CONFIG_KEYS[name];
  const n = { argument: 11, stack: 22, env: 33 }[layer];
  if (key.type === "number") return String(n);
  if (name === "token") return `${layer}-token`;
  return `https://${layer}.example.com`;
}

/** The resolved settings' value of a setting, as the text it was given as. */
function resolvedOf(settings: ClientSettings, name: ConfigName): string | undefined {
  const out: Record<string, string | number | undefined> = {
    host: settings.host,
    token: settings.token,
    streamUrl: settings.streamUrl,
    queueUrl: settings.queueUrl,
    encryptionUrl: settings.encryptionUrl,
    schedulerUrl: settings.schedulerUrl,
    taskTimeout: settings.taskTimeoutSeconds,
    requestTimeout: settings.http?.requestTimeoutMs === undefined ? undefined : settings.http.requestTimeoutMs / 1000,
    projectId: settings.projectId,
  };
  expect(Object.keys(out), "resolvedOf knows every setting").toEqual(expect.arrayContaining(NAMES));
  const v = out[name];
  return v === undefined ? undefined : String(v);
}

const isSecret = (name: string): boolean => Object.entries<ConfigKey>(CONFIG_KEYS).some(([n, key]) => n === name && key.secret === true);

/** The layers a case sets, for the setting under test; the others get every required setting from stack config. */
const CASES: Array<{ layers: Layer[]; wins: Layer }> = [
  { layers: ["argument", "stack", "env"], wins: "argument" },
  { layers: ["argument", "env"], wins: "argument" },
  { layers: ["argument", "stack"], wins: "argument" },
  { layers: ["stack", "env"], wins: "stack" },
  { layers: ["env"], wins: "env" },
];

/** Host and token from stack config unless the setting under test is one of them: the rest must resolve. */
function base(name: ConfigName): Record<string, string> {
  const out: Record<string, string> = {};
  if (name !== "host") out["keboola:host"] = "https://base.example.com";
  if (name !== "token") out["keboola:token"] = "base-token";
  return out;
}

function layersFor(name: ConfigName, layers: Layer[]) {
  const stack: Record<string, string> = base(name);
  const args: Record<string, string | number> = {};
  const env: NodeJS.ProcessEnv = {};
  if (layers.includes("stack")) stack[`keboola:${name}`] = valueOf(name, "stack");
  if (layers.includes("argument")) args[name] = CONFIG_KEYS[name].type === "number" ? Number(valueOf(name, "argument")) : valueOf(name, "argument");
  if (layers.includes("env")) env[CONFIG_KEYS[name].env] = valueOf(name, "env");
  return { stack, args, env };
}

/** The value a setting should resolve to, as resolvedOf writes it. */
const expected = (name: ConfigName, layer: Layer) => resolvedOf(resolveSettings({ get: (k) => ({ ...base(name), [`keboola:${name}`]: valueOf(name, layer) })[k] }, {}), name);

describe("settings precedence: explicit argument, then stack config, then the environment", () => {
  describe.each(NAMES)("%s", (name) => {
    it.each(CASES.filter((c) => !c.layers.includes("argument")))("the dynamic door (stack config only): $layers -> $wins", ({ layers, wins }) => {
      const { stack, env } = layersFor(name, layers);
      // What the dynamic provider's configure hook hands runtime.ts: the stack config.
      expect(resolvedOf(resolveSettings({ get: (k) => stack[k] }, env), name)).toBe(expected(name, wins));
    });

    it.each(CASES)("the plugin's Configure: $layers -> $wins", ({ layers, wins }) => {
      const { stack, args, env } = layersFor(name, layers);
      // An explicit provider's arguments (the token secret-marked, as the engine sends it) and the stack config as variables.
      const marked = Object.fromEntries(Object.entries(args).map(([k, v]) => [k, isSecret(k) ? { [SIG_KEY]: SECRET_SIG, value: v } : v]));
      const req = new proto.ConfigureRequest().setArgs(Struct.fromJavaScript(marked));
      for (const [k, v] of Object.entries(stack)) req.getVariablesMap().set(k.replace(/^keboola:/, "keboola:config:"), v);
      expect(resolvedOf(resolveSettings(configSourceOf(req), env), name)).toBe(expected(name, wins));
    });

    it.each(CASES)("drift and pull (an explicit provider's recorded inputs, the stack's config): $layers -> $wins", ({ layers, wins }) => {
      const { stack, args, env } = layersFor(name, layers);
      const snapshot = { stack: "prod", resources: [], config: stack };
      expect(resolvedOf(settingsOf(snapshot, { providerInputs: args }, env), name)).toBe(expected(name, wins));
    });
  });

  it("an empty value is no value: the next place is asked", () => {
    const req = new proto.ConfigureRequest().setArgs(Struct.fromJavaScript({ token: "" }));
    req.getVariablesMap().set("keboola:config:host", "https://h.example.com");
    req.getVariablesMap().set("keboola:config:token", "");
    expect(resolveSettings(configSourceOf(req), { KBC_TOKEN: "env-token" }).token).toBe("env-token");
  });

  it("two explicit providers keep their own tokens whatever KBC_TOKEN says", () => {
    const env = { KBC_TOKEN: "third-token", KBC_HOST: "https://env.example.com" };
    const snapshot = { stack: "prod", resources: [], config: {} };
    const a = settingsOf(snapshot, { providerInputs: { host: "https://a.example.com", token: "a-token" } }, env);
    const b = settingsOf(snapshot, { providerInputs: { host: "https://b.example.com", token: "b-token" } }, env);
    expect([a.host, a.token, b.host, b.token]).toEqual(["https://a.example.com", "a-token", "https://b.example.com", "b-token"]);
  });

  it("drift tells a default provider by its name (its settings are the stack config as it is now)", () => {
    expect(isDefaultProvider("urn:pulumi:prod::app::pulumi:providers:keboola::default")).toBe(true);
    expect(isDefaultProvider("urn:pulumi:prod::app::pulumi:providers:keboola::default_0_1_0")).toBe(true);
    expect(isDefaultProvider("urn:pulumi:prod::app::pulumi:providers:keboola::prod")).toBe(false);
    expect(isDefaultProvider("urn:pulumi:prod::app::pulumi:providers:keboola::defaults")).toBe(false);
  });
});
