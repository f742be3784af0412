import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator/server";
import { KeboolaClient } from "../../provider/api/client";
import { exportProject } from "../../provider/manifest/export";
import { parseManifest } from "../../provider/manifest/parse";
import type { Manifest } from "../../provider/manifest/schema";
import type { Props, ResourceContext } from "../../provider/lifecycle/types";
import { componentConfig, variableConfig } from "../provider/hosted";
import { createVia } from "../provider/harness";

// Export of a project shaped like a real one, taken from keboola/keboola-as-code
// test/cli/push/shared-code-with-vars/expected-state.json: a python transformation using shared
// code (`{{<row id>}}` scripts, shared_code_id / shared_code_row_ids), and the shared code whose row
// "Code with variables" is bound to a variables configuration through the row's `variables_id`
// only (that variables configuration has no values row). As in
// test/templates/api/projects/project-with-shared-variables, the transformation is bound to
// variables with a "Default values" row. The export must manage every variables configuration
// and bind the configuration and the row by key, and each exported entry must pass check and
// deploy over the live objects without a change.

const TOKEN = "export-shapes-token-51c2";
const PYTHON = "keboola.python-transformation-v2";

let emu: Emulator;
let client: KeboolaClient;
let ctx: ResourceContext;
const ids: Record<string, string> = {};

beforeAll(async () => {
  emu = await startEmulator({ token: TOKEN, taskDurationMs: 10 });
  client = new KeboolaClient({ host: emu.url, token: TOKEN, taskTimeoutSeconds: 30 });
  ctx = { client: () => client };
  const s = client.storage;
  const sharedVars = await s.createConfig("default", "keboola.variables", {
    name: "Shared Code Variables",
    description: "test fixture",
    configuration: { variables: [{ name: "num1", type: "string" }, { name: "num2", type: "string" }] },
  });
  ids.sharedVars = String(sharedVars.id);
  const shared = await s.createConfig("default", "keboola.shared-code", { name: "Shared Codes", description: "test fixture", configuration: { componentId: PYTHON } });
  ids.shared = String(shared.id);
  const withVars = await s.createRow("default", "keboola.shared-code", ids.shared, {
    name: "Code with variables",
    description: "test fixture",
    configuration: { code_content: ["num1 = {{num1}}\nnum2 = {{num2}}\nsum = num1 + num2"], variables_id: ids.sharedVars },
  });
  ids.withVars = String(withVars.id);
  await s.createRow("default", "keboola.shared-code", ids.shared, { name: "My code 1", description: "test fixture", configuration: { code_content: ["# This program prints Hello, world!\n\nprint('Hello, world!')"] } });
  const vars = await s.createConfig("default", "keboola.variables", { name: "Transformation variables", configuration: { variables: [{ name: "num1", type: "string" }, { name: "num2", type: "string" }] } });
  ids.vars = String(vars.id);
  const values = await s.createRow("default", "keboola.variables", ids.vars, { name: "Default values", configuration: { values: [{ name: "num1", value: "1.5" }, { name: "num2", value: "6.3" }] } });
  ids.values = String(values.id);
  const transformation = await s.createConfig("default", PYTHON, {
    name: "Transformation With Shared Code",
    description: "test fixture",
    configuration: {
      parameters: { blocks: [{ name: "Block 1", codes: [{ name: "Shared Code Used", script: [`{{${ids.withVars}}}`] }, { name: "Print", script: ["print(sum, {{num1}})"] }] }] },
      shared_code_id: ids.shared,
      shared_code_row_ids: [ids.withVars],
      variables_id: ids.vars,
      variables_values_id: ids.values,
    },
  });
  ids.transformation = String(transformation.id);
}, 60_000);

afterAll(async () => {
  await emu?.close();
});

