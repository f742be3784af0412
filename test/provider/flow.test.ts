import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { componentConfig, flow } from "./hosted";
import { createVia, LIMITED_TOKEN, ownerUrn, startHarness, withOneFault, type Harness } from "./harness";
import type { Props } from "../../provider/lifecycle/types";
import { UNKNOWN } from "../../provider/validation/check";
import { flowConfiguration, phasesOf } from "../../provider/kinds/flow/kind";
import { OWNER_KEY } from "../../provider/lifecycle/ownership";

// Flow's handler in detail (provider/kinds/flow.ts): what check says of each bad input, which
// rules wait for unknown parts, what create does after a lost answer or on adoption, what read
// brings back, and delete's purge. schedule.test.ts covers the plain lifecycle and the exports.

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ taskDurationMs: 5 });
  await createVia(componentConfig, h.ctx, "users", extractor("users"));
  await createVia(componentConfig, h.ctx, "orders", extractor("orders"));
});
afterAll(async () => h?.close());
beforeEach(() => h.emu.clearRequests());

const EXTRACTOR = "keboola.ex-generic-v2";
const CONFIGS = "/v2/storage/branch/default/components/keboola.flow/configs";
function extractor(configId: string): Props {
  return { componentId: EXTRACTOR, configId, name: configId, configuration: { parameters: { api: { baseUrl: "https://api.example.com/" } } } };
}
const task = (configId: string, extra: Props = {}) => ({ componentId: EXTRACTOR, configId, ...extra });
const twoPhases = [
  { name: "extract", tasks: [task("users")] },
  { name: "load", dependsOn: ["extract"], tasks: [task("orders")] },
];
const check = (name: string, news: Props, olds: Props = {}, facts: Props = {}) =>
  flow.check(h.ctx, olds, { __resourceName: name, __owner: ownerUrn(name), __program: facts, ...news });
const reasons = async (news: Props) => ((await check("bad", { name: "Bad", ...news })).failures ?? []).map((f) => [f.property, f.reason]);
const flowConfigs = () => Object.values(h.emu.state.storage.configs).filter((c) => c.componentId === "keboola.flow");

