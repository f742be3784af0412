import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FaultKind, FaultOptions } from "../../emulator/core/faults";
import { source, sink, sourceSettings, sinkSettings, componentConfig, variableConfig, jobRun } from "./hosted";
import type { Props } from "../../provider/lifecycle/types";
import { createVia, startHarness, updateVia, type Harness, withOneFault } from "./harness";

// Every write of every resource kind under each fault that makes its outcome unknown: a lost
// answer (the write is applied, the answer never arrives), a 5xx (a proxy or the service failed;
// the emulator's injected 5xx is not applied) and a reset (the connection drops before an answer).
// The fault is injected into exactly that write, once, and each step asserts that it was
// actually injected; the operation must still converge to exactly one object, with no
// duplicate, no orphan and no purge.

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ taskDurationMs: 10 });
});
afterAll(async () => {
  await h?.close();
});

const FAULTS: Record<FaultKind & ("lost" | "5xx" | "reset"), FaultOptions> = {
  lost: { rateLostResponse: 1 },
  "5xx": { rate5xx: 1 },
  reset: { rateReset: 1 },
};
type Kind = keyof typeof FAULTS;

const STREAM = "/stream/v1/branches/default/sources";
const configs = (componentId: string) => `/v2/storage/branch/default/components/${componentId}/configs`;

/** Runs `step` with `kind` injected into its first `method` request under `prefix`; asserts exactly one was injected. */
const faulted = <T>(kind: Kind, method: string, prefix: string, step: () => Promise<T>): Promise<T> => withOneFault(h, kind, FAULTS[kind], method, prefix, step);

const live = {
  sources: (id: string) => Object.values(h.emu.state.stream.sources).filter((s) => s.sourceId === id && !s.deleted).length,
  sinks: (sourceId: string, id: string) => Object.values(h.emu.state.stream.sinks).filter((s) => s.sourceId === sourceId && s.sinkId === id && !s.deleted).length,
  configs: (componentId: string, name: string) => Object.values(h.emu.state.storage.configs).filter((c) => c.componentId === componentId && c.name === name),
  jobs: (config: string) => Object.values(h.emu.state.queue.jobs).filter((j) => j.config === config).length,
};