describe("export of a project with shared code and variables bound from rows", () => {
  let manifest: Manifest;
  let yaml: string;

  beforeAll(async () => {
    const exported = await exportProject(client, {});
    yaml = exported.yaml;
    manifest = parseManifest(yaml);
  });

  it("exports every variables configuration, and binds the configuration and the row by key", () => {
    expect(manifest.variables).toEqual({
      "shared-code-variables": expect.objectContaining({ configId: ids.sharedVars, variables: [{ name: "num1", type: "string" }, { name: "num2", type: "string" }], adoptExisting: true }),
      "transformation-variables": expect.objectContaining({ configId: ids.vars, defaultValues: { num1: "1.5", num2: "6.3" }, adoptExisting: true }),
    });
    expect(manifest.variables!["shared-code-variables"].defaultValues).toBeUndefined();

    const shared = manifest.configurations!["shared-codes"];
    expect(shared.componentId).toBe("keboola.shared-code");
    expect(shared.rows[0]).toMatchObject({ rowId: ids.withVars, name: "Code with variables", variables: "shared-code-variables" });
    expect(shared.rows[0].configuration).toEqual({ code_content: ["num1 = {{num1}}\nnum2 = {{num2}}\nsum = num1 + num2"] });
    expect(shared.rows[1].variables).toBeUndefined();

    const transformation = manifest.configurations!["transformation-with-shared-code"];
    expect(transformation).toMatchObject({ componentId: PYTHON, configId: ids.transformation, variables: "transformation-variables" });
    expect(transformation.configuration).toMatchObject({ shared_code_id: ids.shared, shared_code_row_ids: [ids.withVars] });
    expect(transformation.configuration).not.toHaveProperty("variables_id");
    // The row-bound reference is a key in the YAML, not an id.
    expect(yaml).toMatch(/variables: shared-code-variables/);
  });

  it("deploys every entry over the live objects: check passes (links are not variables), nothing changes", async () => {
    const before = JSON.stringify(Object.values(emu.state.storage.configs).map((c) => [c.id, c.configuration, c.rows.map((r) => r.configuration)]));
    const bindings: Record<string, Props> = {};
    for (const [key, entry] of Object.entries(manifest.variables ?? {})) {
      const created = await createVia(variableConfig, ctx, key, entry as Props);
      bindings[key] = { configId: created.outs.configId, valuesRowId: created.outs.valuesRowId, declared: entry.variables };
    }
    for (const [key, { variables, secrets: _s, rows, ...entry }] of Object.entries(manifest.configurations ?? {})) {
      const inputs = {
        ...entry,
        rows: rows.map(({ variables: rowVariables, ...r }) => ({ ...r, ...(rowVariables ? { variables: bindings[rowVariables] } : {}) })),
        ...(variables ? { variables: bindings[variables] } : {}),
      } as Props;
      const created = await createVia(componentConfig, ctx, key, inputs);
      const diff = await componentConfig.diff(ctx, created.id, created.outs, created.inputs);
      expect(diff.changes, key).toBe(false);
    }
    // The row keeps its variables_id in Keboola: the binding writes what was there.
    const row = emu.state.storage.configs[Object.keys(emu.state.storage.configs).find((k) => emu.state.storage.configs[k].id === ids.shared)!].rows.find((r) => r.id === ids.withVars)!;
    expect(row.configuration).toEqual({ code_content: ["num1 = {{num1}}\nnum2 = {{num2}}\nsum = num1 + num2"], variables_id: ids.sharedVars });
    expect(JSON.stringify(Object.values(emu.state.storage.configs).map((c) => [c.id, c.configuration, c.rows.map((r) => r.configuration)]))).toBe(before);
  });

  it("keeps a variables_id whose values row is not the default one as written, and still exports its variables", async () => {
    const other = await client.storage.createRow("default", "keboola.variables", ids.vars, { name: "Other values", configuration: { values: [{ name: "num1", value: "2" }, { name: "num2", value: "3" }] } });
    const extractor = await client.storage.createConfig("default", "keboola.ex-generic-v2", {
      name: "Other values user",
      configuration: { variables_id: ids.vars, variables_values_id: String(other.id), parameters: { api: { baseUrl: "https://example.com/" }, config: { jobs: [{ endpoint: "{{num1}}" }] } } },
    });
    const again = parseManifest((await exportProject(client, { components: ["keboola.ex-generic-v2"] })).yaml);
    expect(Object.keys(again.variables ?? {})).toEqual(["transformation-variables"]);
    expect(again.configurations!["other-values-user"].variables).toBeUndefined();
    expect(again.configurations!["other-values-user"].configuration).toMatchObject({ variables_id: ids.vars, variables_values_id: String(other.id) });
    await client.storage.deleteConfig("default", "keboola.ex-generic-v2", String(extractor.id));
  });
});

describe("export for one declaration across stacks", () => {
  it("writes a ${ Keboola holds as $${, which reads back as the same value", async () => {
    await client.storage.createConfig("default", "keboola.ex-generic-v2", { name: "Templated", configuration: { parameters: { url: "https://x/${id}", plain: "no template" } } });
    const result = await exportProject(client, { components: ["keboola.ex-generic-v2"] });
    expect(result.yaml).toContain("https://x/$${id}");
    const parsed = parseManifest(result.yaml);
    const entry = Object.values(parsed.configurations ?? {}).find((c) => c.name === "Templated");
    expect(entry?.configuration).toEqual({ parameters: { url: "https://x/${id}", plain: "no template" } });
  });

  it("--protect writes options: { protect: true } on every entry and says so", async () => {
    const plain = await exportProject(client, {});
    const result = await exportProject(client, { protect: true });
    expect(plain.yaml).not.toContain("protect");
    expect(result.yaml).toContain("Every entry is protected");
    const read = parseManifest(result.yaml);
    const entries = Object.entries(read).filter(([section]) => section !== "config").flatMap(([section, e]) => Object.keys(e ?? {}).map((k) => `${section}/${k}`));
    expect(entries.length).toBeGreaterThan(3);
    const { readManifest } = await import("../../provider/manifest/parse");
    const { options } = readManifest(result.yaml);
    expect(entries.filter((e) => options.get(e)?.protect !== true)).toEqual([]);
  });
});
