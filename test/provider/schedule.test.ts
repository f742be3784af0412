import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { FaultKind, FaultOptions } from "../../emulator/core/faults";
import { componentConfig, flow, schedule } from "./hosted";
import type { Props } from "../../provider/lifecycle/types";
import { createVia, LIMITED_TOKEN, ownerUrn, startHarness, throttled, updateVia, type Harness, withOneFault } from "./harness";
import { exportProject } from "../../provider/manifest/export";
import { UNKNOWN } from "../../provider/validation/check";
import { scheduleFromConfiguration, schedulerConfiguration } from "../../provider/kinds/schedule/kind";
import { PartialFailure } from "../../provider/lifecycle/types";
import { parseManifest } from "../../provider/manifest/parse";

// Flow and Schedule handlers against the emulator, called as the dynamic provider host calls
// them: what they write, what preview refuses before any write, and exactly-once under faults.

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ taskDurationMs: 10 });
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => h.emu.clearRequests());

const EXTRACTOR = "keboola.ex-generic-v2";
const CONFIGS = "/v2/storage/branch/default/components";
const extractor = (configId: string, extra: Props = {}) => ({
  componentId: EXTRACTOR,
  configId,
  name: configId,
  configuration: { parameters: { api: { baseUrl: "https://api.example.com/" }, config: { outputBucket: `in.c-${configId}`, jobs: [{ endpoint: configId }] } } },
  ...extra,
});
const phases = (users: string, orders: string) => [
  { name: "extract", tasks: [{ componentId: EXTRACTOR, configId: users }] },
  { name: "load", dependsOn: ["extract"], tasks: [{ componentId: EXTRACTOR, configId: orders }] },
];
const schedules = () => Object.values(h.emu.state.scheduler.schedules);
const check = (handler: typeof flow, name: string, news: Props, facts: Props = {}) =>
  handler.check(h.ctx, {}, { __resourceName: name, __owner: ownerUrn(name), __program: facts, ...news });

