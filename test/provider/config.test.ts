import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../emulator/server";
import { componentConfig, variableConfig, jobRun } from "./hosted";
import type { Props, ResourceContext } from "../../provider/lifecycle/types";
import type { HostedHandler as ResourceHandler } from "./hosted";
import { createVia, LIMITED_TOKEN, ownerUrn, startHarness, updateVia, type Harness } from "./harness";
import { durationOf, jobRequest } from "../../provider/kinds/job-run/kind";
import { UNKNOWN } from "../../provider/validation/check";

// ComponentConfig, VariableConfig and JobRun handlers against the emulator, called as the
// dynamic provider host calls them: check, then create; check, diff, update with the old outputs.

let h: Harness;
let emu: Emulator;
let ctx: ResourceContext;
let limitedCtx: ResourceContext;

beforeAll(async () => {
  h = await startHarness({ taskDurationMs: 20 });
  emu = h.emu;
  ctx = h.ctx;
  limitedCtx = h.contextFor(LIMITED_TOKEN);
});

afterAll(async () => {
  await h?.close();
});

beforeEach(() => emu.clearRequests());

const create = (handler: ResourceHandler, name: string, news: Props, c: ResourceContext = ctx) => createVia(handler, c, name, news);
const update = (handler: ResourceHandler, name: string, id: string, olds: Props, oldInputs: Props, news: Props) =>
  updateVia(handler, ctx, name, id, olds, oldInputs, news);
const writes = () => h.writes();
const storagePath = (componentId: string, configId: string) => `/v2/storage/branch/default/components/${componentId}/configs/${configId}`;

const variablesArgs = {
  name: "Users extractor variables",
  variables: [
    { name: "limit", type: "int" },
    { name: "endpoint", type: "string" },
  ],
  defaultValues: { limit: "2", endpoint: "users" },
};

function extractorArgs(binding: Props, rows: Props[]) {
  return {
    componentId: "keboola.ex-generic-v2",
    name: "Users",
    description: "Users from the example API",
    configuration: {
      parameters: {
        api: { baseUrl: "https://api.example.com/", pagination: { method: "offset", limit: "{{limit}}", limitParam: "count" } },
        config: { outputBucket: "in.c-users", jobs: [{ endpoint: "{{endpoint}}", dataField: "items" }] },
      },
    },
    variables: binding,
    rows,
  };
}

const row = (name: string, extra: Props = {}) => ({ name, configuration: { parameters: { config: { userData: { row: name } } } }, ...extra });

describe("VariableConfig against the emulator", () => {
  it("creates the declarations and a values row, reads them back unchanged, updates a value in place, deletes to the trash", async () => {
    const { id, outs, inputs } = await create(variableConfig, "vars", variablesArgs);
    expect(outs).toMatchObject({ branchId: "default", name: variablesArgs.name, variables: variablesArgs.variables, defaultValues: { limit: "2", endpoint: "users" } });
    expect(typeof outs.configId).toBe("string");
    expect(typeof outs.valuesRowId).toBe("string");
    expect(id).toBe(`default/keboola.variables/${outs.configId}`);

    const remote = await ctx.client().storage.getConfig("default", "keboola.variables", String(outs.configId));
    expect(remote.configuration).toEqual({ variables: [{ name: "limit", type: "int" }, { name: "endpoint", type: "string" }] });
    expect(remote.rows).toHaveLength(1);
    expect(remote.rows[0]).toMatchObject({ id: outs.valuesRowId, configuration: { values: [{ name: "limit", value: "2" }, { name: "endpoint", value: "users" }] } });

    // Refresh: the same outputs, so `pulumi refresh --expect-no-changes` passes.
    const read = await variableConfig.read(ctx, id, outs);
    expect(read.id).toBe(id);
    expect(read.props).toEqual(outs);

    // A new default value: only the values row is written.
    emu.clearRequests();
    const changed = await update(variableConfig, "vars", id, outs, inputs, { ...variablesArgs, defaultValues: { limit: "3", endpoint: "users" } });
    expect(changed.diff).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    expect(writes()).toEqual([`PUT ${storagePath("keboola.variables", String(outs.configId))}/rows/${outs.valuesRowId}`]);
    expect(changed.outs).toMatchObject({ valuesRowId: outs.valuesRowId, defaultValues: { limit: "3", endpoint: "users" } });

    // Nothing changed: no write at all.
    emu.clearRequests();
    const same = await update(variableConfig, "vars", id, changed.outs, changed.inputs, { ...variablesArgs, defaultValues: { endpoint: "users", limit: 3 } });
    expect(same.diff.changes).toBe(false); // 3 and "3" are the same value
    expect(writes()).toEqual([]);

    await variableConfig.delete(ctx, id, changed.outs);
    expect((await ctx.client().storage.listDeletedConfigs("default", "keboola.variables")).map((c) => String(c.id))).toContain(outs.configId);
    expect(await variableConfig.read(ctx, id, changed.outs)).toEqual({ id: "" });
  });

  it("rejects a non-integer default for an int variable before anything is written", async () => {
    const r = await variableConfig.check(ctx, {}, { __resourceName: "bad", ...variablesArgs, defaultValues: { limit: "two" } });
    expect(r.failures).toEqual([
      {
        property: "defaultValues.limit",
        reason: '"two" is not an integer, but variable "limit" is declared as int: write a whole number such as "10", or declare the variable as "string"',
      },
    ]);
    expect(emu.requests()).toEqual([]);
  });
});

