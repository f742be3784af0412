import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator/server";
import { call, pollUntil } from "./helpers";
import { runComponent } from "../../emulator/queue/components";
import type { JsonObject } from "../../keboola/json";

let emu: Emulator;
const storage = (method: string, path: string, opts: Parameters<typeof call>[3] = {}) => call(emu.url, method, path, { token: "master", ...opts });
const queue = (method: string, path: string, opts: Parameters<typeof call>[3] = {}) => call(emu.urls.queue, method, path, { token: "master", ...opts });
const COMPONENT = "keboola.ex-generic-v2";
const cfgPath = (component: string) => `/v2/storage/branch/default/components/${component}/configs`;

beforeAll(async () => {
  emu = await startEmulator({ token: "master", limitedToken: "limited", taskDurationMs: 20 });
  // Variables: {{city}} and {{limit}}, default values row "defaults", another row "prague".
  await storage("POST", cfgPath("keboola.variables"), {
    json: { name: "Vars", configurationId: "vars", configuration: { variables: [{ name: "city", type: "string" }, { name: "limit", type: "int" }] } },
  });
  await storage("POST", `${cfgPath("keboola.variables")}/vars/rows`, {
    json: { rowId: "defaults", configuration: { values: [{ name: "city", value: "Brno" }, { name: "limit", value: "10" }] } },
  });
  await storage("POST", `${cfgPath("keboola.variables")}/vars/rows`, {
    json: { rowId: "prague", configuration: { values: [{ name: "city", value: 'Praha "1"' }, { name: "limit", value: "5" }] } },
  });
  await storage("POST", cfgPath(COMPONENT), {
    json: {
      name: "Uses vars",
      configurationId: "main",
      configuration: { variables_id: "vars", variables_values_id: "defaults", parameters: { url: "https://x/{{city}}", limit: "{{ limit }}" } },
    },
  });
  await storage("POST", `${cfgPath(COMPONENT)}/main/rows`, { json: { rowId: "row1", configuration: { parameters: { q: "city={{city}}" } } } });
});
afterAll(() => emu.close());
beforeEach(() => emu.setFaults({}));

const finished = (j: { isFinished: boolean }) => j.isFinished;
async function runJob(body: Record<string, unknown>) {
  const created = await queue("POST", "/jobs", { json: { component: COMPONENT, mode: "run", ...body } });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ status: "created", isFinished: false, component: body.component ?? COMPONENT, url: `${emu.urls.queue}/jobs/${created.body.id}` });
  const done = await pollUntil(() => queue("GET", `/jobs/${created.body.id}`), (r) => finished(r.body));
  return done.body;
}
const resolved = (jobId: string) => emu.state.queue.resolved[jobId];

