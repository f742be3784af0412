import Ajv, { type ErrorObject } from "ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator/server";
import { call } from "./helpers";

// The configuration schemas of the catalog: what `kbc local validate` (and `pull`/`push`, which
// warn) checks a configuration's `parameters` against, and with the empty configurations what
// `kbc local create config|row` writes into a new configuration. The cases below are
// keboola-as-code's own (test/cli/validate, create and pull @ 86d930f), whose expectations were
// recorded against the real index; where each schema comes from is in
// emulator/storage/component-catalog.md.

type Schema = Record<string, unknown>;
type IndexRecord = Record<string, unknown> & { id: string; type: string; configurationSchema: Schema; configurationRowSchema: Schema; emptyConfiguration: Schema };

let emu: Emulator;
const index = async (query = ""): Promise<IndexRecord[]> => (await call(emu.url, "GET", `/v2/storage${query}`, { token: null })).body.components;
const component = async (id: string): Promise<IndexRecord> => (await index()).find((c) => c.id === id)!;

// kbc ignores the UI keywords (propertyOrder, options, format); so does this validator. Ajv knows
// no draft-04 meta-schema, and the keywords the schemas use mean the same under draft-07.
const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
function validator(schema: Schema): (parameters: unknown) => ErrorObject[] {
  const { $schema: _draft, ...rest } = schema;
  const validate = ajv.compile(rest);
  return (parameters) => (validate(parameters) ? [] : (validate.errors ?? []));
}
const where = (errors: ErrorObject[]) => errors.map((e) => `${e.instancePath} ${e.keyword} ${JSON.stringify(e.params)}`);

beforeAll(async () => {
  emu = await startEmulator({ token: "master" });
});
afterAll(() => emu.close());

describe("components kbc's tests use", () => {
  it("lists the ones the catalog lacked, with the type their configurations' paths give and their schemas", async () => {
    // keboola-as-code test/cli: validate/row-conditional-* (kds-team.wr-sftp, a writer's rows),
    // pull/orchestration-trigger-conditional-requirement (application/kds-team.app-orchestration-trigger-queue-v2),
    // create/config-with-schema (extractor/keboola.ag-geocoding).
    const all = await index();
    const short = await index("?exclude=componentDetails");
    for (const [id, type] of [["kds-team.wr-sftp", "writer"], ["kds-team.app-orchestration-trigger-queue-v2", "application"], ["keboola.ag-geocoding", "extractor"]]) {
      expect(all.find((c) => c.id === id), id).toMatchObject({ id, type });
      expect(Object.keys(all.find((c) => c.id === id)!.configurationSchema), id).toContain("properties");
      expect(short.find((c) => c.id === id), id).toMatchObject({ id, type });
    }
  });

  it("answers a component's schemas in its detail and its branch detail as in the index", async () => {
    const sftp = await component("kds-team.wr-sftp");
    const detail = (await call(emu.url, "GET", "/v2/storage/components/kds-team.wr-sftp", { token: null })).body;
    const branchDetail = (await call(emu.url, "GET", "/v2/storage/branch/default/components/kds-team.wr-sftp", { token: "master" })).body;
    for (const d of [detail, branchDetail]) {
      expect(d.configurationSchema).toEqual(sftp.configurationSchema);
      expect(d.configurationRowSchema).toEqual(sftp.configurationRowSchema);
    }
    // keboola/component-sftp component_config/configRowSchema.json: the date format is required,
    // but shown (and so required, kbc's validator reads options.dependencies) only when a date is appended.
    expect(sftp.configurationRowSchema).toMatchObject({
      required: ["path", "append_date", "append_date_format"],
      properties: { append_date: { enum: [0, 1], default: 0 }, append_date_format: { options: { dependencies: { append_date: 1 } } } },
    });
    expect(sftp.configurationSchema).toMatchObject({ required: ["hostname", "port", "user", "#pass"] });
  });
});

describe("keboola.ex-azure-cost-management", () => {
  it("accepts the configuration kbc's validate/config-ok accepts and refuses validate/config-error's for a missing subscriptionId only", async () => {
    const validate = validator((await component("keboola.ex-azure-cost-management")).configurationSchema);
    expect(validate({ subscriptionId: "12345" })).toEqual([]);
    // pull/invalid-remote-state: {"foo": "bar"} is reported for subscriptionId and nothing else.
    expect(where(validate({ foo: "bar" }))).toEqual([' required {"missingProperty":"subscriptionId"}']);
    expect(validate({ subscriptionId: "" }).map((e) => e.keyword)).toEqual(["minLength"]);
  });

  it("refuses the rows of validate/row-error and dir-error for what kbc reports there, and accepts row-ok's", async () => {
    const validate = validator((await component("keboola.ex-azure-cost-management")).configurationRowSchema);
    const ok = {
      export: {
        aggregation: "Cost",
        destination: "table-1",
        granularity: "Daily",
        groupingDimensions: ["ServiceName", "ResourceGroupName", "ResourceLocation", "Meter"],
        incremental: true,
        timeDimension: { timeFrame: "WeekToDate" },
        type: "ActualCost",
      },
    };
    expect(validate(ok)).toEqual([]);
    const { aggregation: _a, ...withoutAggregation } = ok.export;
    // row-error: `"export": missing property "aggregation"`, `"export.groupingDimensions": got string, want array`.
    expect(where(validate({ export: { ...withoutAggregation, groupingDimensions: "***should be array***" } }))).toEqual([
      '/export required {"missingProperty":"aggregation"}',
      '/export/groupingDimensions type {"type":"array"}',
    ]);
    // dir-error row-2 and row-3: `"export.type": value must be one of "ActualCost", "AmortizedCost", "Usage"`;
    // row-3's extra "#password" is only reported as unencrypted, so other keys are allowed.
    const typeErrors = validate({ export: { ...ok.export, type: "", "#password": "unencrypted" } });
    expect(where(typeErrors)).toEqual(['/export/type enum {"allowedValues":["ActualCost","AmortizedCost","Usage"]}']);
  });
});