describe("ComponentConfig against the emulator", () => {
  let vars: { id: string; outs: Props };
  let binding: Props;

  beforeAll(async () => {
    vars = await create(variableConfig, "extractor-vars", variablesArgs);
    binding = { configId: vars.outs.configId, valuesRowId: vars.outs.valuesRowId, declared: vars.outs.variables };
  });

  it("creates the configuration with its rows and the variables references; read returns the same", async () => {
    const { id, outs } = await create(componentConfig, "users", extractorArgs(binding, [row("a"), row("b"), row("c")]));
    expect(outs.rowIds).toHaveLength(3);
    expect((outs.rows as Props[]).map((r) => r.name)).toEqual(["a", "b", "c"]);
    expect(outs.variables).toEqual(binding);
    expect(outs.warnings).toEqual([]);
    expect(outs.configuration).toEqual(extractorArgs(binding, []).configuration);

    const remote = await ctx.client().storage.getConfig("default", "keboola.ex-generic-v2", String(outs.configId));
    expect(remote.configuration).toMatchObject({ variables_id: binding.configId, variables_values_id: binding.valuesRowId });
    expect(remote.rows.map((r) => r.name)).toEqual(["a", "b", "c"]);
    expect(remote.description).toBe("Users from the example API");

    const read = await componentConfig.read(ctx, id, outs);
    expect(read.props).toEqual(outs);
    expect(read.inputs).toMatchObject({ componentId: "keboola.ex-generic-v2", variables: binding, rows: outs.rows });
  });

  it("reconciles rows: writes only the row that changed, adds, deletes and reorders without touching the others", async () => {
    const args = (rows: Props[]) => extractorArgs(binding, rows);
    let state = await create(componentConfig, "rows", args([row("a"), row("b"), row("c")]));
    const [a, b, c] = state.outs.rowIds as string[];
    const path = storagePath("keboola.ex-generic-v2", String(state.outs.configId));
    const step = async (rows: Props[]) => {
      emu.clearRequests();
      const r = await update(componentConfig, "rows", state.id, state.outs, state.inputs, args(rows));
      state = { id: state.id, outs: r.outs, inputs: r.inputs };
      return writes();
    };

    // Update one row: one PUT of that row, nothing else.
    expect(await step([row("a"), row("b", { description: "second" }), row("c")])).toEqual([`PUT ${path}/rows/${b}`]);

    // Add one at the end: one POST; the order already matches.
    expect(await step([row("a"), row("b", { description: "second" }), row("c"), row("d")])).toEqual([`POST ${path}/rows`]);
    const d = (state.outs.rowIds as string[])[3];
    expect(state.outs.rowIds).toEqual([a, b, c, d]);

    // Delete one: one DELETE.
    expect(await step([row("b", { description: "second" }), row("c"), row("d")])).toEqual([`DELETE ${path}/rows/${a}`]);
    expect(state.outs.rowIds).toEqual([b, c, d]);

    // Reorder: the configuration's rowsSortOrder only, no row written.
    expect(await step([row("d"), row("b", { description: "second" }), row("c")])).toEqual([`PUT ${path}`]);
    expect(state.outs.rowIds).toEqual([d, b, c]);
    const remote = await ctx.client().storage.getConfig("default", "keboola.ex-generic-v2", String(state.outs.configId));
    expect(remote.rows.map((r) => r.id)).toEqual([d, b, c]);

    // Rename one in place: that row is updated, keeping its id.
    expect(await step([row("d"), row("b2", { description: "second" }), row("c")])).toEqual([`PUT ${path}/rows/${b}`]);
    expect(state.outs.rowIds).toEqual([d, b, c]);

    // Insert in front: the others keep their ids (matched by name), only the order is written.
    expect(await step([row("new"), row("d"), row("b2", { description: "second" }), row("c")])).toEqual([`POST ${path}/rows`, `PUT ${path}`]);
    expect((state.outs.rowIds as string[]).slice(1)).toEqual([d, b, c]);

    // No change: no write, and read agrees with state.
    expect(await step([row("new"), row("d"), row("b2", { description: "second" }), row("c")])).toEqual([]);
    expect((await componentConfig.read(ctx, state.id, state.outs)).props).toEqual(state.outs);
  });

  it("creates rows with explicit ids and matches them by id", async () => {
    const args = (rows: Props[]) => extractorArgs(binding, rows);
    const created = await create(componentConfig, "explicit", args([row("one", { rowId: "row-one" }), row("two", { rowId: "row-two" })]));
    expect(created.outs.rowIds).toEqual(["row-one", "row-two"]);
    expect((created.outs.rows as Props[])[0]).toMatchObject({ rowId: "row-one", name: "one" });
    emu.clearRequests();
    const renamed = await update(componentConfig, "explicit", created.id, created.outs, created.inputs, args([row("second", { rowId: "row-two" }), row("first", { rowId: "row-one" })]));
    const path = storagePath("keboola.ex-generic-v2", String(created.outs.configId));
    expect(writes()).toEqual([`PUT ${path}/rows/row-two`, `PUT ${path}/rows/row-one`, `PUT ${path}`]);
    expect(renamed.outs.rowIds).toEqual(["row-two", "row-one"]);
  });

  it("updates the configuration and the binding in place", async () => {
    const created = await create(componentConfig, "binding", extractorArgs(binding, []));
    emu.clearRequests();
    const unbound = { ...extractorArgs(binding, []), variables: { configId: binding.configId, declared: binding.declared } };
    const r = await update(componentConfig, "binding", created.id, created.outs, created.inputs, { ...unbound, isDisabled: true });
    expect(writes()).toEqual([`PUT ${storagePath("keboola.ex-generic-v2", String(created.outs.configId))}`]);
    expect(r.outs).toMatchObject({ isDisabled: true, variables: { configId: binding.configId, declared: binding.declared } });
    const remote = await ctx.client().storage.getConfig("default", "keboola.ex-generic-v2", String(created.outs.configId));
    expect(remote.configuration.variables_values_id).toBeUndefined();
    expect(remote.isDisabled).toBe(true);
  });

  it("refuses an undeclared placeholder when the declarations come from the variables configuration", async () => {
    const args = extractorArgs({ configId: binding.configId }, [row("r", { configuration: { parameters: { config: { jobs: [{ endpoint: "{{missing}}" }] } } } })]);
    const checked = await componentConfig.check(ctx, {}, { __resourceName: "undeclared", ...args });
    expect(checked.failures).toEqual([]); // declarations unknown at check
    emu.clearRequests();
    await expect(componentConfig.create(ctx, checked.inputs as Props)).rejects.toThrow(
      'ComponentConfig "undeclared": rows[0].configuration.parameters.config.jobs[0].endpoint: placeholder {{missing}} refers to variable "missing"',
    );
    expect(writes()).toEqual([]);
  });

  it("moves to the trash on delete; a trashed configuration reads as gone", async () => {
    const created = await create(componentConfig, "trash", extractorArgs(binding, [row("a")]));
    await componentConfig.delete(ctx, created.id, created.outs);
    const trash = await ctx.client().storage.listDeletedConfigs("default", "keboola.ex-generic-v2");
    expect(trash.map((c) => String(c.id))).toContain(created.outs.configId);
    expect(await componentConfig.read(ctx, created.id, created.outs)).toEqual({ id: "" });
  });

  it("reads a configuration trashed outside Pulumi as gone", async () => {
    const created = await create(componentConfig, "trashed-elsewhere", extractorArgs(binding, []));
    await ctx.client().storage.deleteConfig("default", "keboola.ex-generic-v2", String(created.outs.configId));
    expect(await componentConfig.read(ctx, created.id, created.outs)).toEqual({ id: "" });
  });

  it("purges with purgeOnDelete", async () => {
    const created = await create(componentConfig, "purge", { ...extractorArgs(binding, [row("a")]), purgeOnDelete: true });
    emu.clearRequests();
    await componentConfig.delete(ctx, created.id, created.outs);
    const path = storagePath("keboola.ex-generic-v2", String(created.outs.configId));
    expect(writes()).toEqual([`DELETE ${path}`, `DELETE ${path}`]);
    const trash = await ctx.client().storage.listDeletedConfigs("default", "keboola.ex-generic-v2");
    expect(trash.map((c) => String(c.id))).not.toContain(created.outs.configId);
    expect(await ctx.client().storage.findConfig("default", "keboola.ex-generic-v2", String(created.outs.configId))).toBeUndefined();
    // Deleting again (already gone) is fine.
    await componentConfig.delete(ctx, created.id, created.outs);
  });

  it("creates with an explicit configId and replaces when it changes", async () => {
    const created = await create(componentConfig, "fixed", { ...extractorArgs(binding, []), configId: "users-fixed" });
    expect(created.id).toBe("default/keboola.ex-generic-v2/users-fixed");
    const diff = await componentConfig.diff(ctx, created.id, created.outs, { ...created.inputs, configId: "users-other" });
    expect(diff.replaces).toEqual(["configId"]);
    expect((await componentConfig.diff(ctx, created.id, created.outs, { ...created.inputs, configId: undefined })).changes).toBe(false);
  });
});

