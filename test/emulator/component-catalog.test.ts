import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCommandLine } from "../../emulator/cli-options";
import { startEmulator, type Emulator } from "../../emulator/server";
import { call } from "./helpers";

// The components of the emulated stack: the catalog of real records in the API index (with and
// without details), the components added by option or flag (kept in the state file), a
// component's detail, and the component part of the configurations list.

const DETAIL_KEYS = [
  "id", "type", "name", "description", "longDescription", "version", "complexity", "categories", "hasUI", "hasRun",
  "ico32", "ico64", "ico128", "data", "flags", "configurationSchema", "configurationRowSchema", "emptyConfiguration",
  "emptyConfigurationRow", "uiOptions", "configurationDescription", "features", "expiredOn", "uri", "documentationUrl",
];
// storage-api-php-client apiary.apib: `?exclude=componentDetails` keeps only these.
const SHORT_KEYS = ["id", "name", "type", "ico64", "ico128", "features", "flags", "description", "categories"];

// What exported projects use (issue 15) and the components every stack has.
const EXPECTED = [
  "keboola.variables", "keboola.ex-generic-v2", "keboola.ex-http", "keboola.python-transformation-v2",
  "keboola.snowflake-transformation", "keboola.orchestrator", "keboola.shared-code", "keboola.flow", "keboola.scheduler",
  "keboola.sandboxes", "keboola.data-apps", "keboola.ex-db-mysql", "keboola.wr-db-mysql", "keboola.ex-aws-s3",
  "keboola.ex-db-snowflake", "keboola.wr-db-snowflake", "keboola.ex-google-drive", "transformation", "ex-generic-v2",
];

type Entry = Record<string, unknown> & { id: string; type: string; name: string };

let emu: Emulator;
const api = (method: string, path: string, opts: Parameters<typeof call>[3] = {}) => call(emu.url, method, path, { token: "master", ...opts });
const index = async (query = ""): Promise<Entry[]> => (await call(emu.url, "GET", `/v2/storage${query}`, { token: null })).body.components;

beforeAll(async () => {
  emu = await startEmulator({
    token: "master",
    limitedToken: "limited",
    components: [{ id: "acme.ex-crm", type: "extractor", name: "CRM" }, { id: "keboola.ex-http", name: "HTTP (patched)", flags: ["encrypt"] }],
  });
});
afterAll(() => emu.close());

describe("the API index", () => {
  it("lists the catalog with every detail, in the real records' shape", async () => {
    const all = await index();
    const ids = all.map((c) => c.id);
    expect(ids).toEqual(expect.arrayContaining(EXPECTED));
    expect(new Set(ids).size).toBe(ids.length);
    expect(all.length).toBeGreaterThanOrEqual(40);
    for (const c of all) expect(Object.keys(c), c.id).toEqual(DETAIL_KEYS);
    // A recorded record comes back as recorded (keboola-as-code internal/pkg/model/component_test.go).
    const s3 = all.find((c) => c.id === "keboola.ex-aws-s3")!;
    expect(s3).toMatchObject({
      type: "extractor",
      name: "AWS S3",
      version: 83,
      flags: ["genericDockerUI", "genericDockerUI-processors", "encrypt"],
      data: { definition: { type: "aws-ecr", tag: "v3.14.1" }, default_bucket: true, default_bucket_stage: "in", synchronous_actions: ["getExternalId"] },
      features: ["has-sample-data", "has-simplified-ui"],
    });
    expect(all.find((c) => c.id === "transformation")).toMatchObject({ type: "other", data: {} });
    expect(all.find((c) => c.id === "keboola.wr-db-mysql")).toMatchObject({ type: "writer", name: "MySQL" });
  });

  it("lists the same components in short entries with ?exclude=componentDetails, and none with ?exclude=components", async () => {
    const full = await index();
    const short = await index("?exclude=componentDetails");
    expect(short.map((c) => c.id)).toEqual(full.map((c) => c.id));
    for (const c of short) expect(Object.keys(c), c.id).toEqual(SHORT_KEYS);
    expect(short.find((c) => c.id === "keboola.ex-db-snowflake")).toEqual({
      id: "keboola.ex-db-snowflake",
      name: "Snowflake",
      type: "extractor",
      ico64: null,
      ico128: null,
      features: [],
      flags: ["genericDockerUI", "encrypt"],
      description: "Cloud-Native Elastic Data Warehouse Service",
      categories: [],
    });
    const none = await call(emu.url, "GET", "/v2/storage?exclude=components", { token: null });
    expect(none.body.components).toBeUndefined();
    expect(none.body.services.map((s: { id: string }) => s.id)).toContain("queue");
  });

  it("lists an added component, and an added one replaces the catalog's record of its id", async () => {
    const all = await index();
    const crm = all.find((c) => c.id === "acme.ex-crm")!;
    expect(crm).toMatchObject({ type: "extractor", name: "CRM", description: "", flags: [], uri: "https://syrup.keboola.com/docker/acme.ex-crm" });
    expect(Object.keys(crm)).toEqual(DETAIL_KEYS);
    expect(all.filter((c) => c.id === "keboola.ex-http")).toEqual([expect.objectContaining({ name: "HTTP (patched)", type: "other", flags: ["encrypt"] })]);
    expect((await index("?exclude=componentDetails")).find((c) => c.id === "acme.ex-crm")).toMatchObject({ name: "CRM", type: "extractor" });
  });
});