describe("Flow", () => {
  it("writes the phases as a keboola.flow configuration, reads them back unchanged, updates in place, deletes to the trash", async () => {
    await createVia(componentConfig, h.ctx, "users", extractor("users"));
    await createVia(componentConfig, h.ctx, "orders", extractor("orders"));
    h.emu.clearRequests();
    const f = await createVia(flow, h.ctx, "nightly", { name: "Nightly", phases: phases("users", "orders") });
    const stored = h.emu.state.storage.configs[Object.keys(h.emu.state.storage.configs).find((k) => h.emu.state.storage.configs[k]!.componentId === "keboola.flow")!]!;
    // The create, then the owner marker in the configuration's metadata (ownership.ts).
    expect(h.writes()).toEqual([`POST ${CONFIGS}/keboola.flow/configs`, `POST ${CONFIGS}/keboola.flow/configs/${stored.id}/metadata`]);
    expect(stored.configuration).toEqual({
      phases: [{ id: 1, name: "extract", dependsOn: [] }, { id: 2, name: "load", dependsOn: [1] }],
      tasks: [
        { id: 1, name: `${EXTRACTOR}-users`, phase: 1, enabled: true, continueOnFailure: false, task: { componentId: EXTRACTOR, configId: "users", mode: "run" } },
        { id: 2, name: `${EXTRACTOR}-orders`, phase: 2, enabled: true, continueOnFailure: false, task: { componentId: EXTRACTOR, configId: "orders", mode: "run" } },
      ],
    });
    expect(f.outs).toMatchObject({ componentId: "keboola.flow", configId: expect.any(String) });
    const read = await flow.read(h.ctx, f.id, f.outs);
    expect((await flow.diff(h.ctx, f.id, read.props as Props, f.inputs)).changes).toBe(false);

    // A task's configId unknown at preview (its ComponentConfig being updated) is no change of the flow.
    const pending = { ...f.inputs, phases: phases("users", UNKNOWN) };
    expect((await flow.diff(h.ctx, f.id, f.outs, pending)).changes).toBe(false);

    h.emu.clearRequests();
    const swapped = await updateVia(flow, h.ctx, "nightly", f.id, f.outs, f.inputs, { name: "Nightly", phases: phases("orders", "users") });
    expect(swapped.diff.replaces).toEqual([]);
    expect(h.writes()).toEqual([`PUT ${CONFIGS}/keboola.flow/configs/${f.outs.configId}`]);

    h.emu.clearRequests();
    await flow.delete(h.ctx, f.id, swapped.outs);
    await flow.delete(h.ctx, f.id, swapped.outs);
    expect(h.writes()).toEqual([`DELETE ${CONFIGS}/keboola.flow/configs/${f.outs.configId}`]);
    // Gone (in the trash): a refresh drops it from state.
    expect(await flow.read(h.ctx, f.id, swapped.outs)).toEqual({ id: "" });
  });

  it("refuses at check, with no write, a task of a configuration that neither exists nor is declared, a missing phase, a cycle and an empty phase", async () => {
    const missing = await check(flow, "bad", { name: "Bad", phases: phases("users", "nobody") });
    expect(missing.failures).toEqual([{ property: "phases[1].tasks[0].configId", reason: expect.stringMatching(/^configuration "nobody" of keboola\.ex-generic-v2 does not exist .*no ComponentConfig of this program declares it/) }]);
    // Declared in the same program (the class passes it as a fact): not looked up.
    expect((await check(flow, "bad", { name: "Bad", phases: phases("users", "nobody") }, { declaredTasks: [[false], [true]] })).failures).toEqual([]);
    const cycle = await check(flow, "bad", { name: "Bad", phases: [{ name: "a", dependsOn: ["b"], tasks: [{ componentId: EXTRACTOR, configId: "users" }] }, { name: "b", dependsOn: ["a"], tasks: [{ componentId: EXTRACTOR, configId: "users" }] }] });
    expect((cycle.failures ?? []).map((f) => f.reason)).toEqual([expect.stringMatching(/found cycles in phases "dependsOn": "a" -> "b" -> "a"/)]);
    const empty = await check(flow, "bad", { name: "Bad", phases: [{ name: "a", tasks: [] }, { name: "b", dependsOn: ["c"], tasks: [{ componentId: EXTRACTOR, configId: "users" }] }] });
    expect((empty.failures ?? []).map((f) => f.reason)).toEqual([expect.stringMatching(/missing phase "c", referenced from "b"/)]);
    const onlyEmpty = await check(flow, "bad", { name: "Bad", phases: [{ name: "a", tasks: [] }] });
    expect((onlyEmpty.failures ?? []).map((f) => f.reason)).toEqual([expect.stringMatching(/phase "a" has no tasks/)]);
    const adopt = await check(flow, "bad", { name: "Bad", adoptExisting: true, phases: phases("users", "orders") });
    expect(adopt.failures).toEqual([{ property: "adoptExisting", reason: "needs configId: set the id of the existing configuration to take over, or remove adoptExisting" }]);
    expect(h.writes()).toEqual([]);
  });
});