describe("permissions", () => {
  it("refuses a token that may not manage configurations before writing anything", async () => {
    const news = { __resourceName: "limited", componentId: "keboola.ex-generic-v2", name: "Nope", configuration: {} };
    const checked = await componentConfig.check(limitedCtx, {}, news);
    await expect(componentConfig.create(limitedCtx, checked.inputs as Props)).rejects.toThrow(
      'ComponentConfig "limited": the token may not manage configurations of component "keboola.ex-generic-v2": the token "Limited token" (id 1002) is not a master token and its componentAccess is empty. Nothing was changed. Use a master token (pulumi config set --secret keboola:token ...), or a token whose componentAccess includes "keboola.ex-generic-v2".',
    );
    const vchecked = await variableConfig.check(limitedCtx, {}, { __resourceName: "limited-vars", ...variablesArgs });
    await expect(variableConfig.create(limitedCtx, vchecked.inputs as Props)).rejects.toThrow(/VariableConfig "limited-vars": the token may not manage configurations of component "keboola.variables"/);
    const jchecked = await jobRun.check(limitedCtx, {}, { __resourceName: "limited-run", componentId: "keboola.ex-generic-v2", configId: "1" });
    await expect(jobRun.create(limitedCtx, jchecked.inputs as Props)).rejects.toThrow(/JobRun "limited-run": the token may not run jobs of component "keboola.ex-generic-v2"/);
    expect(emu.writes()).toEqual([]);
  });
});

