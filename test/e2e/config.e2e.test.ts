// End to end with the real Pulumi CLI: a Generic Extractor configuration (offset pagination, two
// rows) bound to variables with defaults, job runs that succeed and fail, refresh and destroy,
// against the emulator running in this process. The program imports the built package
// (`keboola-pulumi` -> this repository's dist/).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator/server";
import { describeResult, makePulumiWorkspace, type PulumiWorkspace, type RunResult } from "./helpers/pulumi";

const PROGRAM = `"use strict";
const pulumi = require("@pulumi/pulumi");
const keboola = require("keboola-pulumi");

const cfg = new pulumi.Config("e2e");

const vars = new keboola.VariableConfig("users-vars", {
  name: "Users extractor variables",
  variables: [
    { name: "limit", type: "int" },
    { name: "endpoint", type: "string" },
    { name: "since", type: "string" },
  ],
  defaultValues: { limit: cfg.get("limitDefault") || "2", endpoint: "users", since: "2024-01-01" },
});

const users = new keboola.ComponentConfig("users", {
  componentId: "keboola.ex-generic-v2",
  name: "Users",
  description: "Users of the example API",
  configuration: {
    parameters: {
      api: {
        baseUrl: "https://api.example.com/v1/",
        pagination: { method: "offset", limit: "{{limit}}", limitParam: "count", offsetParam: "skip" },
      },
      config: { outputBucket: "in.c-users", jobs: [{ endpoint: "{{endpoint}}", dataField: "items" }] },
    },
  },
  rows: [
    { name: "Active", configuration: { parameters: { config: { userData: { status: "active" } } } } },
    { name: "Archived", configuration: { parameters: { config: { userData: { status: "archived" } } } } },
  ],
  variables: vars.binding(),
});

if (cfg.getBoolean("runOk")) {
  const ok = new keboola.JobRun("run-ok", {
    componentId: users.componentId,
    configId: users.configId,
    variableValuesData: { limit: "5", endpoint: "orders", since: "2024-06-01" },
    triggers: ["first"],
  });
  exports.jobId = ok.jobId;
  exports.jobStatus = ok.status;
}

if (cfg.getBoolean("runMissing")) {
  new keboola.JobRun("run-missing", {
    componentId: users.componentId,
    configId: users.configId,
    variableValuesData: { limit: "5" },
  });
}

exports.configId = users.configId;
exports.rowIds = users.rowIds;
exports.variablesId = vars.configId;
exports.valuesRowId = vars.valuesRowId;
exports.warnings = users.warnings;
`;

const T = {
  vars: "pulumi-nodejs:dynamic/keboola:VariableConfig",
  config: "pulumi-nodejs:dynamic/keboola:ComponentConfig",
  job: "pulumi-nodejs:dynamic/keboola:JobRun",
};

/** The package's dist must match the sources: the program loads keboola-pulumi from it. */

/** Steps of `pulumi preview --json`, by resource type: op per resource name. */
function previewOps(res: RunResult): Record<string, string> {
  const out = JSON.parse(res.stdout) as { steps?: Array<{ op: string; urn: string }> };
  return Object.fromEntries((out.steps ?? []).map((s) => [s.urn.split("::").pop() ?? s.urn, s.op]));
}