describe("Schedule", () => {
  const target = { componentId: EXTRACTOR, configId: "users" };

  it("creates the scheduler configuration and its activation, lists the next runs, re-activates on a cron change in place, and deletes both", async () => {
    const s = await createVia(schedule, h.ctx, "daily", { name: "Daily", cron: "0 3 * * *", timezone: "Europe/Prague", target });
    const configId = s.outs.configId as string;
    expect(h.writes()).toEqual([`POST ${CONFIGS}/keboola.scheduler/configs`, `POST ${CONFIGS}/keboola.scheduler/configs/${configId}/metadata`, "POST /scheduler/schedules"]);
    const [active] = schedules().filter((x) => x.configurationId === configId);
    expect(active).toMatchObject({ id: s.outs.scheduleId, configurationVersionId: String(s.outs.version), schedule: { cronTab: "0 3 * * *", timezone: "Europe/Prague", state: "enabled" }, target: { componentId: EXTRACTOR, configurationId: "users", mode: "run" } });
    const runs = s.outs.nextRuns as string[];
    expect(runs).toHaveLength(3);
    expect(Date.parse(runs[1]!) - Date.parse(runs[0]!)).toBeGreaterThanOrEqual(23 * 3_600_000);

    const read = await schedule.read(h.ctx, s.id, s.outs);
    expect((await schedule.diff(h.ctx, s.id, read.props as Props, s.inputs)).changes).toBe(false);
    // Refresh keeps the run times while the first is ahead; once it has passed they move on.
    expect((read.props as Props).nextRuns).toEqual(runs);
    const passed = ["2001-01-01T02:00:00.000Z", "2001-01-02T02:00:00.000Z", "2001-01-03T02:00:00.000Z"];
    expect(((await schedule.read(h.ctx, s.id, { ...s.outs, nextRuns: passed })).props as Props).nextRuns).toEqual(runs);
    // The target's configId unknown at preview (its Flow being updated) is no change of the schedule.
    expect((await schedule.diff(h.ctx, s.id, s.outs, { ...s.inputs, target: { ...target, configId: UNKNOWN } })).changes).toBe(false);

    h.emu.clearRequests();
    const changed = await updateVia(schedule, h.ctx, "daily", s.id, s.outs, s.inputs, { name: "Daily", cron: "30 4 * * 1-5", timezone: "Europe/Prague", target });
    expect(changed.diff.replaces).toEqual([]);
    expect(h.writes()).toEqual([`PUT ${CONFIGS}/keboola.scheduler/configs/${configId}`, "POST /scheduler/schedules"]);
    expect(schedules().filter((x) => x.configurationId === configId)).toMatchObject([{ configurationVersionId: String(changed.outs.version), schedule: { cronTab: "30 4 * * 1-5" } }]);

    // An activation deleted behind Pulumi's back: refresh notices, the next update activates again.
    delete h.emu.state.scheduler.schedules[String(changed.outs.scheduleId)];
    const refreshed = (await schedule.read(h.ctx, s.id, changed.outs)).props as Props;
    expect(refreshed.scheduleId).toBeUndefined();
    expect((await schedule.diff(h.ctx, s.id, refreshed, changed.inputs)).changes).toBe(true);
    h.emu.clearRequests();
    const again = await schedule.update(h.ctx, s.id, refreshed, changed.inputs);
    expect(h.writes()).toEqual(["POST /scheduler/schedules"]);
    expect(again.outs?.scheduleId).toBeDefined();

    h.emu.clearRequests();
    await schedule.delete(h.ctx, s.id, again.outs as Props);
    expect(h.writes()).toEqual([`DELETE /scheduler/configurations/${configId}`, `DELETE ${CONFIGS}/keboola.scheduler/configs/${configId}`]);
    expect(schedules().filter((x) => x.configurationId === configId)).toEqual([]);
  });

  it("refuses at check, with no write: a bad cron, an unknown timezone, a missing or disabled target, values of undeclared variables", async () => {
    const failures = async (news: Props, facts: Props = {}) => ((await check(schedule, "bad", { name: "Bad", ...news }, facts)).failures ?? []).map((f) => `${f.property}: ${f.reason}`);
    expect(await failures({ cron: "0 3 * *", target })).toEqual([expect.stringMatching(/^cron: "0 3 \* \*" has 4 fields, the Scheduler takes exactly 5/)]);
    expect(await failures({ cron: "0 0 3 * * *", target })).toEqual([expect.stringMatching(/has 6 fields, .*no seconds or year field/)]);
    expect(await failures({ cron: "0 3 31 2 *", target })).toEqual([expect.stringMatching(/never fires/)]);
    expect(await failures({ cron: "0 3 * * *", timezone: "Europe/Prag", target })).toEqual([expect.stringMatching(/^timezone: "Europe\/Prag" is not an IANA timezone name/)]);
    expect(await failures({ cron: "0 3 * * *", target: { componentId: EXTRACTOR, configId: "nobody" } })).toEqual([expect.stringMatching(/^target\.configId: configuration "nobody" of keboola\.ex-generic-v2 does not exist/)]);
    await createVia(componentConfig, h.ctx, "off", extractor("off", { isDisabled: true }));
    h.emu.clearRequests();
    expect(await failures({ cron: "0 3 * * *", target: { componentId: EXTRACTOR, configId: "off" } })).toEqual([expect.stringMatching(/^target\.configId: configuration "off" of keboola\.ex-generic-v2 is disabled, so its job would fail: .*or remove this Schedule/)]);
    // Declared in the program: as the program says, even before it exists.
    const declaredOff = { declared: true, configuration: { resource: "later", isDisabled: true, bound: false } };
    expect(await failures({ cron: "0 3 * * *", target: { componentId: EXTRACTOR, configId: "later" } }, declaredOff)).toEqual([expect.stringMatching(/ComponentConfig "later" of this program is disabled/)]);
    const declaredFlow = { declared: true, configuration: { resource: "nightly", isDisabled: false, bound: false } };
    expect(await failures({ cron: "@daily", target: { componentId: "keboola.flow", configId: "later" } }, declaredFlow)).toEqual([]);
    const disabledFlow = { declared: true, configuration: { type: "Flow", resource: "nightly", isDisabled: true, bound: false } };
    expect(await failures({ cron: "@daily", target: { componentId: "keboola.flow", configId: "later" } }, disabledFlow)).toEqual([
      'target.configId: Flow "nightly" of this program is disabled, so its job would fail: set isDisabled: false on Flow "nightly", or remove this Schedule',
    ]);
    expect(await failures({ cron: "@daily", target: { componentId: "keboola.flow", configId: "later", variableValuesData: { limit: "1" } } }, declaredFlow)).toEqual([
      expect.stringMatching(/^target\.variableValuesData: .*has no variables bound/),
    ]);
    const bound = {
      declared: true,
      configuration: { resource: "users", isDisabled: false, bound: true, variables: { resource: "vars", declared: [{ name: "limit", type: "int" }], defaultValueNames: ["limit"], defaultRow: "declared" } },
    };
    expect(await failures({ cron: "@daily", target: { componentId: EXTRACTOR, configId: "users", variableValuesData: { limt: "1" } } }, bound)).toEqual([
      expect.stringMatching(/^target\.variableValuesData\.limt: "limt" is not a declared variable \(declared: limit\)/),
      expect.stringMatching(/^target\.variableValuesData: .*no value for variable "limit"/),
    ]);
    // Rules across fields: adoption needs the id; values are given one way only.
    expect(await failures({ cron: "@daily", adoptExisting: true, target: { componentId: "keboola.flow", configId: "later" } }, declaredFlow)).toEqual([
      "adoptExisting: needs configId: set the id of the existing configuration to take over, or remove adoptExisting",
    ]);
    expect(await failures({ cron: "@daily", target: { componentId: EXTRACTOR, configId: "users", variableValuesData: { limit: "1" }, variableValuesId: "123" } }, bound)).toEqual([
      "target.variableValuesId: set either variableValuesData or variableValuesId, not both",
    ]);
    expect(h.writes()).toEqual([]);
  });
});