describe("JobRun against the emulator", () => {
  let config: { id: string; outs: Props };

  beforeAll(async () => {
    const vars = await create(variableConfig, "job-vars", variablesArgs);
    const binding = { configId: vars.outs.configId, valuesRowId: vars.outs.valuesRowId, declared: vars.outs.variables };
    config = await create(componentConfig, "job-config", extractorArgs(binding, [row("a")]));
  });

  it("runs with given values and records the job", async () => {
    const { id, outs } = await create(jobRun, "run-ok", {
      componentId: "keboola.ex-generic-v2",
      configId: config.outs.configId,
      variableValuesData: { limit: 5, endpoint: "orders" },
      triggers: ["v1"],
    });
    expect(outs).toMatchObject({ jobId: id, status: "success" });
    expect(typeof outs.durationSeconds).toBe("number");
    const job = emu.requests().find((r) => r.method === "POST" && r.path.endsWith("/jobs"));
    expect(job).toBeDefined();
    expect(await jobRun.read(ctx, id, outs)).toEqual({ id, props: outs });
    await jobRun.delete(ctx, id, outs);
  });

  it("runs with the configuration's default values", async () => {
    const { outs } = await create(jobRun, "run-defaults", { componentId: "keboola.ex-generic-v2", configId: config.outs.configId });
    expect(outs.status).toBe("success");
  });

  it("fails with the job's message, naming the resource, when a value is missing", async () => {
    const checked = await jobRun.check(ctx, {}, {
      __resourceName: "run-missing",
      componentId: "keboola.ex-generic-v2",
      configId: config.outs.configId,
      variableValuesData: { limit: "5" },
    });
    await expect(jobRun.create(ctx, checked.inputs as Props)).rejects.toThrow(
      /^JobRun "run-missing": job \d+ of keboola\.ex-generic-v2 configuration kp-[0-9a-f]{20} ended with status "error": No value provided for variable "endpoint"\.$/,
    );
  });
});

