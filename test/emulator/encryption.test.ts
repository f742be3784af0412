import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator, type Emulator } from "../../emulator/server";
import { isEncrypted } from "../../keboola/secrets";
import { call, pollUntil } from "./helpers";

// The emulator's Encryption API (`<base>/encryption`), answering as the real one. Where each
// expected value comes from is said at each test; the sources in short:
// - DOCS: keboola/developers-docs `overview/encryption.md` (parameters, scopes and prefixes, JSON
//   and text/plain, ciphers left as they are, IDs need not exist).
// - ENCRYPTOR: keboola/object-encryptor `src/ObjectEncryptor.php` (`encryptItem`, `encryptValue`,
//   `getKnownWrapperPrefixes`) and `tests/ObjectEncryptorTest.php` (testEncryptorSimpleArrayScalars,
//   testEncryptorAlreadyEncrypted, testEncryptorNestedArrayWithArrayKeyHashmark, testIgnoreVariables).
// - CONTROLLER: keboola/docker-bundle `src/Controller/PublicController.php` and
//   `Tests/Controller/PublicControllerTest.php` (the API before it moved to keboola/encryption-api:
//   the refusals and their messages), keboola/syrup `src/Keboola/Syrup/Controller/BaseController.php`
//   (`getPostJson`: "Bad JSON format of request body: <json_last_error_msg>").
// - ERRORS: keboola/api-error-control `src/Message/ExceptionMessage.php` (the body), keboola-sdk-go
//   `pkg/keboola/encryption_error.go` (error, code as a number, exceptionId).

let emu: Emulator;
const PROJECT = 4242;
const COMPONENT = "keboola.ex-generic-v2";

function encrypt(query: string, body: string, contentType: string | null = "application/json") {
  // Bytes, so that fetch adds no Content-Type of its own when none is given.
  const bytes = new TextEncoder().encode(body);
  return call(emu.urls.encryption, "POST", `/encrypt${query}`, { body: bytes, headers: contentType === null ? {} : { "Content-Type": contentType } });
}
const encryptJson = async (query: string, document: unknown) => {
  const res = await encrypt(query, JSON.stringify(document));
  expect(res.status, res.text).toBe(200);
  return res.body as Record<string, unknown>;
};
const encryptText = async (query: string, value: string) => {
  const res = await encrypt(query, value, "text/plain");
  expect(res.status, res.text).toBe(200);
  return res.text;
};

/** An api-error-control error body with the status as its code (ERRORS). */
const apiError = (status: number, error: string | RegExp) => ({
  error: typeof error === "string" ? error : expect.stringMatching(error),
  code: status,
  exceptionId: expect.stringMatching(/^exception-[0-9a-f]{32}$/),
  status: "error",
  context: [],
});

beforeAll(async () => {
  emu = await startEmulator({ token: "master", taskDurationMs: 20, projectId: PROJECT });
});
afterAll(() => emu.close());