describe("queue jobs with variables", () => {
  it("substitutes the configuration's default values row", async () => {
    const job = await runJob({ config: "main" });
    expect(job).toMatchObject({
      status: "success",
      isFinished: true,
      isSuccess: true,
      config: "main",
      branchId: "101",
      mode: "run",
      variableValuesId: null,
      result: { message: "Component processing finished." },
      token: { id: "1001", description: "Master token" },
      project: { id: "4242" },
    });
    expect(job.createdTime).toMatch(/\+00:00$/);
    expect(job.startTime).not.toBeNull();
    expect(job.endTime).not.toBeNull();
    expect(resolved(job.id).configuration.parameters).toEqual({ url: "https://x/Brno", limit: "10" });
    expect(resolved(job.id).rows).toEqual([{ id: "row1", configuration: { parameters: { q: "city=Brno" } } }]);
  });

  it("substitutes values of a variableValuesId row (JSON-escaped)", async () => {
    const job = await runJob({ config: "main", variableValuesId: "prague" });
    expect(job.status).toBe("success");
    expect(job.variableValuesId).toBe("prague");
    expect(resolved(job.id).configuration.parameters).toEqual({ url: 'https://x/Praha "1"', limit: "5" });
  });

  it("substitutes inline variableValuesData", async () => {
    const values = [{ name: "city", value: "Ostrava" }, { name: "limit", value: "7" }];
    const job = await runJob({ config: "main", variableValuesData: { values } });
    expect(job.status).toBe("success");
    expect(job.variableValuesData).toEqual({ values });
    expect(resolved(job.id).configuration.parameters).toEqual({ url: "https://x/Ostrava", limit: "7" });
  });

  it("fails when a declared variable has no value", async () => {
    const job = await runJob({ config: "main", variableValuesData: { values: [{ name: "city", value: "Ostrava" }] } });
    expect(job).toMatchObject({ status: "error", isFinished: true, isSuccess: false });
    expect(job.result.message).toBe('No value provided for variable "limit".');
    expect(job.result.error).toMatchObject({ type: "user", exceptionId: expect.stringMatching(/^exception-/) });
  });

  it("fails when a placeholder has no value", async () => {
    await storage("POST", cfgPath(COMPONENT), {
      json: { name: "Extra", configurationId: "extra", configuration: { variables_id: "vars", variables_values_id: "defaults", p: "{{unknown}}-{{city}}" } },
    });
    const job = await runJob({ config: "extra" });
    expect(job.status).toBe("error");
    expect(job.result.message).toBe('Missing values for placeholders: "unknown"');
  });

  it("fails without any values source, and with a missing variables configuration", async () => {
    await storage("POST", cfgPath(COMPONENT), { json: { name: "NoDefaults", configurationId: "nodefaults", configuration: { variables_id: "vars" } } });
    const noValues = await runJob({ config: "nodefaults" });
    expect(noValues.result.message).toBe('No variable values provided for variables configuration "vars".');
    await storage("POST", cfgPath(COMPONENT), { json: { name: "Broken", configurationId: "broken", configuration: { variables_id: "missing-vars", variables_values_id: "x" } } });
    const broken = await runJob({ config: "broken" });
    expect(broken.result.message).toBe('Variable configuration cannot be read: Configuration "missing-vars" not found');
    const badRow = await runJob({ config: "main", variableValuesId: "nope" });
    expect(badRow.result.message).toBe('Cannot read variable values "nope" of variables configuration "vars".');
  });

  it("leaves configurations without variables_id as they are", async () => {
    await storage("POST", cfgPath(COMPONENT), { json: { name: "Plain", configurationId: "plain", configuration: { parameters: { p: "{{x}}" } } } });
    const job = await runJob({ config: "plain" });
    expect(job.status).toBe("success");
    expect(resolved(job.id).configuration).toEqual({ parameters: { p: "{{x}}" } });
  });

  it("fails a job chosen by fault injection", async () => {
    emu.setFaults({ failTasks: ["queue.job"] });
    const job = await runJob({ config: "plain" });
    expect(job.status).toBe("error");
    expect(job.result.error.type).toBe("application");
  });
});