describe("Flow check", () => {
  it("names each bad input by its path, with the rule it breaks", async () => {
    expect(await reasons({ name: "", phases: "x" })).toEqual([
      ["name", "must not be empty"],
      ["phases", "must be a list of phases"],
    ]);
    expect(await reasons({ name: undefined, phases: [] })).toEqual([
      ["name", "required: the flow name"],
      ["phases", "must have at least one phase"],
    ]);
    // An empty id is one problem, said once (not also "must be letters, digits...").
    expect(await reasons({ configId: "", phases: twoPhases })).toEqual([["configId", "must not be empty: omit it to let Keboola choose the id"]]);
    expect(await reasons({ phases: [{ tasks: "x", dependsOn: [""] }] })).toEqual([
      ["phases[0].name", "required: the phase name (dependsOn names phases by it)"],
      ["phases[0].dependsOn[0]", "must not be empty"],
      ["phases[0].tasks", "must be a list of tasks"],
    ]);
    expect(await reasons({ phases: [{ name: "", tasks: [{ configId: "" }, { componentId: "", name: "" }] }] })).toEqual([
      ["phases[0].name", "must not be empty"],
      ["phases[0].tasks[0].componentId", 'required: the component of the configuration the task runs, e.g. "keboola.ex-generic-v2"'],
      ["phases[0].tasks[0].configId", "must not be empty"],
      ["phases[0].tasks[1].componentId", "must not be empty"],
      ["phases[0].tasks[1].configId", "required: the configuration the task runs (ComponentConfig.configId)"],
      ["phases[0].tasks[1].name", "must not be empty"],
    ]);
    expect(h.writes()).toEqual([]);
  });

  it("tells a dependsOn naming no phase only once every phase's name is known", async () => {
    const phases = [
      { name: UNKNOWN, tasks: [task("users")] },
      { name: "load", dependsOn: ["extract"], tasks: [task("orders")] },
    ];
    expect(await reasons({ phases })).toEqual([]);
    expect(await reasons({ phases: [{ ...phases[0], name: "first" }, phases[1]] })).toEqual([
      ["phases[1].dependsOn[0]", 'missing phase "extract", referenced from "load": name an existing phase (one of: "first", "load")'],
    ]);
  });

  it("looks for cycles and empty phases only when the whole structure is known", async () => {
    const cycle = (tasksOfB: unknown[], dependsOnB: unknown[] = ["a"]) => [
      { name: "a", dependsOn: ["b"], tasks: [task("users")] },
      { name: "b", dependsOn: dependsOnB, tasks: tasksOfB },
    ];
    expect(await reasons({ phases: cycle([task("orders")]) })).toEqual([["phases[0].dependsOn", expect.stringMatching(/found cycles in phases "dependsOn": "a" -> "b" -> "a"/)]]);
    // A task not known yet: its phase's tasks are not whole, so the cycle waits for `up`.
    expect(await reasons({ phases: cycle([UNKNOWN]) })).toEqual([]);
    // A dependency not known yet.
    expect(await reasons({ phases: cycle([task("orders")], ["a", UNKNOWN]) })).toEqual([]);
  });

  it("checks a task's configuration only when its ids are known and no ComponentConfig of the program declares it", async () => {
    const phases = [
      { name: "extract", tasks: [task("nobody-1")] },
      { name: "load", dependsOn: ["extract"], tasks: [task("nobody-2"), task(UNKNOWN)] },
    ];
    // The first phase's only task is declared in the program: the second phase's first task is looked up.
    const found = await check("tasks", { name: "Tasks", phases }, {}, { declaredTasks: [[true]] });
    expect(found.failures).toEqual([{ property: "phases[1].tasks[0].configId", reason: expect.stringMatching(/^configuration "nobody-2" of keboola\.ex-generic-v2 does not exist in branch default/) }]);
    expect(h.writes()).toEqual([]);
  });

  it("asks the service nothing while the branch is unknown, and nothing more once the inputs break a rule", async () => {
    const phases = [{ name: "extract", tasks: [task("nobody")] }];
    expect((await check("pending", { branchId: UNKNOWN, name: "Pending", phases })).failures).toEqual([]);
    expect(h.emu.requests()).toEqual([]);
    // A cycle is refused, and the missing configuration is not looked up next to it.
    const broken = [
      { name: "a", dependsOn: ["b"], tasks: [task("nobody")] },
      { name: "b", dependsOn: ["a"], tasks: [task("users")] },
    ];
    expect((await reasons({ phases: broken })).map(([p]) => p)).toEqual(["phases[0].dependsOn"]);
  });

  it("on an update of the same configuration, does not refuse the flow's own configuration as taken", async () => {
    await h.ctx.client().storage.createConfig("default", "keboola.flow", { configurationId: "declared-flow-taken", name: "Taken", configuration: flowConfiguration([]) });
    const made = await createVia(flow, h.ctx, "own", { configId: "own-flow", name: "Own", phases: twoPhases });
    const again = await check("own", { configId: "own-flow", name: "Own 2", phases: twoPhases }, made.outs);
    expect(again.failures).toEqual([]);
    // A new configId is a new configuration: taken, it is refused as for a new resource.
    const moved = await check("own", { configId: "declared-flow-taken", name: "Own", phases: twoPhases }, made.outs);
    expect(moved.failures?.[0]).toMatchObject({ property: "configId", reason: expect.stringContaining('configuration "declared-flow-taken" of keboola.flow already exists') });
    // As a new resource, the same id is somebody's already.
    const other = await check("other", { configId: "own-flow", name: "Other", phases: twoPhases });
    expect(other.failures?.[0]).toMatchObject({ property: "configId", reason: expect.stringContaining('configuration "own-flow" of keboola.flow already exists') });
  });
});