describe("component detail and the components with configurations", () => {
  it("answers a component's detail publicly, with the detail-only keys and no configurations", async () => {
    const r = await call(emu.url, "GET", "/v2/storage/components/keboola.app-tree", { token: null });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: "keboola.app-tree", type: "application", name: "Tree depth", createConfigurationRowSchema: {}, dataTypesConfiguration: {}, processorConfiguration: {} });
    expect(r.body.configurations).toBeUndefined();
    expect(r.body.flags).toContain("excludeFromNewList");
    const branch = await call(emu.url, "GET", "/v2/storage/branch/default/components/acme.ex-crm", { token: null });
    expect(branch.status).toBe(401);
    expect((await api("GET", "/v2/storage/branch/default/components/acme.ex-crm")).body).toMatchObject({ id: "acme.ex-crm", name: "CRM" });
    const unknown = await api("GET", "/v2/storage/components/acme.no-such-component");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: "notFound", status: "error" });
  });

  it("gives each configured component's whole record with its configurations, a component the index does not list too", async () => {
    const created = await api("POST", "/v2/storage/branch/default/components/keboola.ex-db-mysql/configs", { json: { name: "Orders", configurationId: "orders" } });
    expect(created.status).toBe(201);
    const unlisted = await api("POST", "/v2/storage/branch/default/components/acme.unlisted/configs", { json: { name: "Old", configurationId: "old" } });
    expect(unlisted.status).toBe(201);
    const list = (await api("GET", "/v2/storage/branch/default/components")).body as Array<Entry & { configurations: Array<{ id: string }> }>;
    const mysql = list.find((c) => c.id === "keboola.ex-db-mysql")!;
    expect(Object.keys(mysql)).toEqual([...DETAIL_KEYS, "configurations"]);
    expect(mysql).toMatchObject({ type: "extractor", name: "MySQL", flags: ["encrypt", "genericDockerUI"] });
    expect(mysql.configurations.map((c) => c.id)).toEqual(["orders"]);
    expect(list.find((c) => c.id === "acme.unlisted")).toMatchObject({ type: "other", name: "acme.unlisted", configurations: [{ id: "old" }] });
    expect((await index()).map((c) => c.id)).not.toContain("acme.unlisted");
  });
});

describe("adding components", () => {
  it("keeps added components in the state file: a restart without the option still lists them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "emu-components-"));
    try {
      const stateFile = join(dir, "state.json");
      const first = await startEmulator({ token: "master", stateFile, components: [{ id: "acme.wr-warehouse", type: "writer" }] });
      await first.close();
      const second = await startEmulator({ token: "master", stateFile });
      try {
        const r = await call(second.url, "GET", "/v2/storage?exclude=componentDetails", { token: null });
        expect(r.body.components).toContainEqual(expect.objectContaining({ id: "acme.wr-warehouse", type: "writer", name: "acme.wr-warehouse" }));
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses a bad component at start, naming it and the field", async () => {
    await expect(startEmulator({ token: "master", components: [{ id: "acme.x", type: "connector" as "other" }] })).rejects.toThrow(
      /emulator option components: component "acme.x": type /,
    );
    await expect(startEmulator({ token: "master", components: [{ id: "has space" }] })).rejects.toThrow(/component "has space": id a component id has/);
  });

  it("parses --component id[:type[:name]] (repeatable) and refuses a bad one with the fix", () => {
    expect(parseCommandLine(["--token", "t", "--component", "acme.ex-crm:extractor:CRM: EU", "--component", "acme.app"])).toMatchObject({
      kind: "options",
      options: { components: [{ id: "acme.ex-crm", type: "extractor", name: "CRM: EU" }, { id: "acme.app" }] },
    });
    const none = parseCommandLine(["--token", "t"]);
    expect(none.kind === "options" && none.options.components).toBeFalsy();
    expect(parseCommandLine(["--token", "t", "--component", "acme.x:connector"])).toEqual({
      kind: "error",
      message:
        '--component acme.x:connector: the type "connector" is not one of extractor, writer, transformation, application, processor, code-pattern, other (use --component <id>[:<type>[:<name>]], e.g. --component acme.ex-crm:extractor:CRM)',
    });
    expect(parseCommandLine(["--token", "t", "--component", ":extractor"])).toMatchObject({ kind: "error", message: expect.stringMatching(/^--component :extractor: the id "": /) });
  });
});