describe("Encryption API: discovery and content types", () => {
  it("is listed in the Storage index as the encryption service, at <base>/encryption", async () => {
    const index = await call(emu.url, "GET", "/v2/storage?exclude=components");
    expect(index.body.services).toContainEqual({ id: "encryption", url: `${emu.url}/encryption` });
    expect(emu.urls.encryption).toBe(`${emu.url}/encryption`);
  });

  it("JSON: every scalar under a # key at any depth is encrypted; arrays and objects are walked, an object under a # key too; the rest is as sent", async () => {
    // ENCRYPTOR encryptItem; DOCS ("#encryptMeToo": {"another": "secret"} stays as it is).
    const document = {
      foo: "bar",
      "#token": "plain-token",
      nested: { deeper: { "#password": "plain-pass", port: 5432 } },
      list: [{ "#key": "plain-key" }, "#not-a-key", "plain-item", 7],
      "#group": { another: "stays", "#inner": "plain-inner", items: ["a", { "#deep": "plain-deep" }] },
      "#number": 5,
      "#flag": true,
      "#nothing": null,
      "#emptyObject": {},
      "#emptyList": [],
    };
    const out = await encryptJson(`?componentId=${COMPONENT}&projectId=${PROJECT}`, document);
    const cipher = expect.stringMatching(/^KBC::ProjectSecure::[A-Za-z0-9+/]+=*$/);
    expect(out).toEqual({
      foo: "bar",
      "#token": cipher,
      nested: { deeper: { "#password": cipher, port: 5432 } },
      list: [{ "#key": cipher }, "#not-a-key", "plain-item", 7],
      "#group": { another: "stays", "#inner": cipher, items: ["a", { "#deep": cipher }] },
      // Scalars of any type are cast to strings and encrypted (ENCRYPTOR testEncryptorSimpleArrayScalars).
      "#number": cipher,
      "#flag": cipher,
      "#nothing": cipher,
      "#emptyObject": {},
      "#emptyList": [],
    });
    expect(JSON.stringify(out)).not.toMatch(/plain-(token|pass|key|inner|deep)/);
  });

  it("JSON: a top-level list is walked, an empty body is an empty list", async () => {
    // CONTROLLER getPostJson (empty body -> []); ENCRYPTOR encryptArray.
    const list = (await encryptJson(`?componentId=${COMPONENT}`, [{ "#a": "x" }, "y"])) as unknown as unknown[];
    expect(list).toEqual([{ "#a": expect.stringMatching(/^KBC::ComponentSecure::/) }, "y"]);
    const empty = await encrypt(`?componentId=${COMPONENT}`, "");
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual([]);
  });

  it("text/plain: one string in, its cipher out as text/plain, whatever the charset parameter", async () => {
    // DOCS ("submit the text string ... (no JSON or quotation is used)"); CONTROLLER testEncryptPlaintextHeaderWithCharset.
    for (const type of ["text/plain", "text/plain; charset=UTF-8", "TEXT/PLAIN"]) {
      const res = await encrypt(`?componentId=${COMPONENT}&projectId=${PROJECT}`, "my secret {\"not\": json}", type);
      expect(res.status).toBe(200);
      expect(res.headers.get("Content-Type")).toMatch(/^text\/plain/);
      expect(res.text).toMatch(/^KBC::ProjectSecure::\S+$/);
      expect(isEncrypted(res.text)).toBe(true);
    }
  });

  it("every encryption differs (random IV), and the request log holds no value", async () => {
    const a = await encryptText(`?componentId=${COMPONENT}&projectId=${PROJECT}`, "same-value-91");
    const b = await encryptText(`?componentId=${COMPONENT}&projectId=${PROJECT}`, "same-value-91");
    expect(a).not.toBe(b);
    expect(JSON.stringify(emu.requests())).not.toContain("same-value-91");
    expect(JSON.stringify(emu.state)).not.toContain("same-value-91");
  });
});

describe("Encryption API: scopes", () => {
  // DOCS "Encryption Parameters": the prefix each combination of parameters gives.
  const cases: Array<[string, string]> = [
    [`componentId=${COMPONENT}`, "KBC::ComponentSecure::"],
    [`componentId=${COMPONENT}&projectId=${PROJECT}`, "KBC::ProjectSecure::"],
    [`componentId=${COMPONENT}&projectId=${PROJECT}&configId=123`, "KBC::ConfigSecure::"],
    [`projectId=${PROJECT}`, "KBC::ProjectWideSecure::"],
    [`componentId=${COMPONENT}&projectId=${PROJECT}&branchType=default`, "KBC::BranchTypeSecure::"],
    [`componentId=${COMPONENT}&projectId=${PROJECT}&configId=123&branchType=dev`, "KBC::BranchTypeConfigSecure::"],
    [`projectId=${PROJECT}&branchType=dev`, "KBC::ProjectWideBranchTypeSecure::"],
  ];
  for (const [query, prefix] of cases) {
    it(`${query} -> ${prefix}`, async () => {
      const cipher = await encryptText(`?${query}`, "v");
      expect(cipher.startsWith(prefix)).toBe(true);
      expect(cipher.length).toBeGreaterThan(prefix.length + 20);
    });
  }

  it("a component that does not exist is not refused (IDs need not exist)", async () => {
    // DOCS: "you can create a cipher for a component not yet registered".
    expect(await encryptText("?componentId=not.registered-yet&projectId=1", "v")).toMatch(/^KBC::ProjectSecure::/);
  });
});