describe("Schedule in detail", () => {
  const target = { componentId: EXTRACTOR, configId: "users" };
  const reasons = async (news: Props) => ((await check(schedule, "bad", news)).failures ?? []).map((f) => [f.property, f.reason]);
  // The target's configuration, as the program declares it: bound to a variables configuration with a variable "limit".
  const bound = { declared: true, configuration: { resource: "users", isDisabled: false, bound: true, variables: { resource: "vars", declared: [{ name: "limit", type: "int" }], defaultValueNames: ["limit"], defaultRow: "declared" } } };
  const stored = (configId: string) => Object.values(h.emu.state.storage.configs).find((c) => c.componentId === "keboola.scheduler" && c.id === configId)!;

  it("names each bad input by its path, with the rule it breaks", async () => {
    expect(await reasons({ name: "", cron: "@daily", configId: "", target: { componentId: "", configId: "", variableValuesId: "" } })).toEqual([
      ["configId", "must not be empty: omit it to have it derived from the resource"],
      ["name", "must not be empty"],
      ["target.componentId", "must not be empty"],
      ["target.configId", "must not be empty"],
      ["target.variableValuesId", "must not be empty"],
    ]);
    expect(await reasons({ target: {} })).toEqual([
      ["name", "required: the schedule name"],
      ["cron", 'required: a cron expression, e.g. "0 3 * * *" (03:00 every day)'],
      ["target.componentId", 'required: the component of the configuration to run, e.g. "keboola.flow" (flow.target() gives both)'],
      ["target.configId", "required: the configuration to run (ComponentConfig.configId or Flow.configId)"],
    ]);
    expect(h.writes()).toEqual([]);
  });

  it("writes variable values into the scheduler configuration's target and reads them back; an empty set writes none", () => {
    const withValues = schedulerConfiguration({ cron: "@daily", timezone: "UTC", enabled: false, target: { ...target, variableValuesData: { limit: "10", mode: "full" } } });
    expect(withValues).toEqual({
      schedule: { cronTab: "@daily", timezone: "UTC", state: "disabled" },
      target: { componentId: EXTRACTOR, configurationId: "users", mode: "run", variableValuesData: { values: [{ name: "limit", value: "10" }, { name: "mode", value: "full" }] } },
    });
    expect(scheduleFromConfiguration(withValues)).toEqual({ cron: "@daily", timezone: "UTC", enabled: false, target: { ...target, variableValuesData: { limit: "10", mode: "full" } } });
    const byRow = schedulerConfiguration({ cron: "@daily", timezone: "UTC", enabled: true, target: { ...target, variableValuesId: "row-1", variableValuesData: {} } });
    expect(byRow.target).toEqual({ componentId: EXTRACTOR, configurationId: "users", mode: "run", variableValuesId: "row-1" });
    expect(scheduleFromConfiguration(byRow)).toEqual({ cron: "@daily", timezone: "UTC", enabled: true, target: { ...target, variableValuesId: "row-1" } });
    expect(scheduleFromConfiguration({ schedule: "not one" })).toBeUndefined();
  });

  it("creates a schedule with variable values and a disabled one: the values reach the Scheduler, a disabled schedule lists no runs, refresh finds no change", async () => {
    const checked = await check(schedule, "valued", { name: "Valued", cron: "@daily", enabled: false, target: { ...target, variableValuesData: { limit: "5" } } }, bound);
    expect(checked.failures).toEqual([]);
    const made = await schedule.create(h.ctx, checked.inputs as Props);
    const outs = made.outs as Props;
    expect(outs).toMatchObject({ enabled: false, nextRuns: [], target: { ...target, variableValuesData: { limit: "5" } } });
    expect(stored(String(outs.configId)).configuration).toMatchObject({ schedule: { state: "disabled" }, target: { variableValuesData: { values: [{ name: "limit", value: "5" }] } } });
    expect(schedules().find((x) => x.configurationId === outs.configId)).toMatchObject({ schedule: { state: "disabled" }, target: { variableValuesData: { values: [{ name: "limit", value: "5" }] } } });
    const read = await schedule.read(h.ctx, made.id, outs);
    expect((read.inputs as Props).target).toEqual({ ...target, variableValuesData: { limit: "5" } });
    expect((await schedule.diff(h.ctx, made.id, read.props as Props, checked.inputs as Props)).changes).toBe(false);
  });

  it("reads a scheduler configuration edited by hand into no schedule as an empty one, which the next update rewrites", async () => {
    const made = await createVia(schedule, h.ctx, "edited", { configId: "edited-schedule", name: "Edited", cron: "@daily", target, changeDescription: "Pinned" });
    await h.ctx.client().storage.updateConfig("default", "keboola.scheduler", "edited-schedule", { configuration: { note: "emptied in the UI" } });
    const read = await schedule.read(h.ctx, made.id, made.outs);
    expect(read.props).toMatchObject({ cron: "", timezone: "UTC", enabled: false, target: { componentId: "", configId: "" }, nextRuns: [], explicitConfigId: true, changeDescription: "Pinned" });
    expect(read.inputs).toMatchObject({ configId: "edited-schedule" });
    expect((await schedule.diff(h.ctx, made.id, read.props as Props, made.inputs)).changes).toBe(true);
  });

  it("a create or update whose activation fails leaves the configuration in the state, said as the schedule's failure, and the next update activates it", async () => {
    // Rate limited past the client's retries (a 429 is certainly not acted on: no lookup, no second try).
    const activationsThrottled = (step: () => Promise<unknown>) => throttled(h, "POST", "/scheduler/schedules", step);
    const target = { componentId: EXTRACTOR, configId: "throttled-target" };
    await createVia(componentConfig, h.ctx, "throttled-target", extractor("throttled-target"));
    const inputs = (await check(schedule, "unactivated", { configId: "unactivated", name: "Unactivated", cron: "0 5 * * *", target })).inputs as Props;
    const failed = await activationsThrottled(() => schedule.create(h.ctx, inputs));
    expect(failed).toBeInstanceOf(PartialFailure);
    const partial = failed as PartialFailure;
    expect(partial.message).toMatch(/^Schedule "unactivated": POST \/scheduler\/schedules \(scheduler\) failed with 429/);
    expect(partial.id).toBe("default/keboola.scheduler/unactivated");
    // As declared (the configuration was written), without an activation.
    expect(partial.properties).toMatchObject({ configId: "unactivated", cron: "0 5 * * *", timezone: "UTC", enabled: true, target });
    expect(partial.properties).not.toHaveProperty("scheduleId");
    expect(schedules().filter((x) => x.configurationId === "unactivated")).toEqual([]);

    const again = await activationsThrottled(() => schedule.update(h.ctx, partial.id, partial.properties, { ...inputs, cron: "0 6 * * *" }));
    expect(again).toBeInstanceOf(PartialFailure);
    expect(again).toMatchObject({ id: "default/keboola.scheduler/unactivated", properties: { cron: "0 6 * * *" } });
    expect((again as PartialFailure).message).toMatch(/^Schedule "unactivated": POST \/scheduler\/schedules \(scheduler\) failed with 429/);
    expect(schedules().filter((x) => x.configurationId === "unactivated")).toEqual([]);

    const activated = await schedule.update(h.ctx, partial.id, partial.properties, { ...inputs, cron: "0 6 * * *" });
    expect(schedules().filter((x) => x.configurationId === "unactivated")).toMatchObject([{ id: (activated.outs as Props).scheduleId, schedule: { cronTab: "0 6 * * *" } }]);
  });
});