describe("JobRun in detail", () => {
  const EX = "keboola.ex-generic-v2";
  let configId: string;
  beforeAll(async () => {
    const vars = await create(variableConfig, "detail-vars", variablesArgs);
    const binding = { configId: vars.outs.configId, valuesRowId: vars.outs.valuesRowId, declared: vars.outs.variables };
    configId = String((await create(componentConfig, "detail-config", extractorArgs(binding, [row("a")]))).outs.configId);
  });
  const check = (name: string, news: Props, facts: Props = {}) => jobRun.check(ctx, {}, { __resourceName: name, __owner: ownerUrn(name), __program: facts, ...news });
  const reasons = async (news: Props, facts: Props = {}) => ((await check("bad", news, facts)).failures ?? []).map((f) => [f.property, f.reason]);
  const jobPosts = () => emu.requests().filter((r) => r.method === "POST" && r.path === "/queue/jobs");

  it("names each bad input by its path, with the rule it breaks", async () => {
    expect(await reasons({})).toEqual([
      ["componentId", 'required: the component id, e.g. "keboola.ex-generic-v2"'],
      ["configId", "required: the configuration to run (ComponentConfig.configId)"],
    ]);
    expect(await reasons({ componentId: "", configId: "", variableValuesId: "", timeoutSeconds: 0 })).toEqual([
      ["componentId", "must not be empty"],
      ["configId", "must not be empty"],
      ["variableValuesId", "must not be empty"],
      ["timeoutSeconds", "must be a positive number of seconds"],
    ]);
    expect(emu.requests()).toEqual([]);
  });

  it("looks the configuration up only when the inputs are otherwise valid and what it needs is known", async () => {
    // Two sources of values: refused for that alone, the missing configuration is not looked up.
    expect(await reasons({ componentId: EX, configId: "nobody", variableValuesData: { limit: "1" }, variableValuesId: "1" })).toEqual([
      ["variableValuesId", "set either variableValuesData or variableValuesId, not both (the Queue accepts one source of values)"],
    ]);
    expect(emu.requests()).toEqual([]);
    expect(await reasons({ componentId: EX, configId: "nobody", branchId: UNKNOWN })).toEqual([]);
    expect(await reasons({ componentId: EX, configId: UNKNOWN })).toEqual([]);
    expect(emu.requests()).toEqual([]);
    expect((await reasons({ componentId: EX, configId: "nobody" })).map(([p]) => p)).toEqual(["configId"]);
    // A configuration of this program, its id not known yet: checked as the program declares it.
    const disabled = { declared: true, configuration: { resource: "later", isDisabled: true, bound: false } };
    expect(await reasons({ componentId: EX, configId: UNKNOWN }, disabled)).toEqual([["configId", expect.stringMatching(/^ComponentConfig "later" of this program is disabled/)]]);
  });

  it("records the job's API URL; its duration is the Queue's figure, else its start and end times", async () => {
    const { outs } = await create(jobRun, "run-url", { componentId: EX, configId, variableValuesData: { limit: 1, endpoint: "x" } });
    expect(outs.url).toBe(`${emu.urls.queue}/jobs/${outs.jobId}`);
    expect(durationOf({ durationSeconds: 7, startTime: "2026-01-01T00:00:00Z", endTime: "2026-01-01T00:00:09Z" })).toBe(7);
    expect(durationOf({ startTime: "2026-01-01T00:00:00.000Z", endTime: "2026-01-01T00:00:02.345Z" })).toBe(2.35);
    // A clock that went back is no negative run time.
    expect(durationOf({ startTime: "2026-01-01T00:00:05Z", endTime: "2026-01-01T00:00:00Z" })).toBe(0);
    expect(durationOf({ startTime: "2026-01-01T00:00:00Z" })).toBeUndefined();
    expect(durationOf({ endTime: "2026-01-01T00:00:00Z" })).toBeUndefined();
  });

  it("sends the values row or the values as the Queue takes them, and the branch only when it is not the default one", () => {
    const base = { branchId: "default", componentId: EX, configId: "c", triggers: undefined, timeoutSeconds: undefined };
    expect(JSON.parse(JSON.stringify(jobRequest({ ...base, variableValuesId: "7" })))).toEqual({ component: EX, config: "c", mode: "run", variableValuesId: "7" });
    expect(JSON.parse(JSON.stringify(jobRequest({ ...base, branchId: "12", variableValuesData: { limit: "5" } })))).toEqual({ component: EX, config: "c", mode: "run", branchId: "12", variableValuesData: { values: [{ name: "limit", value: "5" }] } });
    expect(JSON.parse(JSON.stringify(jobRequest({ ...base, variableValuesData: {} })))).toEqual({ component: EX, config: "c", mode: "run" });
  });

  it("a job start that keeps failing ambiguously is tried four times, then refused naming the resource and the configuration; no job is left", async () => {
    const inputs = (await check("unstartable", { componentId: EX, configId, variableValuesData: { limit: 1, endpoint: "x" } })).inputs as Props;
    emu.clearRequests();
    emu.setFaults({ rate5xx: 1, methods: ["POST"], pathPrefixes: ["/queue/jobs"] });
    try {
      await expect(jobRun.create(ctx, inputs)).rejects.toThrow(new RegExp(`^JobRun "unstartable": could not start a job of ${EX.replace(/\./g, "\\.")} configuration ${configId}: POST /queue/jobs \\(queue\\) failed with 50\\d`));
    } finally {
      emu.setFaults({});
    }
    expect(jobPosts().map((r) => r.fault)).toEqual(["5xx", "5xx", "5xx", "5xx"]);
  });

  it("a job that outlives its timeout is said to keep running, and that the next up starts a new one", async () => {
    const inputs = (await check("slow", { componentId: EX, configId, variableValuesData: { limit: 1, endpoint: "x" }, timeoutSeconds: 0.001 })).inputs as Props;
    await expect(jobRun.create(ctx, inputs)).rejects.toThrow(/^JobRun "slow" \(job \d+\).*\. The job keeps running in Keboola; this run is not recorded, so the next `pulumi up` starts a new one$/);
  });

  it("a change of the timeout alone is an update, which keeps the recorded run; read keeps what was recorded, with defaults for what it lacks", async () => {
    const olds = { branchId: "default", componentId: EX, configId: "c", jobId: "5", status: "success" };
    expect(await jobRun.diff(ctx, "5", olds, { ...olds, timeoutSeconds: 30 })).toMatchObject({ changes: true, replaces: [] });
    expect(await jobRun.diff(ctx, "5", { ...olds, timeoutSeconds: 30 }, { ...olds, timeoutSeconds: 30 })).toMatchObject({ changes: false });
    expect(await jobRun.diff(ctx, "5", olds, { ...olds, triggers: ["v2"] })).toMatchObject({ changes: true, replaces: ["triggers"] });
    const updated = await jobRun.update(ctx, "5", {}, { branchId: "12", componentId: EX, configId: "d", timeoutSeconds: 30 });
    expect(updated.outs).toMatchObject({ branchId: "12", componentId: EX, configId: "d", jobId: "", status: "success", timeoutSeconds: 30 });
    expect((await jobRun.read(ctx, "9", {})).props).toMatchObject({ branchId: "default", componentId: "", configId: "", jobId: "9", status: "success" });
  });
});

