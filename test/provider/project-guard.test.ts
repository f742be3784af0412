import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type * as dynamic from "@pulumi/pulumi/dynamic";
import { startEmulator, type Emulator } from "../../emulator/server";
import { clientFor, KeboolaClient, type ClientSettings } from "../../provider/api/client";
import { ProjectGuardError } from "../../provider/api/errors";
import { configuredProjectId, ConfigurationError, resolveSettings } from "../../provider/config";
import { configFailures } from "../../provider/plugin/provider-config";
import * as runtime from "../../provider/dynamic/runtime";
import { startPlugin, type Plugin } from "./plugin-client";
import { HARNESS_POLLS } from "./harness";
import { processIo } from "../../provider/cli/command";
import { main } from "../../provider/cli/main";

// The project guard (keboola:projectId): before anything else, a guarded client asks whose token
// it holds (`GET /v2/storage/tokens/verify`, owner.id) and refuses another project's token, naming
// both projects and the fix; once per process per settings. Through both doors, the first call of
// any method runs it, one that needs no API included.

const TOKEN = "guard-master-token-91c4";
const PROJECT = 4242;
const OTHER = 777;
const VERIFY = "GET /v2/storage/tokens/verify";

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ token: TOKEN, projectId: PROJECT, taskDurationMs: 10 });
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(() => emu.clearRequests());

const requests = () => emu.requests().map((r) => `${r.method} ${r.path.replace(/\?.*$/, "")}`);
/** Settings of a guarded client; `tag` keeps each test's settings (and so its verdict) its own. */
const settings = (projectId: number | undefined, tag: string, token = TOKEN): ClientSettings => ({
  host: emu.url,
  token,
  taskTimeoutSeconds: 20,
  http: { userAgent: `keboola-pulumi guard test ${tag}`, retryBaseMs: 5, retryMaxMs: 20 },
  polls: HARNESS_POLLS,
  ...(projectId !== undefined ? { projectId } : {}),
});

describe("the guard's message", () => {
  it("names both projects, the setting and both ways out, and no token", () => {
    const err = new ProjectGuardError(123, { id: 456, name: "Dev sales" });
    expect(err.message).toBe(
      "this stack is guarded to project 123 (keboola:projectId or KBC_PROJECT_ID) but the token belongs to project 456 (Dev sales): nothing was read or written. " +
        "Use a token of project 123 (`pulumi config set --secret keboola:token <token of project 123>`, or the explicit provider's token), " +
        "or, if the stack is meant to manage project 456, `pulumi config set keboola:projectId 456`. " +
        "`pulumi refresh` and `pulumi destroy` use the settings stored with the stack: run them with --run-program to use the changed config.",
    );
  });
});

describe("the setting", () => {
  it("is read from stack config, else KBC_PROJECT_ID, as a positive whole number", () => {
    const config = (v: Record<string, string>) => ({ get: (k: string) => v[k] });
    expect(configuredProjectId(config({}), {})).toBeUndefined();
    expect(configuredProjectId(config({ "keboola:projectId": "12" }), { KBC_PROJECT_ID: "34" })).toBe(12);
    expect(configuredProjectId(config({}), { KBC_PROJECT_ID: "34" })).toBe(34);
    for (const bad of ["0", "-3", "1.5", "sales", "12abc"]) {
      expect(() => configuredProjectId(config({ "keboola:projectId": bad }), {}), bad).toThrow(ConfigurationError);
      expect(() => configuredProjectId(config({ "keboola:projectId": bad }), {}), bad).toThrow(/keboola:projectId \(or KBC_PROJECT_ID\) must be a Keboola project id \(a positive whole number\).*pulumi config set keboola:projectId/);
    }
    expect(resolveSettings(config({ "keboola:host": "h", "keboola:token": "t", "keboola:projectId": "12" }), {}).projectId).toBe(12);
    expect(resolveSettings(config({ "keboola:host": "h", "keboola:token": "t" }), {}).projectId).toBeUndefined();
  });

  it("is refused at the plugin's CheckConfig when it is no project id", () => {
    expect(configFailures({ projectId: 12 })).toEqual([]);
    expect(configFailures({ projectId: "12" })).toEqual([]);
    expect(configFailures({ projectId: "sales" })).toEqual([{ property: "projectId", reason: 'must be a Keboola project id (a positive whole number), got "sales"' }]);
  });
});

describe("a guarded client", () => {
  it("refuses another project's token before any other request, and asks once per settings", async () => {
    const client = new KeboolaClient(settings(OTHER, "mismatch"));
    const err = await client.storage.listBuckets("default").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProjectGuardError);
    expect((err as Error).message).toMatch(new RegExp(`guarded to project ${OTHER} .* belongs to project ${PROJECT} \\(Emulated Project\\)`));
    await expect(client.stream()).rejects.toThrow(ProjectGuardError);
    // Another client of the same settings: the verdict stands, nothing is asked again.
    await expect(new KeboolaClient(settings(OTHER, "mismatch")).verifyProject()).rejects.toThrow(ProjectGuardError);
    expect(requests()).toEqual([VERIFY]);
  });

  it("goes on with the token of its project, having verified it once", async () => {
    const client = clientFor(settings(PROJECT, "match"));
    await client.storage.listBuckets("default");
    await client.storage.listBuckets("default");
    expect(requests()).toEqual([VERIFY, "GET /v2/storage/buckets", "GET /v2/storage/buckets"]);
  });

  it("asks again after a refused token or a failure: only a verdict is kept", async () => {
    const client = new KeboolaClient(settings(PROJECT, "refused", "not-a-token"));
    await expect(client.verifyProject()).rejects.toThrow(/401/);
    await expect(client.storage.listBuckets("default")).rejects.toThrow(/401/);
    expect(requests()).toEqual([VERIFY, VERIFY]);
  });

  it("asks nothing when the settings name no project", async () => {
    const client = new KeboolaClient(settings(undefined, "unguarded"));
    await client.verifyProject();
    await client.storage.listBuckets("default");
    expect(requests()).toEqual(["GET /v2/storage/buckets"]);
  });
});