// keboola.runner-config-test does what `parameters.operation` says (keboola/runner-config-test
// src/Component.php and its tests tests/functional/{user-error,application-error,
// invalid-configuration}); the runner makes a user error of exit code 1 with the component's
// error output as the message, and an application error of any other code, which the job shows
// as "Internal Server Error occurred." (keboola/docker-bundle src/Docker/Container.php,
// keboola/job-runner src/Helper/ExceptionConverter.php, keboola/api-error-control
// ExceptionTransformer). keboola-as-code test/cli/remote-job/run-fail runs the fixture
// internal/pkg/fixtures/configs/runner-fail.json (operation "user-error") and expects the job
// to fail with "This is a user error.".
describe("queue jobs of keboola.runner-config-test", () => {
  const RUNNER = "keboola.runner-config-test";
  const runnerConfig = async (id: string, parameters: Record<string, unknown>, rows: Array<Record<string, unknown>> = []) => {
    await storage("POST", cfgPath(RUNNER), { json: { name: id, configurationId: id, configuration: { parameters } } });
    for (const [i, row] of rows.entries()) await storage("POST", `${cfgPath(RUNNER)}/${id}/rows`, { json: { rowId: `${id}-${i}`, configuration: row } });
  };

  it("fails with the user error the configuration asks for", async () => {
    await runnerConfig("runner-fail", { operation: "user-error" });
    const job = await runJob({ component: RUNNER, config: "runner-fail" });
    expect(job).toMatchObject({ status: "error", isFinished: true, isSuccess: false, component: RUNNER });
    expect(job.result).toEqual({ message: "This is a user error.\n", error: { type: "user", exceptionId: expect.any(String) } });
  });

  it("fails with an application error, its cause hidden", async () => {
    await runnerConfig("runner-app", { operation: "application-error" });
    const job = await runJob({ component: RUNNER, config: "runner-app" });
    expect(job.status).toBe("error");
    expect(job.result).toMatchObject({ message: "Internal Server Error occurred.", error: { type: "application" } });
  });

  it("succeeds with another operation (test/cli/remote-job/run-ok: sleep)", async () => {
    await runnerConfig("runner-ok", { operation: "sleep", timeout: 6 });
    const job = await runJob({ component: RUNNER, config: "runner-ok" });
    expect(job.status).toBe("success");
  });

  it("refuses a configuration without an operation, or with an unknown one", async () => {
    await runnerConfig("runner-none", {});
    const none = await runJob({ component: RUNNER, config: "runner-none" });
    expect(none.result).toMatchObject({ message: 'Invalid configuration: Key "parameters.operation" does not exist\n', error: { type: "user" } });
    await runnerConfig("runner-walk", { operation: "walk" });
    const walk = await runJob({ component: RUNNER, config: "runner-walk" });
    expect(walk.status).toBe("error");
    expect(walk.result.message).toMatch(/^Invalid configuration for path "root\.parameters\.operation": Allowed operations are: application-error, create-result, /);
  });

  it("runs each row on the configuration merged with it, and inline configData too", async () => {
    await runnerConfig("runner-rows", { operation: "sleep" }, [{ parameters: { timeout: 1 } }, { parameters: { operation: "user-error" } }]);
    const rows = await runJob({ component: RUNNER, config: "runner-rows" });
    expect(rows.result.message).toBe("This is a user error.\n");
    const inline = await runJob({ component: RUNNER, configData: { parameters: { operation: "application-error" } } });
    expect(inline.result.error.type).toBe("application");
  });
});

// Links to shared code are replaced before variables are rendered, as the job runner does
// (keboola/configuration-variables-resolver SharedCodeResolver; keboola/job-runner
// JobDefinitionFactoryFunctionalTest::testVariablesAreReplacedInSharedCodes): a transformation
// shaped like keboola-as-code's test/cli/push/shared-code-with-vars fixture.
describe("queue jobs of a transformation with shared code", () => {
  const PYTHON = "keboola.python-transformation-v2";
  async function runPython(config: string) {
    const created = await queue("POST", "/jobs", { json: { component: PYTHON, mode: "run", config } });
    expect(created.status).toBe(201);
    return (await pollUntil(() => queue("GET", `/jobs/${created.body.id}`), (r) => finished(r.body))).body;
  }
  const transformation = (configurationId: string, rowIds: string[], script: string[]) =>
    storage("POST", cfgPath(PYTHON), {
      json: {
        name: configurationId,
        configurationId,
        configuration: {
          variables_id: "vars",
          variables_values_id: "defaults",
          shared_code_id: "shared",
          shared_code_row_ids: rowIds,
          parameters: { blocks: [{ name: "Block 1", codes: [{ name: "Code", script }] }] },
        },
      },
    });

  beforeAll(async () => {
    await storage("POST", cfgPath("keboola.shared-code"), { json: { name: "Shared Codes", configurationId: "shared", configuration: { componentId: PYTHON } } });
    await storage("POST", `${cfgPath("keboola.shared-code")}/shared/rows`, {
      json: { rowId: "with-vars", name: "Code with variables", configuration: { code_content: ["city = '{{city}}'\nlimit = {{limit}}"], variables_id: "vars" } },
    });
    await storage("POST", `${cfgPath("keboola.shared-code")}/shared/rows`, { json: { rowId: "hello", name: "My code 1", configuration: { code_content: "print('Hello, world!')" } } });
  });

  it("replaces the links with the shared code, then renders the variables in it and around it", async () => {
    await transformation("uses-shared", ["with-vars", "hello"], ["{{with-vars}}", "print({{limit}})", "{{ hello }}"]);
    const job = await runPython("uses-shared");
    expect(job.status, job.result.message).toBe("success");
    const code = (resolved(job.id).configuration as { parameters: { blocks: Array<{ codes: Array<{ script: string[] }> }> } }).parameters.blocks[0].codes[0].script;
    expect(code).toEqual(["city = 'Brno'\nlimit = 10", "print(10)", "print('Hello, world!')"]);
  });

  it("renders a {{id}} that is not one of shared_code_row_ids as a variable", async () => {
    await transformation("not-listed", ["hello"], ["{{with-vars}}"]);
    const job = await runPython("not-listed");
    expect(job.status).toBe("error");
    expect(job.result.message).toBe('Missing values for placeholders: "with-vars"');
  });

  it("fails when a listed shared code row is missing", async () => {
    await transformation("missing-row", ["hello", "gone"], ["{{hello}}"]);
    const job = await runPython("missing-row");
    expect(job.status).toBe("error");
    expect(job.result.message).toBe("Shared code configuration cannot be read: Row gone not found");
  });
});