describe("e2e: configurations, variables and job runs with the Pulumi CLI", () => {
  let emu: Emulator;
  let ws: PulumiWorkspace;

  beforeAll(async () => {
    emu = await startEmulator({ token: "master", limitedToken: "limited", taskDurationMs: 20 });
    ws = await makePulumiWorkspace({ project: "configs" });
    ws.writeProgram({ "index.js": PROGRAM }, { linkProjectPackage: true });
    for (const r of [await ws.initStack(), await ws.setConfigs({ "keboola:host": emu.url, "keboola:token": { secret: "master" } })]) {
      expect(r.code, describeResult(r)).toBe(0);
    }
  }, 30 * 60 * 1000);

  afterAll(async () => {
    await ws?.cleanup();
    await emu?.close();
  });

  const liveConfigs = () => Object.values(emu.state.storage.configs).filter((c) => !c.isDeleted);

  it("goes through up, no-change preview, a default-value change, job runs, refresh and destroy", async () => {
    // up: variables, configuration with two rows bound to them.
    const up = await ws.up();
    expect(up.code, describeResult(up)).toBe(0);
    const outs = await ws.stackOutputs();
    expect(outs.rowIds).toHaveLength(2);
    expect(outs.warnings).toEqual(['variable "since" is declared but no {{since}} placeholder in the configuration or its rows uses it']);
    // The warning from check reaches the user through the CLI.
    expect(up.stdout + up.stderr).toContain('ComponentConfig "users": variable "since" is declared but no {{since}} placeholder');

    const stored = emu.state.storage.configs[`101/keboola.ex-generic-v2/${String(outs.configId)}`];
    expect(stored.configuration).toMatchObject({ variables_id: outs.variablesId, variables_values_id: outs.valuesRowId });
    expect(stored.rows.map((r) => r.name)).toEqual(["Active", "Archived"]);

    const same = await ws.previewExpectNoChanges();
    expect(same.code, describeResult(same)).toBe(0);

    // A new default value: only the variables resource is updated, in place.
    const set = await ws.setConfig("e2e:limitDefault", "3");
    expect(set.code, describeResult(set)).toBe(0);
    const json = await ws.preview(["--json"]);
    expect(json.code, describeResult(json)).toBe(0);
    // `--json` lists only the steps that change something (and the stack).
    expect(previewOps(json)).toEqual({ "configs-test": "same", "users-vars": "update" });
    expect((JSON.parse(json.stdout) as { changeSummary: Record<string, number> }).changeSummary).toEqual({ same: 2, update: 1 });
    const diff = await ws.previewDiff();
    expect(diff.code, describeResult(diff)).toBe(0);
    expect(diff.stdout).toMatch(/~ pulumi-nodejs:dynamic\/keboola:VariableConfig: \(update\)/);
    expect(diff.stdout).toMatch(/~ limit\s*: "2" => "3"/);
    expect(diff.stdout).not.toMatch(/keboola:ComponentConfig: \(update\)/);
    emu.clearRequests();
    const up2 = await ws.up();
    expect(up2.code, describeResult(up2)).toBe(0);
    const rowWrites = emu.writes().map((w) => `${w.method} ${w.path}`);
    expect(rowWrites).toEqual([`PUT /v2/storage/branch/default/components/keboola.variables/configs/${String(outs.variablesId)}/rows/${String(outs.valuesRowId)}`]);
    const values = emu.state.storage.configs[`101/keboola.variables/${String(outs.variablesId)}`].rows[0].configuration;
    expect(values).toEqual({ values: [{ name: "limit", value: "3" }, { name: "endpoint", value: "users" }, { name: "since", value: "2024-01-01" }] });

    // A job run with all values succeeds.
    await ws.setConfig("e2e:runOk", "true");
    const upRun = await ws.up();
    expect(upRun.code, describeResult(upRun)).toBe(0);
    const afterRun = await ws.stackOutputs();
    expect(afterRun.jobStatus).toBe("success");
    expect(typeof afterRun.jobId).toBe("string");

    // A job run with missing values (the job would fail: "No value provided for variable") is
    // refused before anything runs, naming the values, the VariableConfig and the fix.
    await ws.setConfig("e2e:runMissing", "true");
    emu.clearRequests();
    const upMissing = await ws.up();
    expect(upMissing.code, describeResult(upMissing)).not.toBe(0);
    expect(upMissing.stdout + upMissing.stderr).toMatch(
      /JobRun resource 'run-missing': property variableValuesData .*has no value for variables "endpoint", "since", which VariableConfig "users-vars" of this program declares, so the job would fail \(No value provided for variable "endpoint"\.\): add them to variableValuesData/,
    );
    expect(emu.writes()).toEqual([]);
    expect((await ws.stackResources()).filter((r) => r.type === T.job).map((r) => r.urn.split("::").pop())).toEqual(["run-ok"]);
    await ws.pulumi(["config", "rm", "--stack", ws.stack, "e2e:runMissing"]);

    const refresh = await ws.refresh(["--expect-no-changes"]);
    expect(refresh.code, describeResult(refresh)).toBe(0);
    const stillSame = await ws.previewExpectNoChanges();
    expect(stillSame.code, describeResult(stillSame)).toBe(0);

    // destroy: nothing left outside the trash.
    const destroy = await ws.destroy();
    expect(destroy.code, describeResult(destroy)).toBe(0);
    expect(liveConfigs()).toEqual([]);
    const trashed = Object.values(emu.state.storage.configs).filter((c) => c.isDeleted).map((c) => `${c.componentId}/${c.id}`);
    expect(trashed.sort()).toEqual([`keboola.ex-generic-v2/${String(outs.configId)}`, `keboola.variables/${String(outs.variablesId)}`].sort());
  }, 15 * 60 * 1000);
});
