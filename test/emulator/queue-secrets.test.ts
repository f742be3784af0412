import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator/server";
import { call, pollUntil } from "./helpers";

// Queue jobs decrypt the `#` values of their configuration as the real runner does, and fail on
// a value that does not decrypt with the runner's message. Sources:
// - keboola/job-runner `src/JobDefinitionFactory.php`: variables are resolved first, then the
//   configuration and the state of every job definition are decrypted (`decryptConfiguration`).
// - keboola/job-queue-internal-api-php-client `src/JobFactory/JobObjectEncryptor.php` (`decrypt`:
//   decryptForBranchTypeConfiguration with a configuration, the job's branch type) and
//   `src/NewJobFactory.php` (the job's data, configData included, encrypted at creation with
//   `encryptForProject`).
// - keboola/object-encryptor `src/ObjectEncryptor.php` (`getWrappers`: the scopes accepted;
//   `decryptItem`/`decryptValue`: empty values and placeholders pass, and the message
//   `Invalid cipher text for key <key> Value "<value>" is not an encrypted value.`, as in
//   `tests/ObjectEncryptorTest.php` decryptorInvalidCipherTextProvider), `tests/ObjectEncryptorTest.php`
//   testDecryptEmptyStrings.
// - keboola/job-runner `src/Helper/ExceptionConverter.php`: an encryption error is a user error.

let emu: Emulator;
const PROJECT = 4242;
const COMPONENT = "keboola.ex-generic-v2";
const cfgPath = (component: string) => `/v2/storage/branch/default/components/${component}/configs`;
const storage = (method: string, path: string, json?: unknown) => call(emu.url, method, path, { token: "master", json });

async function cipherOf(query: string, value: string): Promise<string> {
  const res = await call(emu.urls.encryption, "POST", `/encrypt?${query}`, { body: value, headers: { "Content-Type": "text/plain" } });
  expect(res.status, res.text).toBe(200);
  return res.text;
}
const forProject = (value: string, component = COMPONENT) => cipherOf(`componentId=${component}&projectId=${PROJECT}`, value);

async function createConfig(id: string, configuration: Record<string, unknown>, rows: Array<Record<string, unknown>> = [], state?: Record<string, unknown>) {
  expect((await storage("POST", cfgPath(COMPONENT), { name: id, configurationId: id, configuration, ...(state ? { state } : {}) })).status).toBe(201);
  for (const row of rows) expect((await storage("POST", `${cfgPath(COMPONENT)}/${id}/rows`, row)).status).toBe(201);
}

async function runJob(body: Record<string, unknown>) {
  const created = await call(emu.urls.queue, "POST", "/jobs", { token: "master", json: { component: COMPONENT, mode: "run", ...body } });
  expect(created.status, created.text).toBe(201);
  const done = await pollUntil(() => call(emu.urls.queue, "GET", `/jobs/${created.body.id}`, { token: "master" }), (r) => r.body.isFinished);
  return done.body as { id: string; status: string; configData: unknown; result: { message: string; error?: { type: string } } };
}

const failsWith = async (configId: string, message: string) => {
  const job = await runJob({ config: configId });
  expect(job.status).toBe("error");
  expect(job.result.message).toBe(message);
  expect(job.result.error?.type).toBe("user");
  expect(emu.jobInputs(job.id)).toBeUndefined();
  expect(emu.state.queue.resolved[job.id]).toBeUndefined();
};
const notEncrypted = (key: string, value: string) => `Invalid cipher text for key ${key} Value "${value}" is not an encrypted value.`;

beforeAll(async () => {
  emu = await startEmulator({ token: "master", taskDurationMs: 20, projectId: PROJECT });
});
afterAll(() => emu.close());