describe("Flow create", () => {
  it("records whether the configId was declared, and the change description when one is given", async () => {
    const derived = await createVia(flow, h.ctx, "derived", { name: "Derived", phases: twoPhases });
    expect(derived.outs).toMatchObject({ explicitConfigId: false, componentId: "keboola.flow" });
    expect(derived.outs).not.toHaveProperty("changeDescription");
    const declared = await createVia(flow, h.ctx, "declared", { configId: "declared-flow", name: "Declared", phases: twoPhases, changeDescription: "From CI" });
    expect(declared.outs).toMatchObject({ explicitConfigId: true, configId: "declared-flow", changeDescription: "From CI" });
    expect(declared.id).toBe("default/keboola.flow/declared-flow");
  });

  it("refuses purgeOnDelete with a token that may not purge the trash, writing nothing", async () => {
    const limited = h.emu.state.tokens.find((t) => t.token === LIMITED_TOKEN)!;
    h.emu.state.tokens.push({ ...limited, id: "1004", token: "flow-no-purge-token-5c2a", description: "No purge", isMasterToken: false, componentAccess: ["keboola.flow"] });
    const c = h.contextFor("flow-no-purge-token-5c2a");
    const inputs = ((await flow.check(c, {}, { __resourceName: "purging", __owner: ownerUrn("purging"), name: "P", phases: twoPhases, purgeOnDelete: true }))).inputs as Props;
    h.emu.clearRequests();
    await expect(flow.create(c, inputs)).rejects.toThrow(/^Flow "purging": purgeOnDelete is set, but the token "No purge" \(id 1004\) may not purge the trash/);
    expect(h.writes()).toEqual([]);
    // Without purgeOnDelete the same token creates it.
    await expect(flow.create(c, { ...inputs, purgeOnDelete: false })).resolves.toMatchObject({ outs: { purgeOnDelete: false } });
  });

  it("after a lost answer finds the flow it made: one configuration", async () => {
    const made = await withOneFault(h, "lost", { rateLostResponse: 1 }, "POST", CONFIGS, () => createVia(flow, h.ctx, "lost", { name: "Lost", phases: twoPhases }));
    expect(flowConfigs().filter((c) => c.id === made.outs.configId)).toHaveLength(1);
    expect(made.outs).toMatchObject({ name: "Lost", phases: [{ name: "extract" }, { name: "load" }] });
  });

  it("adopts an existing flow and brings it to the declared phases in the same create; a failed write leaves a partial state", async () => {
    await h.ctx.client().storage.createConfig("default", "keboola.flow", { configurationId: "by-hand", name: "By hand", configuration: flowConfiguration([{ name: "only", dependsOn: [], tasks: [{ componentId: EXTRACTOR, configId: "users", enabled: true, continueOnFailure: false }] }]) });
    h.emu.clearRequests();
    const adopted = await createVia(flow, h.ctx, "adopted", { configId: "by-hand", adoptExisting: true, name: "Adopted", phases: twoPhases });
    expect(h.writes()).toContain(`PUT ${CONFIGS}/by-hand`);
    expect(adopted.outs).toMatchObject({ name: "Adopted", phases: [{ name: "extract" }, { name: "load" }], adoptExisting: true });
    expect(h.emu.state.storage.configs[Object.keys(h.emu.state.storage.configs).find((k) => h.emu.state.storage.configs[k]!.id === "by-hand")!]!.name).toBe("Adopted");

    await h.ctx.client().storage.createConfig("default", "keboola.flow", { configurationId: "by-hand-2", name: "By hand 2", configuration: flowConfiguration(twoPhases.map((p) => ({ dependsOn: [], ...p, tasks: p.tasks.map((t) => ({ ...t, enabled: true, continueOnFailure: false })) }))) });
    const inputs = (await check("adopt-2", { configId: "by-hand-2", adoptExisting: true, name: "Adopted 2", phases: twoPhases })).inputs as Props;
    h.emu.setFaults({ rate5xx: 1, methods: ["PUT"], pathPrefixes: [`${CONFIGS}/by-hand-2`] });
    try {
      const err = await flow.create(h.ctx, inputs).then(
        () => undefined,
        (e: unknown) => e as Error & { id?: string; properties?: Props },
      );
      expect(err?.message).toBe(`Flow "adopt-2": PUT ${CONFIGS}/by-hand-2 (storage) failed with 500 internalError: Internal Server Error`);
      // What the partial state records is the configuration as found, so the next `up` converges it.
      expect(err).toMatchObject({ id: "default/keboola.flow/by-hand-2", properties: { configId: "by-hand-2", name: "By hand 2" } });
    } finally {
      h.emu.setFaults({});
    }
  });

  it("in a development branch the program did not create, makes its own flow instead of taking over production's copy", async () => {
    const storage = h.ctx.client().storage;
    const prod = await flow.create(h.ctx, (await flow.check(h.ctx, {}, { __resourceName: "copied", __owner: ownerUrn("copied", "production"), name: "Copied", phases: twoPhases })).inputs as Props);
    const job = await storage.waitJob(await storage.createDevBranch({ name: "flow-copy", description: "" }), "branch");
    const branchId = String((job.results as { id: number }).id);
    const checked = await flow.check(h.ctx, {}, { __resourceName: "copied", __owner: ownerUrn("copied", "pr-11"), branchId, name: "Copied", phases: twoPhases });
    expect(checked.failures).toEqual([]);
    const made = await flow.create(h.ctx, checked.inputs as Props);
    expect(made.outs.configId).not.toBe(prod.outs.configId);
    // Production's copy in the branch keeps production's marker.
    expect((await storage.configMetadata(branchId, "keboola.flow", String(prod.outs.configId))).find((m) => m.key === OWNER_KEY)?.value).toBe(ownerUrn("copied", "production"));
  });
});