describe("queue API errors", () => {
  it("answers 400 when both variableValuesId and variableValuesData are given", async () => {
    const r = await queue("POST", "/jobs", {
      json: { component: COMPONENT, config: "main", mode: "run", variableValuesId: "prague", variableValuesData: { values: [{ name: "a", value: "b" }] } },
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      error: 'Provide either "variableValuesId" or "variableValuesData", but not both.',
      code: 400,
      status: "error",
      exceptionId: expect.stringMatching(/^exception-/),
    });
  });

  it("answers 400 for a missing configuration, a disabled one and a missing component", async () => {
    const missing = await queue("POST", "/jobs", { json: { component: COMPONENT, config: "nope", mode: "run" } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('Cannot resolve job parameters: Configuration "nope" not found');
    await storage("POST", cfgPath(COMPONENT), { json: { name: "Off", configurationId: "off", isDisabled: true } });
    const disabled = await queue("POST", "/jobs", { json: { component: COMPONENT, config: "off", mode: "run" } });
    expect(disabled.body.error).toBe(`Configuration "off" of component "${COMPONENT}" is disabled.`);
    const forced = await queue("POST", "/jobs", { json: { component: COMPONENT, config: "off", mode: "forceRun" } });
    expect(forced.status).toBe(201);
    const noComponent = await queue("POST", "/jobs", { json: { config: "x" } });
    expect(noComponent.status).toBe(400);
    const badMode = await queue("POST", "/jobs", { json: { component: COMPONENT, mode: "walk" } });
    expect(badMode.status).toBe(400);
  });

  it("answers 401 without a token and with an invalid one, 404 for unknown jobs", async () => {
    const none = await queue("GET", "/jobs/1", { token: null });
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ error: "Authentication token is missing", code: 401, status: "error" });
    const bad = await queue("POST", "/jobs", { token: "bad", json: { component: COMPONENT } });
    expect(bad.status).toBe(401);
    expect(bad.body).toMatchObject({ error: "Invalid access token", code: 401 });
    const unknown = await queue("GET", "/jobs/999999");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: 'Job "999999" not found', code: 404 });
  });

  it("another method: 405 with the methods the path allows; another path: 404, worded as Symfony's router", async () => {
    // Symfony's RouterListener (MethodNotAllowedHttpException, status as code) rendered by
    // keboola/api-error-control; the Job Queue API's paths and methods (job-queue-api 1.3.8, copy in
    // api-evangelist/keboola openapi/keboola-queue-api-openapi.yml). The router answers before
    // authentication: no token is needed.
    const cases: Array<[string, string, string]> = [
      ["DELETE", "/jobs/123", "GET"],
      ["PUT", "/jobs", "GET, POST"],
      ["POST", "/search/jobs", "GET"],
    ];
    for (const [method, path, allow] of cases) {
      const res = await queue(method, path, { token: null });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.body).toEqual({
        error: `No route found for "${method} ${emu.urls.queue}${path}": Method Not Allowed (Allow: ${allow})`,
        code: 405,
        exceptionId: expect.any(String),
        status: "error",
        context: [],
      });
    }
    const unknown = await queue("GET", "/nope?x=1");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: `No route found for "GET ${emu.urls.queue}/nope"`, code: 404 });
  });

  it("refuses jobs of configurations the token may not read", async () => {
    const r = await queue("POST", "/jobs", { token: "limited", json: { component: COMPONENT, config: "main", mode: "run" } });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("Cannot resolve job parameters: You don't have access to the resource.");
  });

  it("lists jobs filtered by component and config, newest first", async () => {
    const a = await runJob({ config: "plain" });
    const b = await runJob({ config: "plain" });
    const r = await queue("GET", `/jobs?component=${COMPONENT}&config=plain&limit=2`);
    expect(r.status).toBe(200);
    expect(r.body.map((j: { id: string }) => j.id)).toEqual([b.id, a.id]);
    const search = await queue("GET", "/search/jobs?config=main");
    expect(search.body.every((j: { config: string }) => j.config === "main")).toBe(true);
  });
});