describe("queue jobs decrypt # values", () => {
  it("hand the component every # value decrypted (configuration, rows, state), of every scope the job accepts; state keeps ciphers", async () => {
    const plain = {
      project: "p-project-secret-1",
      component: "p-component-secret-2",
      config: "p-config-secret-3",
      branchType: "p-branch-type-secret-4",
      branchTypeConfig: "p-branch-config-secret-5",
      projectWide: "p-project-wide-secret-6",
      wideBranch: "p-wide-branch-secret-7",
      row: "p-row-secret-8",
      state: "p-state-secret-9",
    };
    const configuration = {
      parameters: {
        api: { "#token": await forProject(plain.project) },
        "#group": { "#component": await cipherOf(`componentId=${COMPONENT}`, plain.component), host: "h" },
        list: [{ "#config": await cipherOf(`componentId=${COMPONENT}&projectId=${PROJECT}&configId=secrets-ok`, plain.config) }],
        "#branchType": await cipherOf(`componentId=${COMPONENT}&projectId=${PROJECT}&branchType=default`, plain.branchType),
        "#branchTypeConfig": await cipherOf(`componentId=${COMPONENT}&projectId=${PROJECT}&configId=secrets-ok&branchType=default`, plain.branchTypeConfig),
        "#projectWide": await cipherOf(`projectId=${PROJECT}`, plain.projectWide),
        "#wideBranch": await cipherOf(`projectId=${PROJECT}&branchType=default`, plain.wideBranch),
        "#empty": "",
        "#placeholder": "{{ not_resolved }}",
      },
    };
    const rowCipher = await forProject(plain.row);
    const stateCipher = await forProject(plain.state);
    await createConfig("secrets-ok", configuration, [{ rowId: "r1", configuration: { parameters: { "#password": rowCipher } } }], { component: { "#last": stateCipher } });

    const job = await runJob({ config: "secrets-ok" });
    expect(job.result.message).toBe("Component processing finished.");
    expect(job.status).toBe("success");
    expect(emu.jobInputs(job.id)).toEqual({
      configuration: {
        parameters: {
          api: { "#token": plain.project },
          "#group": { "#component": plain.component, host: "h" },
          list: [{ "#config": plain.config }],
          "#branchType": plain.branchType,
          "#branchTypeConfig": plain.branchTypeConfig,
          "#projectWide": plain.projectWide,
          "#wideBranch": plain.wideBranch,
          "#empty": "",
          "#placeholder": "{{ not_resolved }}",
        },
      },
      state: { component: { "#last": plain.state } },
      rows: [{ id: "r1", configuration: { parameters: { "#password": plain.row } }, state: {} }],
    });
    // What the emulator keeps (and saves) holds the ciphers only.
    expect(emu.state.queue.resolved[job.id].configuration).toEqual(configuration);
    const everything = JSON.stringify(emu.state) + JSON.stringify(emu.requests());
    for (const value of Object.values(plain)) expect(everything).not.toContain(value);
  });

  it("a plain # value fails the job with the runner's message, naming the leaf key", async () => {
    await createConfig("plain", { parameters: { db: { "#password": "plain-db-pass" }, "#ok": await forProject("fine") } });
    await failsWith("plain", notEncrypted("#password", "plain-db-pass"));
  });

  it("a cipher of another component, configuration or branch type fails it", async () => {
    const foreign = await forProject("copied", "keboola.ex-http");
    await createConfig("foreign", { parameters: { "#token": foreign } });
    await failsWith("foreign", notEncrypted("#token", foreign));

    const otherConfig = await cipherOf(`componentId=${COMPONENT}&projectId=${PROJECT}&configId=another`, "x");
    await createConfig("other-config", { "#key": otherConfig });
    await failsWith("other-config", notEncrypted("#key", otherConfig));

    const dev = await cipherOf(`componentId=${COMPONENT}&projectId=${PROJECT}&branchType=dev`, "x");
    await createConfig("dev-branch", { "#key": dev });
    await failsWith("dev-branch", notEncrypted("#key", dev));

    const otherProject = await cipherOf(`componentId=${COMPONENT}&projectId=1`, "x");
    await createConfig("other-project", { "#key": otherProject });
    await failsWith("other-project", notEncrypted("#key", otherProject));
  });

  it("a legacy cipher, one of another cloud, and a tampered one fail it", async () => {
    await createConfig("legacy", { "#old": "KBC::Encrypted==eJwBLAHT" });
    await failsWith("legacy", notEncrypted("#old", "KBC::Encrypted==eJwBLAHT"));

    const cipher = await forProject("x");
    const azure = cipher.replace("KBC::ProjectSecure::", "KBC::ProjectSecureKV::");
    await createConfig("azure", { "#k": azure });
    await failsWith("azure", notEncrypted("#k", azure));

    const tampered = cipher.slice(0, -4) + (cipher.endsWith("AAAA") ? "BBBB" : "AAAA");
    await createConfig("tampered", { "#k": tampered });
    await failsWith("tampered", notEncrypted("#k", tampered));
  });

  it("a plain value in a row or in the state fails it, and a number under a # key is a plain value", async () => {
    await createConfig("row-plain", { parameters: {} }, [{ rowId: "r", configuration: { parameters: { "#rowSecret": "plain-row" } } }]);
    await failsWith("row-plain", notEncrypted("#rowSecret", "plain-row"));
    await createConfig("state-plain", {}, [], { "#cursor": "plain-state" });
    await failsWith("state-plain", notEncrypted("#cursor", "plain-state"));
    await createConfig("number", { "#port": 5432 });
    await failsWith("number", notEncrypted("#port", "5432"));
  });

  it("decrypts after variables are substituted: a placeholder's plain value under a # key fails the job", async () => {
    await storage("POST", cfgPath("keboola.variables"), { name: "V", configurationId: "secret-vars", configuration: { variables: [{ name: "token", type: "string" }] } });
    await storage("POST", `${cfgPath("keboola.variables")}/secret-vars/rows`, { rowId: "values", configuration: { values: [{ name: "token", value: "plain-from-variable" }] } });
    await createConfig("with-vars", { variables_id: "secret-vars", variables_values_id: "values", parameters: { "#token": "{{token}}" } });
    await failsWith("with-vars", notEncrypted("#token", "plain-from-variable"));
  });

  it("encrypts configData's # values when the job is created, and decrypts them for the run", async () => {
    const job = await runJob({ configData: { parameters: { "#apiKey": "config-data-plain-77", other: "x" } } });
    expect(job.status).toBe("success");
    expect(job.configData).toEqual({ parameters: { "#apiKey": expect.stringMatching(/^KBC::ProjectSecure::/), other: "x" } });
    expect(emu.jobInputs(job.id)?.configuration).toEqual({ parameters: { "#apiKey": "config-data-plain-77", other: "x" } });
    expect(JSON.stringify(emu.state)).not.toContain("config-data-plain-77");
  });
});
