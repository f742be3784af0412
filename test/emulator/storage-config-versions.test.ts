import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator/server";
import { call } from "./helpers";

// Which Storage API calls make a configuration version, what change description a row leaves on
// its configuration, the `state` of the answers, and configurations created without content.
// Sources (each test names its own): keboola/keboola-sdk-go v2.21.0 pkg/keboola/storage_config_test.go,
// storage_row_test.go (integration tests run against real Storage), keboola/storage-api-php-client
// tests/Common/ComponentsTest.php, ConfigurationRowStateTest.php, ConfigurationMetadataTest.php,
// src/Keboola/StorageApi/Components.php and apiary.apib.

let emu: Emulator;
const api = (method: string, path: string, opts: Parameters<typeof call>[3] = {}) => call(emu.url, method, path, { token: "master", ...opts });
const COMPONENT = "ex-generic-v2";
const configs = `/v2/storage/branch/default/components/${COMPONENT}/configs`;

beforeAll(async () => {
  emu = await startEmulator({ token: "master", taskDurationMs: 20 });
});
afterAll(() => emu.close());

/** The JSON body keboola-sdk-go's StructToMap makes of a ConfigRow (every writable field). */
const sdkRow = (name: string, isDisabled: boolean, content: Record<string, unknown>) => ({
  name,
  description: `${name} description`,
  changeDescription: `${name} test`,
  isDisabled,
  configuration: content,
});

type Listed = { id: string; configurations: Array<Record<string, unknown> & { id: string; rows?: Array<Record<string, unknown>> }> };
const listedConfig = async (include: string, id: string) => {
  const r = await api("GET", `/v2/storage/branch/default/components?include=${include}`);
  expect(r.status).toBe(200);
  const component = (r.body as Listed[]).find((c) => c.id === COMPONENT);
  return component?.configurations.find((c) => c.id === id);
};