describe("permissions", () => {
  it("refuses a token that is not a master token before writing anything (the Scheduler activates with master tokens only)", async () => {
    // A token that may manage scheduler configurations, but is not a master token.
    const limitedRecord = h.emu.state.tokens.find((t) => t.token === LIMITED_TOKEN)!;
    h.emu.state.tokens.push({ ...limitedRecord, id: "1003", token: "scheduler-access-token-9d1e", description: "Scheduler access", componentAccess: ["keboola.scheduler"] });
    for (const [token, refusal] of [
      [LIMITED_TOKEN, /may not manage configurations of component "keboola.scheduler"/],
      ["scheduler-access-token-9d1e", /the token "Scheduler access" \(id 1003\) is not a master token, and the Scheduler activates schedules only with a master token\. Nothing was changed\. Use a master token \(pulumi config set --secret keboola:token \.\.\.\)\.$/],
    ] as const) {
      const c = h.contextFor(token);
      const checked = await schedule.check(c, {}, { __resourceName: "limited", __owner: ownerUrn("limited"), name: "L", cron: "@daily", target: { componentId: EXTRACTOR, configId: "users" } });
      h.emu.clearRequests();
      await expect(schedule.create(c, checked.inputs as Props)).rejects.toThrow(refusal);
      expect(h.writes()).toEqual([]);
    }
  });
});