describe("JobRun's preflight of the variables, from the stack", () => {
  const EX = "keboola.ex-generic-v2";
  const storage = () => ctx.client().storage;
  const reasons = async (news: Props) =>
    ((await jobRun.check(ctx, {}, { __resourceName: "pre", __owner: ownerUrn("pre"), componentId: EX, ...news })).failures ?? []).map((f) => [f.property, f.reason]);
  const vars = async (id: string, rows: Array<{ id: string; values: string[] }>) => {
    await storage().createConfig("default", "keboola.variables", { configurationId: id, name: id, configuration: { variables: [{ name: "limit", type: "string" }, { name: "endpoint", type: "string" }] } });
    for (const r of rows) await storage().createRow("default", "keboola.variables", id, { rowId: r.id, name: r.id, configuration: { values: [...r.values.map((n) => ({ name: n, value: "1" })), { note: "not a value" }, "junk"] } });
  };
  const bound = async (id: string, configuration: Props) => storage().createConfig("default", EX, { configurationId: id, name: id, configuration });

  it("a binding to a variables configuration that is gone is refused, at the values when they are given", async () => {
    await bound("pre-gone", { variables_id: "no-such-vars" });
    const gone = 'the variables configuration "no-such-vars" bound to "pre-gone" does not exist: bind an existing VariableConfig';
    expect(await reasons({ configId: "pre-gone" })).toEqual([["configId", gone]]);
    expect(await reasons({ configId: "pre-gone", variableValuesData: { limit: "1", endpoint: "x" } })).toEqual([["variableValuesData", gone]]);
    // An empty variables_id binds nothing.
    await bound("pre-empty", { variables_id: "" });
    expect(await reasons({ configId: "pre-empty", variableValuesData: { limit: "1" } })).toEqual([
      ["variableValuesData", `configuration "pre-empty" of ${EX} has no variables bound (no variables_id), so the values would be ignored: bind a VariableConfig to it (variables: vars.binding()), or remove variableValuesData`],
    ]);
  });

  it("the default values row: none named (an empty id is none), or one lacking a declared value", async () => {
    await vars("pre-vars", [{ id: "full", values: ["limit", "endpoint"] }, { id: "half", values: ["limit"] }]);
    await bound("pre-no-default", { variables_id: "pre-vars", variables_values_id: "" });
    expect(await reasons({ configId: "pre-no-default" })).toEqual([
      [
        "variableValuesData",
        `is not set, and configuration "pre-no-default" of ${EX} names no default values row of variables configuration "pre-vars" (variables.valuesRowId), so the job would fail ("No variable values provided"): pass variableValuesData or variableValuesId, or bind with defaultValues (variables: vars.binding() of a VariableConfig with defaultValues)`,
      ],
    ]);
    await bound("pre-half", { variables_id: "pre-vars", variables_values_id: "half" });
    expect(await reasons({ configId: "pre-half" })).toEqual([
      [
        "variableValuesData",
        'is not set, and the default values of variables configuration "pre-vars" have no value for variable "endpoint", which it declares, so the job would fail (No value provided for variable "endpoint".): pass variableValuesData with a value for each, or add them to its default values row',
      ],
    ]);
    await bound("pre-full", { variables_id: "pre-vars", variables_values_id: "full" });
    expect(await reasons({ configId: "pre-full" })).toEqual([]);
  });

  it("a values row named by id: one the variables configuration lacks lists its rows (or none)", async () => {
    await vars("pre-vars-2", [{ id: "r1", values: ["limit", "endpoint"] }]);
    await bound("pre-rows", { variables_id: "pre-vars-2" });
    expect(await reasons({ configId: "pre-rows", variableValuesId: "r9" })).toEqual([
      ["variableValuesId", '"r9" is not a values row of variables configuration "pre-vars-2" (its rows: r1): use one of them, or pass variableValuesData'],
    ]);
    expect(await reasons({ configId: "pre-rows", variableValuesId: "r1" })).toEqual([]);
    await storage().createRow("default", "keboola.variables", "pre-vars-2", { rowId: "r2", name: "r2", configuration: { values: [] } });
    expect((await reasons({ configId: "pre-rows", variableValuesId: "r9" }))[0]?.[1]).toContain("(its rows: r1, r2)");
    await vars("pre-vars-3", []);
    await bound("pre-norows", { variables_id: "pre-vars-3" });
    expect(await reasons({ configId: "pre-norows", variableValuesId: "r1" })).toEqual([
      ["variableValuesId", '"r1" is not a values row of variables configuration "pre-vars-3" (its rows: none): use one of them, or pass variableValuesData'],
    ]);
  });
});