describe("Encryption API: values left as they are", () => {
  it("ciphers of any known prefix (legacy, Azure, GCP ones too) and variable placeholders; look-alikes are encrypted", async () => {
    // ENCRYPTOR encryptValue + getKnownWrapperPrefixes, testEncryptorAlreadyEncrypted, testIgnoreVariables.
    const unchanged = {
      "#project": "KBC::ProjectSecure::abc",
      "#generic": "KBC::Secure::abc",
      "#config": "KBC::ConfigSecure::abc",
      "#wide": "KBC::ProjectWideBranchTypeSecure::abc",
      "#azure": "KBC::ProjectSecureKV::abc",
      "#gcp": "KBC::BranchTypeConfigSecureGKMS::abc",
      "#legacy1": "KBC::Encrypted==abc",
      "#legacy2": "KBC::ComponentEncrypted==abc",
      "#legacy3": "KBC::ComponentProjectEncrypted==abc",
      "#variable": "{{ my_variable-7 }}",
      "#tight": "{{var.name}}",
    };
    const out = await encryptJson(`?componentId=${COMPONENT}&projectId=${PROJECT}`, {
      ...unchanged,
      "#similar": "KBC::ConfigSecureKVabc",
      "#legacySimilar": "KBC::Encryptedabc",
      "#notAVariable": "{{ two words }}",
      "#empty": "",
    });
    expect(out).toMatchObject(unchanged);
    // Not known prefixes, not a placeholder, and the empty string: encrypted (encryptValue has no exception for "").
    for (const k of ["#similar", "#legacySimilar", "#notAVariable", "#empty"]) expect(out[k], k).toMatch(/^KBC::ProjectSecure::/);
    // text/plain alike.
    expect(await encryptText(`?componentId=${COMPONENT}`, "KBC::ProjectSecure::abc")).toBe("KBC::ProjectSecure::abc");
    expect(await encryptText(`?componentId=${COMPONENT}`, "{{x}}")).toBe("{{x}}");
  });
});

describe("Encryption API: refusals", () => {
  it("configId or branchType without projectId, an unknown branchType, no component and no project, unknown parameters: 400", async () => {
    const body = { "#a": "x" };
    const refused = async (query: string) => {
      const res = await encrypt(query, JSON.stringify(body));
      expect(res.status, query).toBe(400);
      return res.body;
    };
    // CONTROLLER testEncryptConfigurationWithoutProject (DOCS: "Providing only a configId without a projectId is not allowed").
    expect(await refused(`?componentId=${COMPONENT}&configId=1`)).toEqual(apiError(400, "The configId parameter must be used together with projectId."));
    // DOCS: "providing only branchType without projectId is also not allowed"; the wording is modelled on the configId one.
    expect(await refused(`?componentId=${COMPONENT}&branchType=dev`)).toEqual(apiError(400, "The branchType parameter must be used together with projectId."));
    // OpenAPI enum default|dev; the wording is ours (not public).
    expect(await refused(`?componentId=${COMPONENT}&projectId=1&branchType=prod`)).toEqual(apiError(400, 'The branchType parameter must be one of "default", "dev".'));
    // CONTROLLER testEncryptWithoutComponent (a configuration cipher binds its component).
    expect(await refused("")).toEqual(apiError(400, "Component Id is required."));
    expect(await refused("?projectId=1&configId=2")).toEqual(apiError(400, "Component Id is required."));
    // CONTROLLER testEncryptInvalidParams.
    expect(await refused(`?componentId=${COMPONENT}&projectId=1&nonExistentParameter=1&other=2`)).toEqual(apiError(400, "Unknown parameter: 'nonExistentParameter,other'."));
  });

  it("a missing or unsupported Content-Type and invalid JSON: 400", async () => {
    // CONTROLLER testEncryptInvalidHeader ("Incorrect Content-Type.") and testEncryptInvalidJson with getPostJson's message.
    for (const type of [null, "someotherheader;", "application/x-www-form-urlencoded"]) {
      const res = await encrypt(`?componentId=${COMPONENT}`, "#a=x", type);
      expect(res.status, String(type)).toBe(400);
      expect(res.body).toEqual(apiError(400, "Incorrect Content-Type."));
    }
    const bad = await encrypt(`?componentId=${COMPONENT}`, '{"key1": wtf}');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(apiError(400, "Bad JSON format of request body: Syntax error"));
  });

  it("another method: 405; another path: 404, worded as Symfony's router", async () => {
    // ERRORS (HTTP exceptions keep their status as code); Symfony RouterListener's messages.
    const get = await call(emu.urls.encryption, "GET", `/encrypt?componentId=${COMPONENT}`);
    expect(get.status).toBe(405);
    expect(get.body).toEqual(apiError(405, `No route found for "GET ${emu.urls.encryption}/encrypt": Method Not Allowed (Allow: POST)`));
    const put = await call(emu.urls.encryption, "PUT", "/encrypt", { json: {} });
    expect(put.status).toBe(405);
    const other = await call(emu.urls.encryption, "POST", "/decrypt", { json: {} });
    expect(other.status).toBe(404);
    expect(other.body).toEqual(apiError(404, `No route found for "POST ${emu.urls.encryption}/decrypt"`));
  });

  it("injected faults answer in the same shape, and are logged like any request", async () => {
    emu.setFaults({ seed: 3, rate429: 1, retryAfterSeconds: 2, pathPrefixes: ["/encryption/"] });
    try {
      const res = await encrypt(`?componentId=${COMPONENT}`, "{}");
      expect(res.status).toBe(429);
      expect(res.headers.get("Retry-After")).toBe("2");
      expect(res.body).toEqual(apiError(429, "Too Many Requests"));
      emu.setFaults({ seed: 3, rate5xx: 1, pathPrefixes: ["/encryption/"] });
      const failed = await encrypt(`?componentId=${COMPONENT}`, "{}");
      expect([500, 502, 503]).toContain(failed.status);
      expect(failed.body).toEqual(apiError(failed.status, "Internal Server Error occurred."));
      expect(emu.requests().slice(-2).map((r) => [r.method, r.path.replace(/\?.*/, ""), r.fault])).toEqual([
        ["POST", "/encryption/encrypt", "429"],
        ["POST", "/encryption/encrypt", "5xx"],
      ]);
    } finally {
      emu.setFaults({});
    }
  });
});

