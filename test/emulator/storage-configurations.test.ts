import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator/server";
import { call } from "./helpers";

let emu: Emulator;
const api = (method: string, path: string, opts: Parameters<typeof call>[3] = {}) => call(emu.url, method, path, { token: "master", ...opts });
const configs = (component = "keboola.ex-generic-v2", branch = "default") => `/v2/storage/branch/${branch}/components/${component}/configs`;

beforeAll(async () => {
  emu = await startEmulator({ token: "master", limitedToken: "limited", taskDurationMs: 20 });
});
afterAll(() => emu.close());

describe("configurations", () => {
  it("creates from a form with a JSON string and answers 201 with the real detail shape", async () => {
    const r = await api("POST", configs(), {
      form: { name: "Main", description: "desc", configuration: JSON.stringify({ parameters: { a: 1 } }), changeDescription: "init" },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      id: expect.stringMatching(/^\d+$/),
      name: "Main",
      description: "desc",
      version: 1,
      changeDescription: "init",
      isDisabled: false,
      isDeleted: false,
      configuration: { parameters: { a: 1 } },
      state: {},
      creatorToken: { id: 1001, description: "Master token" },
      currentVersion: { changeDescription: "init", creatorToken: { id: 1001, description: "Master token" } },
    });
    // The create answer has no rows and no rowsSortOrder (storage-api-php-client apiary.apib
    // "Create Configuration"; keboola-sdk-go CreateConfigRequest decodes it into the configuration
    // whose rows it then creates); the detail has both.
    expect(r.body).not.toHaveProperty("rows");
    expect(r.body).not.toHaveProperty("rowsSortOrder");
    expect(r.body.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0000$/);
    expect(r.body.currentVersion.versionIdentifier).toMatch(/^[0-9A-Z]{26}$/);

    const got = await api("GET", `${configs()}/${r.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ ...r.body, rowsSortOrder: [], rows: [] });
    // The plain (non-branch) path reaches the same configuration.
    expect((await api("GET", `/v2/storage/components/keboola.ex-generic-v2/configs/${r.body.id}`)).body.id).toBe(r.body.id);
  });

  it("creates from JSON with an explicit id; a duplicate is 400 configurationAlreadyExists", async () => {
    const body = { name: "Fixed", configurationId: "fixed-1", configuration: { x: "y" }, isDisabled: true };
    const r = await api("POST", configs(), { json: body });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ id: "fixed-1", isDisabled: true, changeDescription: "Configuration created", configuration: { x: "y" } });
    const dup = await api("POST", configs(), { json: body });
    expect(dup.status).toBe(400);
    expect(dup.body.code).toBe("configurationAlreadyExists");
  });

  it("validates the name and the configuration JSON", async () => {
    const noName = await api("POST", configs(), { json: { configuration: {} } });
    expect(noName.status).toBe(400);
    expect(noName.body.code).toBe("storage.components.validation");
    expect(noName.body.error).toContain("name");
    const badJson = await api("POST", configs(), { form: { name: "x", configuration: "{not json" } });
    expect(badJson.status).toBe(400);
    expect(badJson.body).toMatchObject({ code: "validation.invalidConfigurationFormat", error: "Invalid configuration body format: This value should be valid JSON." });
  });

  it("updates with a new version each time", async () => {
    const id = (await api("POST", configs(), { json: { name: "U", configuration: { a: 1 } } })).body.id;
    const u = await api("PUT", `${configs()}/${id}`, { form: { name: "U2", configuration: '{"a":2}', isDisabled: "true" } });
    expect(u.status).toBe(200);
    expect(u.body).toMatchObject({ name: "U2", configuration: { a: 2 }, isDisabled: true, version: 2, changeDescription: "Configuration updated" });
    const u2 = await api("PUT", `${configs()}/${id}`, { json: { description: "d", changeDescription: "why" } });
    expect(u2.body).toMatchObject({ name: "U2", description: "d", version: 3, changeDescription: "why", currentVersion: { changeDescription: "why" } });
    const missing = await api("PUT", `${configs()}/nope`, { json: { name: "x" } });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: "storage.configuration.notFound", error: 'Configuration "nope" not found' });
  });

  it("deletes to trash, lists the trash, restores, and purges on the second delete", async () => {
    const id = (await api("POST", configs(), { json: { name: "T", configurationId: "trash-me" } })).body.id;
    expect((await api("DELETE", `${configs()}/${id}`)).status).toBe(204);
    const gone = await api("GET", `${configs()}/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ code: "storage.configuration.notFound", error: 'Configuration "trash-me" not found' });

    const listed = await api("GET", configs());
    expect(listed.body.map((c: { id: string }) => c.id)).not.toContain(id);
    const trash = await api("GET", `${configs()}?isDeleted=true`);
    const trashed = trash.body.find((c: { id: string }) => c.id === id);
    expect(trashed).toMatchObject({ isDeleted: true, version: 2, changeDescription: "Configuration deleted" });

    const restored = await api("POST", `${configs()}/${id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ isDeleted: false, version: 3, changeDescription: "Configuration restored" });
    expect((await api("POST", `${configs()}/${id}/restore`)).status).toBe(404);

    await api("DELETE", `${configs()}/${id}`);
    expect((await api("DELETE", `${configs()}/${id}`)).status).toBe(204);
    const trashAfter = await api("GET", `${configs()}?isDeleted=true`);
    expect(trashAfter.body.map((c: { id: string }) => c.id)).not.toContain(id);
    expect((await api("DELETE", `${configs()}/${id}`)).status).toBe(404);
  });

  it("re-creating a trashed id replaces it (the version continues, rows are gone)", async () => {
    await api("POST", configs(), { json: { name: "R", configurationId: "recreate" } });
    await api("POST", `${configs()}/recreate/rows`, { json: { name: "row" } });
    await api("DELETE", `${configs()}/recreate`);
    const again = await api("POST", configs(), { json: { name: "R2", configurationId: "recreate" } });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ name: "R2", version: 4, isDeleted: false });
    expect((await api("GET", `${configs()}/recreate`)).body.rows).toEqual([]);
  });

  it("refuses every configuration call of the limited token with 403 accessDenied", async () => {
    const id = (await api("POST", configs(), { json: { name: "P" } })).body.id;
    const calls: Array<[string, string, Parameters<typeof call>[3]]> = [
      ["POST", configs(), { form: { name: "x" } }],
      ["GET", configs(), {}],
      ["GET", `${configs()}/${id}`, {}],
      ["PUT", `${configs()}/${id}`, { form: { name: "x" } }],
      ["DELETE", `${configs()}/${id}`, {}],
      ["POST", `${configs()}/${id}/rows`, { form: { name: "x" } }],
      ["GET", "/v2/storage/components", {}],
    ];
    for (const [method, path, opts] of calls) {
      const r = await api(method, path, { ...opts, token: "limited" });
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body).toMatchObject({ code: "accessDenied", error: "You don't have access to the resource.", status: "error" });
    }
    expect((await api("GET", `${configs()}/${id}`)).body.isDeleted).toBe(false);
  });

  it("lists components with their configurations", async () => {
    await api("POST", configs("keboola.variables"), { json: { name: "V", configurationId: "list-vars" } });
    const r = await api("GET", "/v2/storage/branch/default/components?include=configuration,rows");
    expect(r.status).toBe(200);
    const vars = r.body.find((c: { id: string }) => c.id === "keboola.variables");
    expect(vars.configurations.map((c: { id: string }) => c.id)).toContain("list-vars");
    expect(vars.configurations[0].configuration).toBeDefined();
  });
});

describe("configuration rows", () => {
  it("creates, reads, updates and deletes rows; each change is a configuration version", async () => {
    const id = (await api("POST", configs(), { json: { name: "Rows" } })).body.id;
    const base = `${configs()}/${id}/rows`;
    const r1 = await api("POST", base, { form: { rowId: "r-b", name: "B", configuration: '{"k":1}', isDisabled: "1" } });
    expect(r1.status).toBe(201);
    expect(r1.body).toMatchObject({
      id: "r-b",
      name: "B",
      description: "",
      configuration: { k: 1 },
      state: {},
      isDisabled: true,
      version: 1,
      changeDescription: "Row r-b added",
      creatorToken: { id: 1001 },
    });
    const r2 = await api("POST", base, { json: { name: "A", changeDescription: "second" } });
    expect(r2.body.id).toMatch(/^\d+$/);
    const dup = await api("POST", base, { json: { rowId: "r-b" } });
    expect(dup.status).toBe(400);
    expect(dup.body.code).toBe("configurationRowAlreadyExists");

    let cfg = (await api("GET", `${configs()}/${id}`)).body;
    expect(cfg).toMatchObject({ version: 3, changeDescription: "second", rowsSortOrder: [] });
    expect(cfg.rows.map((r: { id: string }) => r.id)).toEqual([r2.body.id, "r-b"]);

    const up = await api("PUT", `${base}/r-b`, { form: { description: "dd" } });
    expect(up.body).toMatchObject({ description: "dd", version: 2, changeDescription: "Row r-b changed", configuration: { k: 1 } });
    expect((await api("GET", `${base}/r-b`)).body.description).toBe("dd");
    expect((await api("GET", base)).body).toHaveLength(2);

    expect((await api("DELETE", `${base}/r-b`)).status).toBe(204);
    const missing = await api("GET", `${base}/r-b`);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: "notFound", error: "Row r-b not found" });
    cfg = (await api("GET", `${configs()}/${id}`)).body;
    expect(cfg).toMatchObject({ version: 5, changeDescription: "Row r-b deleted" });
    expect(cfg.rows).toHaveLength(1);

    const noConfig = await api("GET", `${configs()}/nope/rows`);
    expect(noConfig.body).toMatchObject({ code: "storage.configuration.notFound", error: 'Configuration "nope" not found' });
  });

  it("lists versions newest first and answers each one as it was, rows included (apiary.apib: Versions list, Version Detail)", async () => {
    const path = `${configs()}/versioned`;
    await api("POST", configs(), { json: { name: "V1", configurationId: "versioned", configuration: { a: 1 }, changeDescription: "first" } });
    await api("POST", `${path}/rows`, { json: { rowId: "r1", configuration: { b: 2 } } });
    await api("PUT", path, { json: { name: "V3", configuration: { a: 3 } } });
    const listed = await api("GET", `${path}/versions`);
    expect(listed.status).toBe(200);
    expect(listed.body.map((v: { version: number }) => v.version)).toEqual([3, 2, 1]);
    expect(listed.body[2]).toEqual({
      version: 1,
      created: expect.stringMatching(/\+0000$/),
      versionIdentifier: expect.stringMatching(/^[0-9A-Z]{26}$/),
      creatorToken: { id: 1001, description: "Master token" },
      changeDescription: "first",
      isDeleted: false,
      name: "V1",
      description: "",
    });
    expect((await api("GET", `${path}/versions?include=configuration&limit=1&offset=1`)).body).toEqual([
      expect.objectContaining({ version: 2, changeDescription: "Row r1 added", configuration: { a: 1 } }),
    ]);
    const v1 = await api("GET", `${path}/versions/1`);
    expect(v1.body).toMatchObject({ version: 1, name: "V1", configuration: { a: 1 }, rowsSortOrder: [], rows: [] });
    const v2 = await api("GET", `${path}/versions/2`);
    expect(v2.body.rows).toEqual([expect.objectContaining({ id: "r1", configuration: { b: 2 } })]);
    expect((await api("GET", `${path}/versions/3`)).body).toMatchObject({ name: "V3", configuration: { a: 3 } });
    const missing = await api("GET", `${path}/versions/9`);
    expect(missing.status).toBe(404);
  });

  it("orders rows by rowsSortOrder (form array), appends new rows, validates the order", async () => {
    const id = (await api("POST", configs(), { json: { name: "Sorted" } })).body.id;
    const base = `${configs()}/${id}/rows`;
    for (const rowId of ["a", "b", "c"]) await api("POST", base, { json: { rowId } });
    const sorted = await api("PUT", `${configs()}/${id}`, { form: { "rowsSortOrder[0]": "c", "rowsSortOrder[1]": "a", "rowsSortOrder[2]": "b" } });
    expect(sorted.status).toBe(200);
    expect(sorted.body.rowsSortOrder).toEqual(["c", "a", "b"]);
    expect(sorted.body.rows.map((r: { id: string }) => r.id)).toEqual(["c", "a", "b"]);

    await api("POST", base, { json: { rowId: "0-new" } });
    const cfg = (await api("GET", `${configs()}/${id}`)).body;
    expect(cfg.rowsSortOrder).toEqual(["c", "a", "b", "0-new"]);

    const unknown = await api("PUT", `${configs()}/${id}`, { json: { rowsSortOrder: ["zzz"] } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe("storage.components.validation");
    const partial = await api("PUT", `${configs()}/${id}`, { json: { rowsSortOrder: ["a"] } });
    expect(partial.status).toBe(400);
    expect(partial.body.code).toBe("validation.invalidRowSortOrder");
  });
});

describe("state file", () => {
  it("keeps configurations across a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kbc-emu-"));
    const stateFile = join(dir, "state.json");
    try {
      const first = await startEmulator({ token: "master", taskDurationMs: 20, stateFile });
      const created = await call(first.url, "POST", configs(), { token: "master", json: { name: "Persisted", configuration: { p: 1 } } });
      expect(created.status).toBe(201);
      await first.close();

      const second = await startEmulator({ token: "master", taskDurationMs: 20, stateFile });
      try {
        const got = await call(second.url, "GET", `${configs()}/${created.body.id}`, { token: "master" });
        expect(got.status).toBe(200);
        expect(got.body).toMatchObject({ name: "Persisted", configuration: { p: 1 } });
        const next = await call(second.url, "POST", configs(), { token: "master", json: { name: "Next" } });
        expect(next.body.id).not.toBe(created.body.id);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
