// Adopting a project shaped like a real one through the real Pulumi CLI: a python transformation
// bound to variables whose scripts link shared code (`{{<shared code row id>}}`), and the shared
// code whose row is bound to the variables its code uses through the row's `variables_id` only
// (keboola/keboola-as-code test/cli/push/shared-code-with-vars/expected-state.json; the
// transformation's own binding as in test/templates/api/projects/project-with-shared-variables).
// `keboola-pulumi export` writes the manifest, `pulumi up` deploys it as a new stack taking every
// object over (writing only owner markers), `pulumi preview --expect-no-changes` passes, the
// export is the same again, and a job of the transformation runs with the link resolved.
// The program is a workspace of its own with node_modules/keboola-pulumi linked to this checkout
// (deployManifest from the package), so the dynamic provider runs this checkout's runtime.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator/server";
import { describeResult, initEmulatorStack, makePulumiWorkspace, runProcess, type PulumiWorkspace } from "./helpers/pulumi";
import { KeboolaClient } from "../../provider/api/client";
import { parseManifest } from "../../provider/manifest/parse";
import { KEBOOLA_PULUMI } from "../helpers/cli";

const TOKEN = "master-token-shared-code";
const PYTHON = "keboola.python-transformation-v2";
const SHARED_CODE = "num1 = {{num1}}\nnum2 = {{num2}}\nsum = num1 + num2";


interface Ids {
  sharedVars: string;
  shared: string;
  withVars: string;
  vars: string;
  transformation: string;
}

/** The project, written through the Storage API as the UI or `kbc push` writes it. */
async function populate(client: KeboolaClient): Promise<Ids> {
  const s = client.storage;
  const sharedVars = String(
    (await s.createConfig("default", "keboola.variables", { name: "Shared Code Variables", description: "test fixture", configuration: { variables: [{ name: "num1", type: "string" }, { name: "num2", type: "string" }] } })).id,
  );
  const shared = String((await s.createConfig("default", "keboola.shared-code", { name: "Shared Codes", description: "test fixture", configuration: { componentId: PYTHON } })).id);
  const withVars = String(
    (await s.createRow("default", "keboola.shared-code", shared, { name: "Code with variables", description: "test fixture", configuration: { code_content: [SHARED_CODE], variables_id: sharedVars } })).id,
  );
  await s.createRow("default", "keboola.shared-code", shared, { name: "My code 1", description: "test fixture", configuration: { code_content: ["print('Hello, world!')"] } });
  const vars = String((await s.createConfig("default", "keboola.variables", { name: "Transformation variables", configuration: { variables: [{ name: "num1", type: "string" }, { name: "num2", type: "string" }] } })).id);
  const values = String((await s.createRow("default", "keboola.variables", vars, { name: "Default values", configuration: { values: [{ name: "num1", value: "1.5" }, { name: "num2", value: "6.3" }] } })).id);
  const transformation = String(
    (
      await s.createConfig("default", PYTHON, {
        name: "Transformation With Shared Code",
        description: "test fixture",
        configuration: {
          parameters: {
            blocks: [{ name: "Block 1", codes: [{ name: "Shared Code Used", script: [`{{${withVars}}}`] }, { name: "Print", script: ["print(sum, {{num1}})"] }] }],
          },
          shared_code_id: shared,
          shared_code_row_ids: [withVars],
          variables_id: vars,
          variables_values_id: values,
        },
      })
    ).id,
  );
  return { sharedVars, shared, withVars, vars, transformation };
}