describe.each(Object.keys(FAULTS) as Kind[])("under a %s on each write", (kind) => {
  const id = `f-${kind}`;
  const owner = (name: string) => ({ __owner: `urn:pulumi:test::faults::pulumi-nodejs:dynamic/keboola:Resource::${name}-${kind}` });

  it("Source and Sink: create, update, disable, enable, settings and delete converge to exactly one object", async () => {
    const src = await faulted(kind, "POST", STREAM, () => createVia(source, h.ctx, `src-${kind}`, { name: id, ...owner("src") }));
    expect(live.sources(id)).toBe(1);
    const srcUpdated = await faulted(kind, "PATCH", `${STREAM}/${id}`, () =>
      updateVia(source, h.ctx, `src-${kind}`, src.id, src.outs, src.inputs, { name: id, description: "changed", ...owner("src") }),
    );
    expect(srcUpdated.outs.description).toBe("changed");
    const srcOff = await faulted(kind, "PUT", `${STREAM}/${id}/disable`, () =>
      updateVia(source, h.ctx, `src-${kind}`, src.id, srcUpdated.outs, srcUpdated.inputs, { name: id, description: "changed", enabled: false, ...owner("src") }),
    );
    expect(srcOff.outs.enabled).toBe(false);
    const srcOn = await faulted(kind, "PUT", `${STREAM}/${id}/enable`, () =>
      updateVia(source, h.ctx, `src-${kind}`, src.id, srcOff.outs, srcOff.inputs, { name: id, description: "changed", enabled: true, ...owner("src") }),
    );
    expect(srcOn.outs.enabled).toBe(true);

    const sinkArgs = { sourceId: id, name: "Out", tableId: `in.c-faults.${id.replace(/-/g, "_")}`, columns: [{ type: "uuid", name: "id" }], ...owner("sink") };
    const snk = await faulted(kind, "POST", `${STREAM}/${id}/sinks`, () => createVia(sink, h.ctx, `sink-${kind}`, sinkArgs));
    expect(live.sinks(id, "out")).toBe(1);
    const withBody = { ...sinkArgs, columns: [...sinkArgs.columns, { type: "body", name: "body" }] };
    // A new column needs a table without rows yet: the emulator's table was created with the first mapping.
    const mapped = await faulted(kind, "PATCH", `${STREAM}/${id}/sinks/out`, () =>
      updateVia(sink, h.ctx, `sink-${kind}`, snk.id, snk.outs, snk.inputs, { ...withBody, tableId: `${sinkArgs.tableId}_v2` }),
    );
    const disabled = await faulted(kind, "PUT", `${STREAM}/${id}/sinks/out/disable`, () =>
      updateVia(sink, h.ctx, `sink-${kind}`, snk.id, mapped.outs, mapped.inputs, { ...withBody, tableId: `${sinkArgs.tableId}_v2`, enabled: false }),
    );
    expect(disabled.outs.enabled).toBe(false);
    const enabled = await faulted(kind, "PUT", `${STREAM}/${id}/sinks/out/enable`, () =>
      updateVia(sink, h.ctx, `sink-${kind}`, snk.id, disabled.outs, disabled.inputs, { ...withBody, tableId: `${sinkArgs.tableId}_v2`, enabled: true }),
    );
    expect(enabled.outs.enabled).toBe(true);

    const srcSettings = await faulted(kind, "PATCH", `${STREAM}/${id}/settings`, () =>
      createVia(sourceSettings, h.ctx, `ss-${kind}`, { sourceId: id, targetImportTrigger: { interval: "2m" } }),
    );
    expect(srcSettings.outs.targetImportTrigger).toMatchObject({ interval: "2m" });
    const snkSettings = await faulted(kind, "PATCH", `${STREAM}/${id}/sinks/out/settings`, () =>
      createVia(sinkSettings, h.ctx, `ks-${kind}`, { sourceId: id, sinkId: "out", stagingUploadTrigger: { count: 500 } }),
    );
    expect(snkSettings.outs.stagingUploadTrigger).toMatchObject({ count: 500 });

    await faulted(kind, "DELETE", `${STREAM}/${id}/sinks/out`, () => sink.delete(h.ctx, snk.id, enabled.outs));
    expect(live.sinks(id, "out")).toBe(0);
    await faulted(kind, "DELETE", `${STREAM}/${id}`, () => source.delete(h.ctx, src.id, srcUpdated.outs));
    expect(live.sources(id)).toBe(0);
  });

  it("VariableConfig, ComponentConfig (with rows) and JobRun: every write converges with no duplicate and no purge", async () => {
    const varsName = `Vars ${kind}`;
    const vars = await faulted(kind, "POST", configs("keboola.variables"), () =>
      createVia(variableConfig, h.ctx, `vars-${kind}`, { name: varsName, variables: [{ name: "limit" }], ...owner("vars") }),
    );
    expect(live.configs("keboola.variables", varsName)).toHaveLength(1);
    const valued = await faulted(kind, "POST", `${configs("keboola.variables")}/${String(vars.outs.configId)}/rows`, () =>
      updateVia(variableConfig, h.ctx, `vars-${kind}`, vars.id, vars.outs, vars.inputs, { name: varsName, variables: [{ name: "limit" }], defaultValues: { limit: "5" }, ...owner("vars") }),
    );
    expect(live.configs("keboola.variables", varsName)[0].rows).toHaveLength(1);
    const revalued = await faulted(kind, "PUT", `${configs("keboola.variables")}/${String(vars.outs.configId)}/rows/`, () =>
      updateVia(variableConfig, h.ctx, `vars-${kind}`, vars.id, valued.outs, valued.inputs, { name: varsName, variables: [{ name: "limit" }], defaultValues: { limit: "7" }, ...owner("vars") }),
    );
    expect(revalued.outs.defaultValues).toEqual({ limit: "7" });

    const cfgName = `Extractor ${kind}`;
    const cfgArgs = (rows: string[]) => ({ componentId: "keboola.ex-generic-v2", name: cfgName, rows: rows.map((name) => ({ name })), ...owner("cfg") });
    const cfg = await faulted(kind, "POST", configs("keboola.ex-generic-v2"), () => createVia(componentConfig, h.ctx, `cfg-${kind}`, cfgArgs(["a"])));
    expect(live.configs("keboola.ex-generic-v2", cfgName)).toHaveLength(1);
    const cfgPath = `${configs("keboola.ex-generic-v2")}/${String(cfg.outs.configId)}`;
    const withRow = await faulted(kind, "POST", `${cfgPath}/rows`, () => updateVia(componentConfig, h.ctx, `cfg-${kind}`, cfg.id, cfg.outs, cfg.inputs, cfgArgs(["a", "b"])));
    expect(live.configs("keboola.ex-generic-v2", cfgName)[0].rows.map((r) => r.name)).toEqual(["a", "b"]);
    const renamed = await faulted(kind, "PUT", cfgPath, () =>
      updateVia(componentConfig, h.ctx, `cfg-${kind}`, cfg.id, withRow.outs, withRow.inputs, { ...cfgArgs(["a", "b"]), description: "described" }),
    );
    expect(renamed.outs.description).toBe("described");
    const oneRow = await faulted(kind, "DELETE", `${cfgPath}/rows/`, () =>
      updateVia(componentConfig, h.ctx, `cfg-${kind}`, cfg.id, renamed.outs, renamed.inputs, { ...cfgArgs(["a"]), description: "described" }),
    );
    expect(live.configs("keboola.ex-generic-v2", cfgName)[0].rows.map((r) => r.name)).toEqual(["a"]);

    const run = await faulted(kind, "POST", "/queue/jobs", () =>
      createVia(jobRun, h.ctx, `run-${kind}`, { componentId: "keboola.ex-generic-v2", configId: String(cfg.outs.configId) }),
    );
    expect(run.outs.status).toBe("success");
    expect(live.jobs(String(cfg.outs.configId))).toBe(1);

    // Delete moves to the trash exactly once: a lost answer must not turn into a purge.
    await faulted(kind, "DELETE", cfgPath, () => componentConfig.delete(h.ctx, cfg.id, oneRow.outs as Props));
    expect(live.configs("keboola.ex-generic-v2", cfgName).map((c) => c.isDeleted)).toEqual([true]);
    await componentConfig.delete(h.ctx, cfg.id, oneRow.outs as Props);
    expect(live.configs("keboola.ex-generic-v2", cfgName).map((c) => c.isDeleted)).toEqual([true]);
    await faulted(kind, "DELETE", `${configs("keboola.variables")}/${String(vars.outs.configId)}`, () => variableConfig.delete(h.ctx, vars.id, revalued.outs as Props));
    expect(live.configs("keboola.variables", varsName).map((c) => c.isDeleted)).toEqual([true]);
  });
});