describe("exactly once under a fault of each write", () => {
  const FAULTS: Record<FaultKind & ("lost" | "5xx" | "reset"), FaultOptions> = { lost: { rateLostResponse: 1 }, "5xx": { rate5xx: 1 }, reset: { rateReset: 1 } };

  const faulted = <T>(kind: keyof typeof FAULTS, method: string, prefix: string, step: () => Promise<T>): Promise<T> => withOneFault(h, kind, FAULTS[kind], method, prefix, step);

  it.each(Object.keys(FAULTS) as Array<keyof typeof FAULTS>)("%s: one configuration, one activation; delete removes both once", async (kind) => {
    const name = `once-${kind}`;
    const args = { name, cron: "@hourly", target: { componentId: EXTRACTOR, configId: "users" } };
    const created = await faulted(kind, "POST", "/scheduler/schedules", () => createVia(schedule, h.ctx, name, args));
    const configId = created.outs.configId as string;
    expect(schedules().filter((x) => x.configurationId === configId)).toHaveLength(1);
    const updated = await faulted(kind, "POST", "/scheduler/schedules", () => updateVia(schedule, h.ctx, name, created.id, created.outs, created.inputs, { ...args, cron: "@daily" }));
    expect(schedules().filter((x) => x.configurationId === configId)).toMatchObject([{ configurationVersionId: String(updated.outs.version), schedule: { cronTab: "@daily" } }]);
    await faulted(kind, "DELETE", "/scheduler/configurations", () => schedule.delete(h.ctx, created.id, updated.outs));
    expect(schedules().filter((x) => x.configurationId === configId)).toEqual([]);
    const cfg = Object.values(h.emu.state.storage.configs).filter((c) => c.componentId === "keboola.scheduler" && c.id === configId);
    expect(cfg.map((c) => c.isDeleted)).toEqual([true]);
  });

  // The Scheduler chooses activation ids, so after a lost answer the activation is told by its
  // configuration and version: found, it is not sent again (an activation replaces the previous
  // one, so counting activations would not show a second one: the requests do).
  it("lost: the activation the lost answer made is found, and the same version is not activated again", async () => {
    const name = "lost-activation";
    const args = { name, cron: "@hourly", target: { componentId: EXTRACTOR, configId: "users" } };
    const activations = () => h.writes().filter((w) => w === "POST /scheduler/schedules");
    const created = await faulted("lost", "POST", "/scheduler/schedules", () => createVia(schedule, h.ctx, name, args));
    expect(activations()).toHaveLength(1);
    const configId = created.outs.configId as string;
    const [first] = schedules().filter((x) => x.configurationId === configId);
    expect(created.outs).toMatchObject({ scheduleId: first!.id, version: Number(first!.configurationVersionId) });
    h.emu.clearRequests();
    const updated = await faulted("lost", "POST", "/scheduler/schedules", () => updateVia(schedule, h.ctx, name, created.id, created.outs, created.inputs, { ...args, cron: "@daily" }));
    expect(activations()).toHaveLength(1);
    const [second] = schedules().filter((x) => x.configurationId === configId);
    expect(updated.outs).toMatchObject({ scheduleId: second!.id, version: Number(second!.configurationVersionId) });
    expect(updated.outs.version).toBeGreaterThan(created.outs.version as number);
    // An update that makes no new version of the configuration (only purgeOnDelete changes) keeps
    // the activation of that version as it is.
    h.emu.clearRequests();
    const kept = await updateVia(schedule, h.ctx, name, created.id, updated.outs, updated.inputs, { ...args, cron: "@daily", purgeOnDelete: true });
    expect(kept.diff.changes).toBe(true);
    expect(activations()).toEqual([]);
    expect(kept.outs).toMatchObject({ scheduleId: second!.id, version: updated.outs.version });
  });
});