describe("Flow read and delete", () => {
  it("brings back what the state recorded of the inputs, the configId when it was declared, and a task's own name", async () => {
    const phases = [{ name: "extract", tasks: [task("users", { name: "Users first" }), task("orders")] }];
    const made = await createVia(flow, h.ctx, "named", { configId: "named-flow", name: "Named", phases, purgeOnDelete: true, changeDescription: "Kept" });
    const read = await flow.read(h.ctx, made.id, made.outs);
    expect(read.inputs).toMatchObject({ configId: "named-flow", purgeOnDelete: true, changeDescription: "Kept", adoptExisting: false });
    expect((read.inputs as Props).phases).toEqual([
      {
        name: "extract",
        dependsOn: [],
        tasks: [
          { componentId: EXTRACTOR, configId: "users", name: "Users first", enabled: true, continueOnFailure: false },
          { componentId: EXTRACTOR, configId: "orders", enabled: true, continueOnFailure: false },
        ],
      },
    ]);
    expect(read.props).toMatchObject({ explicitConfigId: true, purgeOnDelete: true });
    const adopted = await flow.read(h.ctx, made.id, { ...made.outs, adoptExisting: true });
    expect(adopted.props).toMatchObject({ adoptExisting: true });
    // A derived id is not an input.
    const derived = await createVia(flow, h.ctx, "derived-read", { name: "Derived read", phases });
    const readDerived = await flow.read(h.ctx, derived.id, derived.outs);
    expect(readDerived.inputs).not.toHaveProperty("configId");
    expect(readDerived.props).toMatchObject({ explicitConfigId: false, purgeOnDelete: false, adoptExisting: false });
    expect(readDerived.props).not.toHaveProperty("changeDescription");
  });

  it("with purgeOnDelete, delete purges the flow from the trash", async () => {
    const made = await createVia(flow, h.ctx, "purged", { configId: "purged-flow", name: "Purged", phases: twoPhases, purgeOnDelete: true });
    await flow.delete(h.ctx, made.id, made.outs);
    expect(flowConfigs().filter((c) => c.id === "purged-flow")).toEqual([]);
    const kept = await createVia(flow, h.ctx, "trashed", { configId: "trashed-flow", name: "Trashed", phases: twoPhases });
    await flow.delete(h.ctx, kept.id, kept.outs);
    expect(flowConfigs().filter((c) => c.id === "trashed-flow").map((c) => c.isDeleted)).toEqual([true]);
  });
});

describe("the flow configuration", () => {
  it("leaves out a dependency naming no phase, and reads a task without a configuration as an empty configId", () => {
    expect(flowConfiguration([{ name: "a", dependsOn: ["zzz"], tasks: [] }]).phases).toEqual([{ id: "1", name: "a", dependsOn: [] }]);
    const phases = phasesOf({ phases: [{ id: 1, name: "a" }], tasks: [{ id: 1, name: "t", phase: 1, enabled: false, task: { componentId: EXTRACTOR } }] });
    expect(phases?.[0]?.tasks).toEqual([{ componentId: EXTRACTOR, configId: "", name: "t", enabled: false, continueOnFailure: false }]);
  });
});