describe("through the doors", () => {
  // Each test's settings differ (its keboola:requestTimeout) from every other's in this process,
  // which keeps one verdict per settings: so each door verifies anew, as in a process of its own.
  const urn = (type: string, name: string) => `urn:pulumi:prod::guard::pulumi-nodejs:dynamic/keboola:${type}::${name}`;
  const bucket = { stage: "in", name: "guarded" };
  const recorded = { ...bucket, bucketId: "in.c-guarded", branchId: "default" };

  it("the dynamic door: the first call fails with both projects, a diff that needs no API too, and nothing but the verify call was made", async () => {
    const provider: dynamic.ResourceProvider = runtime.resourceProvider({ type: "Bucket", urn: urn("Bucket", "guarded") });
    const config: Record<string, string> = { "keboola:host": emu.url, "keboola:token": TOKEN, "keboola:projectId": String(OTHER), "keboola:requestTimeout": "7" };
    await provider.configure!({ config: { get: (key: string) => config[key], require: (key: string) => config[key] } });
    // A diff of unchanged inputs asks Keboola nothing: the guard alone makes the request.
    const err = await provider.diff!("in.c-guarded", recorded, recorded).catch((e: unknown) => e);
    expect(String((err as Error).message)).toMatch(new RegExp(`^Bucket "guarded": comparing with the state failed: this stack is guarded to project ${OTHER} .* project ${PROJECT} \\(Emulated Project\\)`));
    await expect(provider.check!({}, bucket)).rejects.toThrow(/^Bucket "guarded": checking the inputs failed: this stack is guarded/);
    await expect(provider.delete!("in.c-guarded", recorded)).rejects.toThrow(/guarded to project/);
    expect(requests()).toEqual([VERIFY]);
  });

  it("the dynamic door: the project's own token checks and creates as before", async () => {
    const provider: dynamic.ResourceProvider = runtime.resourceProvider({ type: "Bucket", urn: urn("Bucket", "mine") });
    const config: Record<string, string> = { "keboola:host": emu.url, "keboola:token": TOKEN, "keboola:projectId": String(PROJECT), "keboola:requestTimeout": "8" };
    await provider.configure!({ config: { get: (key: string) => config[key], require: (key: string) => config[key] } });
    const checked = await provider.check!({}, { stage: "in", name: "mine" });
    expect(checked.failures ?? []).toEqual([]);
    await provider.create(checked.inputs);
    expect(requests()[0]).toBe(VERIFY);
    expect(requests().filter((r) => r === VERIFY)).toHaveLength(1);
  });

  describe("the plugin", () => {
    let p: Plugin;
    beforeAll(async () => {
      p = await startPlugin();
      await p.configure({ host: emu.url, token: TOKEN, projectId: String(OTHER), requestTimeout: "9" });
    });
    afterAll(async () => {
      await p?.close();
    });

    it("fails the first call after Configure (a diff that needs no API), then a check and a lookup, with both projects; only the verify call was made", async () => {
      const err = await p.diff({ type: "Bucket", name: "guarded" }, "in.c-guarded", recorded, recorded).catch((e: unknown) => e);
      expect(String((err as Error).message)).toMatch(new RegExp(`this stack is guarded to project ${OTHER} .* project ${PROJECT} \\(Emulated Project\\)`));
      await expect(p.check({ type: "Bucket", name: "guarded" }, {}, bucket)).rejects.toThrow(/guarded to project/);
      await expect(p.invoke("getBucket", { bucketId: "in.c-anything" })).rejects.toThrow(/guarded to project/);
      expect(requests()).toEqual([VERIFY]);
    });
  });
});

describe("keboola-pulumi export", () => {
  /** `keboola-pulumi export` in process: its exit code and what it wrote. */
  async function exportCli(env: NodeJS.ProcessEnv): Promise<{ code: number; out: string; err: string }> {
    let out = "";
    let err = "";
    const code = await main(["export", "--host", emu.url, "--components", "keboola.ex-generic-v2"], processIo({ env, write: (t) => (out += t), error: (t) => (err += t) }));
    return { code, out, err };
  }

  it("writes the line that guards a stack to the exported project into the manifest's header", async () => {
    const { code, out } = await exportCli({ KBC_TOKEN: TOKEN });
    expect(code).toBe(0);
    expect(out).toContain(`# Exported by keboola-pulumi export from project ${PROJECT} (Emulated Project), branch default.`);
    expect(out).toContain(`#   pulumi config set keboola:projectId ${PROJECT}\n`);
  });

  it("with KBC_PROJECT_ID of another project, fails naming both and reads nothing else", async () => {
    const { code, out, err } = await exportCli({ KBC_TOKEN: TOKEN, KBC_PROJECT_ID: String(OTHER) });
    expect(code).toBe(1);
    expect(out).toBe("");
    expect(err).toMatch(new RegExp(`^keboola-pulumi export: this stack is guarded to project ${OTHER} .* project ${PROJECT} \\(Emulated Project\\)`));
    expect(err).not.toContain(TOKEN);
    expect(requests()).toEqual([VERIFY]);
  });
});