describe("Encryption API: the stack's key", () => {
  async function runJob(e: Emulator, configId: string) {
    const created = await call(e.urls.queue, "POST", "/jobs", { token: "master", json: { component: COMPONENT, config: configId, mode: "run" } });
    expect(created.status).toBe(201);
    const done = await pollUntil(() => call(e.urls.queue, "GET", `/jobs/${created.body.id}`, { token: "master" }), (r) => r.body.isFinished);
    return done.body as { id: string; status: string; result: { message: string } };
  }

  it("is kept in the state file: a cipher made before a restart still decrypts after it, and not on another stack", async () => {
    const dir = mkdtempSync(join(tmpdir(), "emu-enc-"));
    const others: Emulator[] = [];
    try {
      const stateFile = join(dir, "state.json");
      const first = await startEmulator({ token: "master", taskDurationMs: 5, stateFile });
      others.push(first);
      const cipher = (await call(first.urls.encryption, "POST", `/encrypt?componentId=${COMPONENT}&projectId=${first.state.project.id}`, { body: "survives-restart-42", headers: { "Content-Type": "text/plain" } })).text;
      expect(cipher).toMatch(/^KBC::ProjectSecure::/);
      await first.close();
      expect(readFileSync(stateFile, "utf8")).not.toContain("survives-restart-42");

      const second = await startEmulator({ token: "master", taskDurationMs: 5, stateFile });
      others.push(second);
      const cfg = { name: "Restarted", configurationId: "restarted", configuration: { parameters: { "#token": cipher } } };
      expect((await call(second.url, "POST", `/v2/storage/branch/default/components/${COMPONENT}/configs`, { token: "master", json: cfg })).status).toBe(201);
      const job = await runJob(second, "restarted");
      expect(job.status).toBe("success");
      expect(second.jobInputs(job.id)?.configuration).toEqual({ parameters: { "#token": "survives-restart-42" } });
      await second.close();

      // Another stack (a fresh emulator, another key) cannot open it.
      const fresh = await startEmulator({ token: "master", taskDurationMs: 5 });
      others.push(fresh);
      await call(fresh.url, "POST", `/v2/storage/branch/default/components/${COMPONENT}/configs`, { token: "master", json: cfg });
      const failed = await runJob(fresh, "restarted");
      expect(failed.status).toBe("error");
      expect(failed.result.message).toBe(`Invalid cipher text for key #token Value "${cipher}" is not an encrypted value.`);
    } finally {
      for (const e of others) await e.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