describe("e2e: export a project with shared code links and row-bound variables, deploy it, no changes after", () => {
  let emu: Emulator;
  let ws: PulumiWorkspace;
  let dir: string;
  let ids: Ids;

  beforeAll(async () => {
    emu = await startEmulator({ token: TOKEN, taskDurationMs: 20 });
    ids = await populate(new KeboolaClient({ host: emu.url, token: TOKEN, taskTimeoutSeconds: 60 }));
    ws = await makePulumiWorkspace({ project: "shared-code-export" });
    dir = ws.programDir;
    ws.writeProgram({ "index.js": `"use strict";\nrequire("keboola-pulumi").deployManifest(${JSON.stringify(path.join(dir, "keboola.yaml"))});\n` }, { linkProjectPackage: true });
    await initEmulatorStack(ws, emu.url, TOKEN);
  }, 30 * 60 * 1000);

  afterAll(async () => {
    await ws?.cleanup();
    await emu?.close();
  });

  const exportCli = () =>
    runProcess(process.execPath, [KEBOOLA_PULUMI, "export", "--host", emu.url], { cwd: dir, env: { ...process.env, KBC_TOKEN: TOKEN } });

  it("exports, deploys as a new stack writing only owner markers, previews no changes, exports the same again", async () => {
    const exported = await exportCli();
    expect(exported.code, describeResult(exported)).toBe(0);
    const text = exported.stdout;
    fs.writeFileSync(path.join(dir, "keboola.yaml"), text);

    // Both variables configurations are managed; the transformation and the shared code row bind them by key.
    const m = parseManifest(text);
    expect(Object.keys(m.variables!).sort()).toEqual(["shared-code-variables", "transformation-variables"]);
    expect(m.variables!["shared-code-variables"]).toMatchObject({ configId: ids.sharedVars, adoptExisting: true });
    expect(m.configurations!["transformation-with-shared-code"]).toMatchObject({ configId: ids.transformation, variables: "transformation-variables", adoptExisting: true });
    expect(m.configurations!["shared-codes"].rows[0]).toMatchObject({ rowId: ids.withVars, variables: "shared-code-variables", configuration: { code_content: [SHARED_CODE] } });

    const contents = () =>
      Object.values(emu.state.storage.configs)
        .filter((c) => !c.isDeleted)
        .map((c) => ({ componentId: c.componentId, id: c.id, name: c.name, description: c.description, configuration: c.configuration, rows: c.rows.map((r) => [r.id, r.name, r.configuration]) }));
    const before = contents();
    emu.clearRequests();
    const up = await ws.up([], { timeoutMs: 300_000 });
    expect(up.code, describeResult(up)).toBe(0);
    expect(up.stdout).toMatch(/\+ 5 created/); // 2 variables, 2 configurations and the stack
    // Taking over writes only each configuration's owner marker (in its metadata), once.
    const writes = emu.writes().map((w) => `${w.method} ${w.path.replace(/\?.*$/, "")}`);
    expect(writes.filter((w) => !/^POST \/v2\/storage\/branch\/default\/components\/[^/]+\/configs\/[^/]+\/metadata$/.test(w))).toEqual([]);
    expect(writes).toHaveLength(before.length);
    expect(contents()).toEqual(before);

    const same = await ws.previewExpectNoChanges([], { timeoutMs: 300_000 });
    expect(same.code, describeResult(same)).toBe(0);
    expect(same.stdout + same.stderr).not.toMatch(/undeclared|do not declare|<nil>/);

    const again = await exportCli();
    expect(again.code, describeResult(again)).toBe(0);
    expect(again.stdout).toBe(text);

    // A job of the transformation: the link is replaced by the shared code, whose variables are rendered.
    const client = new KeboolaClient({ host: emu.url, token: TOKEN, taskTimeoutSeconds: 60 });
    const queue = await client.queue();
    const job = await queue.waitForJobEnd(await queue.createJob({ component: PYTHON, config: ids.transformation, mode: "run" }), "the transformation's job");
    expect(job.status, JSON.stringify(job.result)).toBe("success");
    const resolved = emu.state.queue.resolved[String(job.id)].configuration as { parameters: { blocks: Array<{ codes: Array<{ script: string[] }> }> } };
    expect(resolved.parameters.blocks[0].codes.map((c) => c.script)).toEqual([["num1 = 1.5\nnum2 = 6.3\nsum = num1 + num2"], ["print(sum, 1.5)"]]);
  }, 600_000);
});