describe("keboola-sdk-go's sequences reach the versions real Storage gives", () => {
  // keboola-sdk-go v2.21.0 pkg/keboola/storage_config_test.go TestConfigApiCalls and
  // storage_config.go: create (v1), rows 1 and 2 (v2, v3), UpdateConfigRequest with "rows" = a
  // changed configuration (v4), then synchronizeConfigRows updates rows 1 and 2 with their
  // unchanged name, description, changeDescription and configuration (v5, v6) and creates row 3
  // (v7); expectedComponentsConfigTest: version 7, rows at 2, 2, 1, "changeDescription": "Row%d test".
  it("TestConfigApiCalls: version 7, then 8 after a configuration-only update", async () => {
    const created = await api("POST", configs, {
      json: {
        branchId: 1,
        componentId: COMPONENT,
        name: "Test",
        description: "Test description",
        changeDescription: "My test",
        isDisabled: false,
        configuration: { foo: { bar: "baz" } },
        rowsSortOrder: [],
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ version: 1, changeDescription: "My test", state: {} });
    const id: string = created.body.id;
    const rows = `${configs}/${id}/rows`;
    const row1 = (await api("POST", rows, { json: sdkRow("Row1", false, { row1: "value1" }) })).body;
    const row2 = (await api("POST", rows, { json: sdkRow("Row2", true, { row2: "value2" }) })).body;
    expect([row1.version, row2.version]).toEqual([1, 1]);
    expect((await api("GET", `${configs}/${id}`)).body).toMatchObject({ version: 3, changeDescription: "Row2 test" });

    const fields = { name: "Test modified +++úěš!@#", description: "Test description modified", changeDescription: "updated" };
    const put = await api("PUT", `${configs}/${id}`, {
      json: { ...fields, configuration: { foo: { bar: "modified" } }, rows: [row1, row2, sdkRow("Row3", false, { row3: "value3" })] },
    });
    expect(put.body).toMatchObject({ version: 4, changeDescription: "updated" });
    for (const row of [row1, row2]) {
      const { name, description, changeDescription, configuration } = row;
      const updated = await api("PUT", `${rows}/${row.id}`, { json: { name, description, changeDescription, configuration } });
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({ version: 2, changeDescription: `${row.name} test` });
    }
    expect((await api("POST", rows, { json: sdkRow("Row3", false, { row3: "value3" }) })).status).toBe(201);

    const listed = await listedConfig("configuration,rows", id);
    expect(listed).toMatchObject({ ...fields, changeDescription: "Row3 test", version: 7, configuration: { foo: { bar: "modified" } } });
    expect(listed?.rows?.map((r) => [r.name, r.version, r.changeDescription])).toEqual([
      ["Row1", 2, "Row1 test"],
      ["Row2", 2, "Row2 test"],
      ["Row3", 1, "Row3 test"],
    ]);
    expect((await api("GET", `${configs}/${id}/versions`)).body).toHaveLength(7);

    // expectedComponentsAfterConfigOnlyUpdate: version 8, the rows untouched.
    const only = await api("PUT", `${configs}/${id}`, {
      json: { name: "Test config only update", description: "Test description config only", changeDescription: "config only update", configuration: { config_only: { test: "config_only_value" } } },
    });
    expect(only.body).toMatchObject({ version: 8, changeDescription: "config only update" });
    expect(only.body.rows.map((r: { version: number }) => r.version).sort()).toEqual([1, 2, 2]);
  });

  // keboola-sdk-go v2.21.0 pkg/keboola/storage_row_test.go TestConfigRowApiCalls,
  // expectedComponentsConfigRowTest: version 5, "changeDescription": "Row %s deleted", row 1 at 2.
  it("TestConfigRowApiCalls: version 5 and the deleted row's id in the change description", async () => {
    const id: string = (await api("POST", configs, { json: { name: "Test", description: "Test description", changeDescription: "My test", configuration: { foo: { bar: "baz" } } } })).body.id;
    const rows = `${configs}/${id}/rows`;
    const row1 = (await api("POST", rows, { json: sdkRow("Row1", true, { row1: "value1" }) })).body;
    const row2 = (await api("POST", rows, { json: sdkRow("Row2", false, { row2: "value2" }) })).body;
    const updated = await api("PUT", `${rows}/${row1.id}`, {
      json: { name: "Row1 modified", description: "Row1 description modified", changeDescription: "updated", configuration: { row1: "xyz" } },
    });
    expect(updated.body).toMatchObject({ version: 2, changeDescription: "updated", isDisabled: true });
    expect((await api("DELETE", `${rows}/${row2.id}`)).status).toBe(204);
    const listed = await listedConfig("configuration,rows", id);
    expect(listed).toMatchObject({ version: 5, changeDescription: `Row ${row2.id} deleted` });
    expect(listed?.rows).toEqual([expect.objectContaining({ id: row1.id, version: 2, changeDescription: "updated" })]);
  });
});

describe("a row update is a version unless it gives nothing but the row's own configuration", () => {
  it("an empty body or the same configuration: no version (ComponentsTest NoNewVersionIsCreatedIfNothingChanged, VersionRollback)", async () => {
    const id: string = (await api("POST", configs, { json: { name: "Rules" } })).body.id;
    const rows = `${configs}/${id}/rows`;
    await api("POST", rows, { json: { rowId: "r1", configuration: { "my-value": 666 } } });
    for (const body of [{}, { configuration: { "my-value": 666 } }, { state: { cache: true } }]) {
      const r = await api("PUT", `${rows}/r1`, { json: body });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ version: 1, changeDescription: "Row r1 added" });
    }
    expect((await api("GET", `${configs}/${id}`)).body).toMatchObject({ version: 2, changeDescription: "Row r1 added" });
  });

  it("the row's own name given again: row version 2, 'Row <id> changed' (ComponentsTest testComponentConfigRowUpdate)", async () => {
    const id: string = (await api("POST", configs, { json: { name: "Main", description: "some desc" } })).body.id;
    const rows = `${configs}/${id}/rows`;
    expect((await api("POST", rows, { json: { rowId: "main-1-1", name: "hashed" } })).body.changeDescription).toBe("Row main-1-1 added");
    const same = await api("PUT", `${rows}/main-1-1`, { json: { name: "hashed" } });
    expect(same.body).toMatchObject({ version: 2, changeDescription: "Row main-1-1 changed", configuration: {} });
    expect((await api("GET", `${configs}/${id}`)).body).toMatchObject({ version: 3, changeDescription: "Row main-1-1 changed" });

    // A given change description is the row's and its configuration's (ComponentsTest testChangeDescription).
    const described = await api("PUT", `${rows}/main-1-1`, { json: { configuration: { test: 1 }, changeDescription: "Change description test" } });
    expect(described.body).toMatchObject({ version: 3, changeDescription: "Change description test" });
    expect((await api("GET", `${configs}/${id}`)).body).toMatchObject({ version: 4, changeDescription: "Change description test" });
  });

  it("configuration updates still compare: the same name, description and configuration is no version (ComponentsTest testComponentConfigUpdateVersioning)", async () => {
    const created = (await api("POST", configs, { json: { name: "neco", description: "some desc", configuration: { x: "y" } } })).body;
    const again = await api("PUT", `${configs}/${created.id}`, { json: { name: "neco", description: "some desc", configuration: { x: "y" } } });
    expect(again.body).toMatchObject({ version: 1, changeDescription: "Configuration created" });
    expect(again.body.currentVersion.versionIdentifier).toBe(created.currentVersion.versionIdentifier);
  });

  it("metadata is no version (ConfigurationMetadataTest: the metadata-set event names version 1)", async () => {
    const id: string = (await api("POST", configs, { json: { name: "Meta" } })).body.id;
    const set = await api("POST", `${configs}/${id}/metadata`, { json: { metadata: [{ key: "KBC.KaC.meta1", value: "value" }] } });
    expect(set.status).toBeLessThan(300);
    expect((await api("GET", `${configs}/${id}`)).body.version).toBe(1);
    expect((await api("GET", `${configs}/${id}/versions`)).body).toHaveLength(1);
  });
});