// The job runner reads every configuration through docker-bundle's container definition before the
// component runs (keboola/docker-bundle src/Docker/Configuration/Container.php), and Symfony Config
// refuses a key it does not define (symfony/config Definition/ArrayNode.php normalizeValue).
// keboola-sdk-go pkg/keboola/queue_api_test.go TestQueueApiCalls and TestDeprecatedQueueApiCalls:
// a job of an ex-generic-v2 configuration `{"foo": "bar"}` ends with an error containing
// `Unrecognized option "foo" under "container"`.
describe("the runner's check of the configuration", () => {
  const AVAILABLE = '"action", "artifacts", "authorization", "image_parameters", "parameters", "processors", "runtime", "shared_code_id", "shared_code_row_ids", "storage", "variables_id", "variables_values_id"';

  it("fails a job whose configuration has a key the container does not define, as a user error a search by status error finds", async () => {
    await storage("POST", cfgPath("ex-generic-v2"), { json: { name: "Test", configurationId: "foo-bar", configuration: { foo: "bar" }, changeDescription: "My test" } });
    const created = await queue("POST", "/jobs", { json: { component: "ex-generic-v2", mode: "run", config: "foo-bar" } });
    const done = await pollUntil(() => queue("GET", `/jobs/${created.body.id}`), (r) => ["success", "error"].includes(r.body.status));
    expect(done.body.status).toBe("error");
    expect(done.body.result.message).toBe(`Unrecognized option "foo" under "container". Available options are ${AVAILABLE}.`);
    expect(done.body.result.error.type).toBe("user");
    const search = await queue("GET", "/search/jobs?status=error&component=ex-generic-v2&limit=10");
    expect(search.body.map((j: { id: string }) => j.id)).toContain(created.body.id);
  });

  it("proposes a key at a distance under 3, names every unknown key, and checks each row merged with the configuration", () => {
    const run = (configuration: JsonObject, rows: JsonObject[] = []) => runComponent(COMPONENT, { configuration, state: {}, rows: rows.map((c, i) => ({ id: String(i), configuration: c, state: {} })) });
    expect(run({ paramters: {} })).toEqual({ type: "user", message: 'Unrecognized option "paramters" under "container". Did you mean "parameters"?' });
    expect(run({ foo: 1, bar: 2 })?.message).toBe(`Unrecognized options "foo, bar" under "container". Available options are ${AVAILABLE}.`);
    expect(run({ parameters: {} }, [{ parameters: {} }, { extra: true }])?.message).toMatch(/^Unrecognized option "extra" under "container"/);
    expect(run({ parameters: {}, storage: {}, processors: {}, runtime: {}, authorization: {}, variables_id: "1", shared_code_row_ids: [] })).toBeUndefined();
  });
});