describe("JobRun's preflight of the variables, from the stack and the program together", () => {
  const EX = "keboola.ex-generic-v2";
  const storage = () => ctx.client().storage;
  const reasons = async (news: Props) =>
    ((await jobRun.check(ctx, {}, { __resourceName: "mix", __owner: ownerUrn("mix"), componentId: EX, ...news })).failures ?? []).map((f) => [f.property, f.reason]);
  beforeAll(async () => {
    await storage().createConfig("default", "keboola.variables", { configurationId: "mix-vars", name: "mix-vars", configuration: { variables: [{ name: "limit", type: "string" }, { name: "endpoint", type: "string" }] } });
    await storage().createRow("default", "keboola.variables", "mix-vars", { rowId: "full", name: "full", configuration: { values: [{ name: "limit", value: "1" }, { name: "endpoint", value: "x" }] } });
    await storage().createRow("default", "keboola.variables", "mix-vars", { rowId: "half", name: "half", configuration: { values: [{ name: "limit", value: "1" }] } });
  });

  it("a configuration of the stack with no variables_id binds nothing: values for it are refused", async () => {
    await storage().createConfig("default", EX, { configurationId: "mix-unbound", name: "mix-unbound", configuration: { parameters: {} } });
    expect(await reasons({ configId: "mix-unbound", variableValuesData: { limit: "1" } })).toEqual([
      ["variableValuesData", `configuration "mix-unbound" of ${EX} has no variables bound (no variables_id), so the values would be ignored: bind a VariableConfig to it (variables: vars.binding()), or remove variableValuesData`],
    ]);
    expect(await reasons({ configId: "mix-unbound" })).toEqual([]);
  });

  it("a ComponentConfig of the program bound to variables only the stack has: their rows are the stack's, its default row is not known", async () => {
    const program = { declared: true, configuration: { resource: "users", isDisabled: false, bound: true, variablesId: "mix-vars" } };
    expect(await reasons({ configId: UNKNOWN, __program: program })).toEqual([]);
    expect(await reasons({ configId: UNKNOWN, variableValuesId: "half", __program: program })).toEqual([
      [
        "variableValuesId",
        'values row "half" of variables configuration "mix-vars" has no value for variable "endpoint", which it declares, so the job would fail (No value provided for variable "endpoint".): add them to that row, or pass variableValuesData',
      ],
    ]);
  });

  it("a VariableConfig of the program that exists already: a values row named by id is read from the stack", async () => {
    const declared = [{ name: "limit", type: "string" }, { name: "endpoint", type: "string" }];
    const program = {
      declared: true,
      configuration: { resource: "users", isDisabled: false, bound: true, variablesId: "mix-vars", variables: { resource: "vars", declared, defaultValueNames: ["limit", "endpoint"], valuesRowId: UNKNOWN, defaultRow: "declared" } },
    };
    expect(await reasons({ configId: UNKNOWN, variableValuesId: "full", __program: program })).toEqual([]);
    expect((await reasons({ configId: UNKNOWN, variableValuesId: "half", __program: program }))[0]?.[1]).toMatch(/^values row "half" of VariableConfig "vars" of this program has no value for variable "endpoint"/);
    expect(await reasons({ configId: UNKNOWN, variableValuesId: "nope", __program: program })).toEqual([
      ["variableValuesId", '"nope" is not a values row of VariableConfig "vars" of this program (its rows: full, half): use one of them, or pass variableValuesData'],
    ]);
  });
});