describe("state", () => {
  it("is {} in the create answer, the detail and the per-component list (apiary.apib; ConfigurationRowStateTest testAttributeExists)", async () => {
    const created = await api("POST", configs, { json: { name: "Stateless", configurationId: "stateless" } });
    expect(created.body.state).toEqual({});
    await api("POST", `${configs}/stateless/rows`, { json: { rowId: "main-1-1" } });
    const detail = (await api("GET", `${configs}/stateless`)).body;
    expect(detail.state).toEqual({});
    expect(detail.rows[0].state).toEqual({});
    const listed = (await api("GET", configs)).body.find((c: { id: string }) => c.id === "stateless");
    expect(listed.state).toEqual({});
  });

  // storage-api-php-client tests/Common/ComponentsTest.php testListComponents; keboola-sdk-go
  // reads `include=configuration,rows` and expects "state": null (no key) for configurations and rows.
  it("is in the components list only with include=state, for configurations and rows", async () => {
    await api("POST", configs, { json: { name: "Main", configurationId: "listed", configuration: { value: 1 }, state: { stateValue: "some-value" } } });
    await api("POST", `${configs}/listed/rows`, { json: { rowId: "firstRow", configuration: { value: 2 }, state: { rowStateValue: "some-value" } } });

    const bare = await listedConfig("", "listed");
    expect(bare).toBeDefined();
    for (const key of ["configuration", "rows", "state"]) expect(bare).not.toHaveProperty(key);

    const withRows = await listedConfig("rows", "listed");
    expect(withRows).not.toHaveProperty("configuration");
    expect(withRows).not.toHaveProperty("state");
    expect(withRows?.rows?.[0]).not.toHaveProperty("configuration");
    expect(withRows?.rows?.[0]).not.toHaveProperty("state");

    const withState = await listedConfig("rows,state", "listed");
    expect(withState?.state).toEqual({ stateValue: "some-value" });
    expect(withState?.rows?.[0].state).toEqual({ rowStateValue: "some-value" });
    expect(withState).not.toHaveProperty("configuration");

    const sdk = await listedConfig("configuration,rows", "listed");
    expect(sdk?.configuration).toEqual({ value: 1 });
    expect(sdk?.rows?.[0].configuration).toEqual({ value: 2 });
    expect(sdk).not.toHaveProperty("state");
    expect(sdk?.rows?.[0]).not.toHaveProperty("state");
  });

  it("an unknown include is 400 with the allowed ones (ComponentsTest testListComponents)", async () => {
    const r = await api("GET", "/v2/storage/branch/default/components?include=invalid");
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/^Invalid request/);
    expect(r.body.errors).toEqual([
      { key: "include", message: 'Invalid include parameters: "invalid". Only following are allowed: configuration, rows, state.' },
    ]);
  });
});

describe("a configuration created without content", () => {
  // keboola-sdk-go v2.21.0 pkg/keboola/sandbox_workspaces_config.go CreateSandboxWorkspaceConfigRequest:
  // a Config without Content is `"configuration": null` (request.StructToMap), as the editor-session
  // tests (sandbox_workspaces_test.go) create it against real Storage.
  it("accepts keboola-sdk-go's `configuration: null` and stores {} (ComponentsTest testComponentConfigUpdateEmptyWithEmpty)", async () => {
    const created = await api("POST", "/v2/storage/branch/default/components/keboola.sandboxes/configs", {
      json: { branchId: 1, componentId: "keboola.sandboxes", name: "test", description: "", changeDescription: "", isDisabled: false, configuration: null, rowsSortOrder: null },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "test", configuration: {}, state: {}, version: 1, changeDescription: "Configuration created" });
    const path = `/v2/storage/branch/default/components/keboola.sandboxes/configs/${created.body.id}`;
    const same = await api("PUT", path, { json: { configuration: {} } });
    expect(same.body).toMatchObject({ version: 1, configuration: {} });
  });

  // storage-api-php-client src/Keboola/StorageApi/Components.php addConfiguration and
  // addConfigurationRow send every field, null when not set (tests/Common/ComponentsTest.php
  // testComponentConfigRowCreate: `assertEmpty($component['configuration'])`, version 1 then 2).
  it("accepts the PHP client's nulls for a configuration and a row", async () => {
    const created = await api("POST", configs, {
      json: { name: "Main", description: null, configurationId: null, configuration: null, state: null, changeDescription: null, isDisabled: null },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: expect.stringMatching(/^\d+$/), description: "", configuration: {}, state: {}, isDisabled: false, changeDescription: "Configuration created" });
    const row = await api("POST", `${configs}/${created.body.id}/rows`, {
      json: { rowId: "main-1-1", configuration: null, state: null, changeDescription: null, name: null, description: null, isDisabled: null },
    });
    expect(row.status).toBe(201);
    expect(row.body).toMatchObject({ id: "main-1-1", name: "", configuration: {}, state: {}, isDisabled: false, changeDescription: "Row main-1-1 added" });
    expect((await api("GET", `${configs}/${created.body.id}`)).body.version).toBe(2);
  });

  it("still refuses a configuration that is not JSON (ComponentsTest testNonJsonConfigurationShouldNotBeAllowed)", async () => {
    const r = await api("POST", configs, { json: { name: "neco", description: "some", configuration: "{sdf}" } });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("validation.invalidConfigurationFormat");
  });
});