describe("keboola.ex-db-mysql", () => {
  it("requires the db's port, user and #password, as the real schema has since keboola-as-code commit bc5cd01f3, and nothing of a row", async () => {
    const mysql = await component("keboola.ex-db-mysql");
    const validate = validator(mysql.configurationSchema);
    // internal/pkg/fixtures/configs/with-rows.json, after that commit.
    expect(validate({ db: { host: "mysql.example.com", port: 3306, user: "root", "#password": "KBC::ProjectSecureKV::eJw=" } })).toEqual([]);
    expect(validate({ db: { host: "mysql.example.com" } }).map((e) => e.params)).toEqual([
      { missingProperty: "port" },
      { missingProperty: "user" },
      { missingProperty: "#password" },
    ]);
    // Rows of the pulled and pushed fixtures: {"incremental": false}.
    expect(validator(mysql.configurationRowSchema)({ incremental: false })).toEqual([]);
  });

  it("gives kbc's generator what create/config and create/config-row write: draft-04 arrays with items, the SSH port's default", async () => {
    const mysql = await component("keboola.ex-db-mysql");
    for (const schema of [mysql.configurationSchema, mysql.configurationRowSchema]) expect(schema.$schema).toBe("http://json-schema.org/draft-04/schema#");
    expect(mysql.configurationSchema).toMatchObject({
      properties: { db: { properties: { initQueries: { type: "array", items: { type: "string" } }, ssh: { properties: { sshPort: { type: "integer", default: 22 } } } } } },
    });
    expect(mysql.configurationRowSchema).toMatchObject({
      properties: { columns: { items: { type: "string" } }, primaryKey: { items: { type: "string" } }, tables: { type: "array" }, table: {} },
    });
    expect((mysql.configurationRowSchema.properties as Schema).tables).not.toHaveProperty("items");
  });
});

describe("what kbc's local create writes for the other components", () => {
  it("keboola.app-data-gateway: the workspace's connection, port 443 (create/config-data-gateway)", async () => {
    const gateway = await component("keboola.app-data-gateway");
    expect(gateway.configurationSchema).toMatchObject({ properties: { db: { properties: { port: { type: "integer", default: 443 }, workspaceId: { type: "integer" }, ssoLoginAvailable: { type: "boolean" } } } } });
    expect(Object.keys((gateway.configurationSchema.properties as { db: { properties: Schema } }).db.properties).sort()).toEqual(
      ["#privateKey", "account", "database", "driver", "host", "loginType", "port", "region", "role", "schema", "ssoLoginAvailable", "user", "warehouse", "workspaceId"],
    );
  });

  it("keboola.ag-geocoding: geocode with google_maps first (create/config-with-schema)", async () => {
    const geocoding = await component("keboola.ag-geocoding");
    expect(geocoding.configurationSchema).toMatchObject({ properties: { method: { enum: ["geocode", "reverse"] }, provider: { enum: expect.arrayContaining(["google_maps", "nominatim"]) } } });
    expect(((geocoding.configurationSchema.properties as Schema).provider as { enum: string[] }).enum[0]).toBe("google_maps");
  });

  it("keboola.orchestrator: a flow with no phases and no tasks (create/config-orchestrator)", async () => {
    expect((await component("keboola.orchestrator")).emptyConfiguration).toEqual({ phases: [], tasks: [] });
  });

  it("kds-team.app-orchestration-trigger-queue-v2: accepts the fire-and-forget trigger that pull/orchestration-trigger-conditional-requirement pulls", async () => {
    // internal/pkg/fixtures/configs/trigger-fire-and-forget.json: every required key, kbcUrl one of the stacks.
    const trigger = await component("kds-team.app-orchestration-trigger-queue-v2");
    const parameters = { waitUntilFinish: false, "#kbcToken": "KBC::ProjectSecure::dummytoken", kbcUrl: "-", orchestrationId: "123456" };
    expect([...(trigger.configurationSchema.required as string[])].sort()).toEqual(Object.keys(parameters).sort());
    expect(((trigger.configurationSchema.properties as Schema).kbcUrl as { enum: string[] }).enum).toContain("-");
    expect(trigger.configurationRowSchema).toEqual({});
  });
});