describe("export", () => {
  it("writes flows and schedules naming their configurations and flows by key; a flow the Flow resource would rewrite stays a plain configuration", async () => {
    const storage = h.ctx.client().storage;
    await createVia(componentConfig, h.ctx, "x-users", extractor("x-users"));
    await createVia(componentConfig, h.ctx, "x-orders", extractor("x-orders"));
    const f = await createVia(flow, h.ctx, "x-nightly", { name: "X Nightly", phases: phases("x-users", "x-orders") });
    await createVia(schedule, h.ctx, "x-daily", { name: "X Daily", cron: "0 3 * * *", timezone: "Europe/Prague", target: { componentId: "keboola.flow", configId: f.outs.configId } });
    // A flow made in the UI with ids of its own: exported as it is, as a configuration.
    await storage.createConfig("default", "keboola.flow", {
      configurationId: "ui-flow",
      name: "UI flow",
      configuration: { phases: [{ id: 7, name: "Step", dependsOn: [] }], tasks: [{ id: 70, name: "x", phase: 7, enabled: true, task: { componentId: EXTRACTOR, configId: "x-users", mode: "run" } }] },
    });
    const { manifest, yaml, notes } = await exportProject(h.ctx.client(), { components: [EXTRACTOR, "keboola.flow", "keboola.scheduler"] });
    const key = (name: string) => Object.entries(manifest.configurations ?? {}).find(([, c]) => c.name === name)![0];
    expect(manifest.flows?.["x-nightly"]).toEqual({
      configId: f.outs.configId,
      name: "X Nightly",
      phases: [
        { name: "extract", dependsOn: [], tasks: [{ configuration: key("x-users"), enabled: true, continueOnFailure: false }] },
        { name: "load", dependsOn: ["extract"], tasks: [{ configuration: key("x-orders"), enabled: true, continueOnFailure: false }] },
      ],
      adoptExisting: true,
    });
    expect(manifest.schedules?.["x-daily"]).toMatchObject({ name: "X Daily", flow: "x-nightly", cron: "0 3 * * *", timezone: "Europe/Prague", adoptExisting: true });
    expect(manifest.configurations?.["ui-flow"]).toMatchObject({ componentId: "keboola.flow", configId: "ui-flow" });
    // Schedules of earlier tests run configurations that are exported too; none is left out here.
    expect(notes.filter((n) => n.startsWith("schedule "))).toEqual([]);
    const parsed = parseManifest(yaml);
    // Deployed back over the live flow (as deploy.ts resolves keys), it is no change.
    const entry = parsed.flows!["x-nightly"]!;
    const byKey = (k: string) => ({ componentId: EXTRACTOR, configId: parsed.configurations![k]!.configId! });
    const { adoptExisting: _a, ...rest } = entry;
    const inputs = { ...rest, phases: entry.phases.map((p) => ({ ...p, tasks: p.tasks.map(({ configuration, ...t }) => ({ ...t, ...byKey(configuration!) })) })) };
    const checked = await flow.check(h.ctx, f.outs, { __resourceName: "x-nightly", __owner: ownerUrn("x-nightly"), ...inputs });
    expect(checked.failures).toEqual([]);
    const live = (await flow.read(h.ctx, f.id, f.outs)).props as Props;
    expect((await flow.diff(h.ctx, f.id, live, checked.inputs as Props)).changes).toBe(false);
  });
});