describe("JobRun's preflight of the variables, from the program (a ComponentConfig and VariableConfig not created yet)", () => {
  const EX = "keboola.ex-generic-v2";
  const declared = [{ name: "limit", type: "string" }, { name: "endpoint", type: "string" }];
  /** The facts of a JobRun whose ComponentConfig "users", bound to VariableConfig "vars", this program declares. */
  const facts = (config: Props = {}, variables: Props = {}): Props => ({
    declared: true,
    configuration: {
      resource: "users",
      isDisabled: false,
      bound: true,
      variablesId: UNKNOWN,
      ...config,
      variables: { resource: "vars", declared, defaultValueNames: ["limit", "endpoint"], valuesRowId: UNKNOWN, defaultRow: "declared", ...variables },
    },
  });
  const reasons = async (program: Props, news: Props = {}) =>
    ((await jobRun.check(ctx, {}, { __resourceName: "pre", __owner: ownerUrn("pre"), componentId: EX, configId: UNKNOWN, __program: program, ...news })).failures ?? []).map((f) => [f.property, f.reason]);
  const noDefaults = `is not set, and ComponentConfig "users" of this program names no default values row of VariableConfig "vars" of this program (variables.valuesRowId), so the job would fail ("No variable values provided"): pass variableValuesData or variableValuesId, or bind with defaultValues (variables: vars.binding() of a VariableConfig with defaultValues)`;

  it("accepts what the program declares complete, and what it does not know yet", async () => {
    expect(await reasons(facts())).toEqual([]);
    // Enabled or not is known only once deployed: not refused as disabled.
    expect(await reasons(facts({ isDisabled: UNKNOWN }))).toEqual([]);
    // The binding names another values row than the VariableConfig's own: its values are not known here.
    expect(await reasons(facts({}, { defaultRow: "other", defaultValueNames: undefined }))).toEqual([]);
    // Default values given as an output: their names are not known yet.
    expect(await reasons(facts({}, { defaultValueNames: UNKNOWN }))).toEqual([]);
    expect(await reasons(facts({}, { defaultValueNames: ["limit", UNKNOWN] }))).toEqual([]);
    // Declarations not known yet: a value of any name is accepted.
    expect(await reasons(facts({}, { declared: UNKNOWN }), { variableValuesData: { other: "1" } })).toEqual([]);
  });

  it("refuses a job that would find no default values, or miss some, naming each missing variable", async () => {
    expect(await reasons(facts({}, { defaultValueNames: undefined }))).toEqual([["variableValuesData", noDefaults]]);
    expect(await reasons(facts({}, { defaultValueNames: [] }))).toEqual([
      [
        "variableValuesData",
        'is not set, and the default values of VariableConfig "vars" of this program have no value for variables "limit", "endpoint", which it declares, so the job would fail (No value provided for variable "limit".): pass variableValuesData with a value for each, or add them to the defaultValues of VariableConfig "vars"',
      ],
    ]);
  });

  it("reads the VariableConfig's own values row, named by its known id, from its defaultValues", async () => {
    const own = (names: string[] | undefined) => facts({}, { valuesRowId: "vals", defaultValueNames: names });
    expect(await reasons(own(["limit", "endpoint"]), { variableValuesId: "vals" })).toEqual([]);
    expect(await reasons(own(["limit"]), { variableValuesId: "vals" })).toEqual([
      [
        "variableValuesId",
        'values row "vals" of VariableConfig "vars" of this program has no value for variable "endpoint", which it declares, so the job would fail (No value provided for variable "endpoint".): add them to that row, or pass variableValuesData',
      ],
    ]);
    // Without defaultValues its row has no values at all.
    expect((await reasons(own(undefined), { variableValuesId: "vals" }))[0]?.[1]).toMatch(/has no value for variables "limit", "endpoint"/);
  });
});
