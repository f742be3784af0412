import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator/server";
import { call, pollUntil } from "./helpers";

// Development branches. Expected answers from keboola/storage-api-php-client (apiary.apib
// "Development Branches"; tests/Common/DevBranchesTest.php, BranchComponentTest.php and
// BranchMetadataTest.php at commit f1d929a7) and keboola-sdk-go pkg/keboola/storage_branch_test.go.

let emu: Emulator;
const api = (method: string, path: string, opts: Parameters<typeof call>[3] = {}) => call(emu.url, method, path, { token: "master", ...opts });
const COMPONENT = "keboola.ex-generic-v2";

beforeAll(async () => {
  emu = await startEmulator({ token: "master", limitedToken: "limited", taskDurationMs: 5 });
});
afterAll(() => emu.close());

async function waitJob(job: { id: number }) {
  return (await pollUntil(() => api("GET", `/v2/storage/jobs/${job.id}`), (r) => r.body.status === "success" || r.body.status === "error")).body;
}

async function createBranch(name: string, description?: string) {
  const r = await api("POST", "/v2/storage/dev-branches", { json: { name, ...(description !== undefined ? { description } : {}) } });
  expect(r.status).toBe(202);
  const job = await waitJob(r.body);
  expect(job.status).toBe("success");
  return job.results;
}

describe("development branches", () => {
  it("lists the default branch as Main, without a creator", async () => {
    const r = await api("GET", "/v2/storage/dev-branches");
    expect(r.status).toBe(200);
    expect(r.body).toEqual([{ id: 101, name: "Main", description: "", created: expect.any(String), isDefault: true, creatorToken: [] }]);
  });

  it("creates a branch through a devBranchCreate job whose results are the branch", async () => {
    const r = await api("POST", "/v2/storage/dev-branches", { json: { name: "Feature A", description: "first" } });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({
      status: "waiting",
      operationName: "devBranchCreate",
      operationParams: { queue: "main", values: { name: "Feature A", description: "first" } },
      tableId: null,
      results: null,
    });
    const job = await waitJob(r.body);
    expect(job.results).toEqual({
      id: expect.any(Number),
      name: "Feature A",
      description: "first",
      created: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0000$/),
      isDefault: false,
      creatorToken: { id: 1001, name: "Master token" },
    });
    const detail = await api("GET", `/v2/storage/dev-branches/${job.results.id}`);
    expect(detail.body).toEqual(job.results);
    // Development branches first, in the order they were made, then the default branch: keboola-sdk-go
    // pkg/keboola/storage_branch_test.go (v2.21.0) expectedBranchesAll; with a second one below.
    expect((await api("GET", "/v2/storage/dev-branches")).body.map((b: { name: string }) => b.name)).toEqual(["Feature A", "Main"]);
  });

  it("lists two development branches in the order they were made, the default branch last (keboola-as-code's first branch test: Foo, Bar, Main)", async () => {
    const made = await waitJob((await api("POST", "/v2/storage/dev-branches", { json: { name: "Listing B" } })).body);
    const names = (await api("GET", "/v2/storage/dev-branches")).body.map((b: { name: string }) => b.name);
    expect(names).toEqual(["Feature A", "Listing B", "Main"]);
    await waitJob((await api("DELETE", `/v2/storage/dev-branches/${made.results.id}`)).body);
  });

  it("refuses a name a branch has, also while its create job runs", async () => {
    const dup = await api("POST", "/v2/storage/dev-branches", { json: { name: "Feature A" } });
    expect(dup.status).toBe(400);
    expect(dup.body).toMatchObject({ code: "devBranch.duplicateName", error: 'There already is a branch with name "Feature A"' });
    const first = await api("POST", "/v2/storage/dev-branches", { json: { name: "Racing" } });
    const second = await api("POST", "/v2/storage/dev-branches", { json: { name: "Racing" } });
    expect(first.status).toBe(202);
    expect(second.body.code).toBe("devBranch.duplicateName");
    await waitJob(first.body);
  });

  it("copies the default branch's configurations, rows and metadata into a new branch", async () => {
    const base = `/v2/storage/branch/default/components/${COMPONENT}/configs`;
    await api("POST", base, { json: { name: "Main 1", configurationId: "main-1", configuration: { x: "y" } } });
    await api("POST", `${base}/main-1/rows`, { json: { name: "Main 1 Row 1", rowId: "main-1-row-1" } });
    await api("POST", `${base}/main-1/metadata`, { json: { metadata: [{ key: "KBC.KaC.meta", value: "v" }] } });
    await api("POST", base, { json: { name: "Deleted Main", configurationId: "deleted-main" } });
    await api("DELETE", `${base}/deleted-main`);
    await api("POST", "/v2/storage/branch/default/metadata", { json: { metadata: [{ key: "KBC.projectDescription", value: "desc" }] } });
    const main = (await api("GET", `${base}/main-1`)).body;

    const branch = await createBranch("Copies");
    const inBranch = `/v2/storage/branch/${branch.id}/components/${COMPONENT}/configs`;
    const copy = (await api("GET", `${inBranch}/main-1`)).body;
    // BranchComponentTest testManipulationWithComponentConfigurations.
    expect(copy).toMatchObject({
      id: "main-1",
      name: "Main 1",
      configuration: { x: "y" },
      version: 1,
      changeDescription: 'Copied from default branch configuration "Main 1" (main-1) version 2',
      currentVersion: { changeDescription: 'Copied from default branch configuration "Main 1" (main-1) version 2', versionIdentifier: main.currentVersion.versionIdentifier },
    });
    expect(copy.rows).toHaveLength(1);
    expect(copy.rows[0]).toMatchObject({ id: "main-1-row-1", version: 1, changeDescription: 'Copied from default branch configuration row "Main 1 Row 1" (main-1-row-1) version 1' });
    const versions = (await api("GET", `${inBranch}/main-1/versions`)).body;
    expect(versions.map((v: { version: number; changeDescription: string }) => [v.version, v.changeDescription])).toEqual([
      [1, 'Copied from default branch configuration version "Main 1" (configuration id: main-1) version 2'],
    ]);
    expect((await api("GET", `${inBranch}/deleted-main`)).body).toMatchObject({ code: "storage.configuration.notFound" });
    // ConfigurationMetadataTest testCreateBranchCopyMetadataToTheDevBranch; BranchMetadataTest: new ids.
    const mainMeta = (await api("GET", `${base}/main-1/metadata`)).body;
    const copiedMeta = (await api("GET", `${inBranch}/main-1/metadata`)).body;
    expect(copiedMeta.map((m: { key: string; value: string }) => [m.key, m.value])).toEqual([["KBC.KaC.meta", "v"]]);
    expect(copiedMeta[0].id).not.toBe(mainMeta[0].id);
    const branchMeta = (await api("GET", `/v2/storage/branch/${branch.id}/metadata`)).body;
    expect(branchMeta.map((m: { key: string; value: string }) => [m.key, m.value])).toEqual([["KBC.projectDescription", "desc"]]);

    // What changes in the default branch afterwards stays there.
    await api("POST", base, { json: { name: "Main 2", configurationId: "main-2" } });
    await api("POST", `${base}/main-1/rows`, { json: { name: "Main 1 Row 2", rowId: "main-1-row-2" } });
    expect((await api("GET", `${inBranch}/main-2`)).status).toBe(404);
    expect((await api("GET", `${inBranch}/main-1/rows`)).body.map((r: { id: string }) => r.id)).toEqual(["main-1-row-1"]);
  });

  it("updates the description of the default branch but not its name", async () => {
    const ok = await api("PUT", "/v2/storage/dev-branches/101", { json: { description: "Default branch" } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ id: 101, name: "Main", description: "Default branch", isDefault: true });
    const rename = await api("PUT", "/v2/storage/dev-branches/101", { json: { name: "Not Allowed" } });
    expect(rename.status).toBe(400);
    expect(rename.body.error).toBe("You can not update default branch name.");
    await api("PUT", "/v2/storage/dev-branches/101", { json: { description: "" } });
  });

  it("renames a development branch, refusing a name another branch has", async () => {
    const b = await createBranch("To Rename");
    const r = await api("PUT", `/v2/storage/dev-branches/${b.id}`, { json: { name: "Renamed", description: "d" } });
    expect(r.body).toMatchObject({ id: b.id, name: "Renamed", description: "d", isDefault: false });
    const clash = await api("PUT", `/v2/storage/dev-branches/${b.id}`, { json: { name: "Feature A" } });
    expect(clash.body).toMatchObject({ code: "devBranch.duplicateName", error: 'There already is a branch with name "Feature A"' });
  });

  it("deletes a branch with what is in it through a devBranchDelete job; not the default branch", async () => {
    const main = await api("DELETE", "/v2/storage/dev-branches/101");
    expect(main.status).toBe(400);
    expect(main.body.error).toBe("Cannot delete Main branch");

    const b = await createBranch("Doomed");
    await api("POST", `/v2/storage/branch/${b.id}/buckets`, { json: { name: "only-here", stage: "in" } });
    const r = await api("DELETE", `/v2/storage/dev-branches/${b.id}`);
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ operationName: "devBranchDelete", operationParams: { queue: "main", values: { id: b.id } } });
    expect((await waitJob(r.body)).status).toBe("success");

    expect((await api("GET", `/v2/storage/dev-branches/${b.id}`)).body).toMatchObject({ code: "devBranch.notFound", error: `Branch id:"${b.id}" was not found.` });
    expect((await api("GET", `/v2/storage/branch/${b.id}/buckets`)).status).toBe(404);
    expect(Object.values(emu.state.storage.buckets).some((x) => x.branchId === b.id)).toBe(false);
    expect(Object.values(emu.state.storage.configs).some((x) => x.branchId === b.id)).toBe(false);
    // DevBranchesTest testBranchCreateAndDelete: "cannot delete nonexistent branch".
    const again = await api("DELETE", `/v2/storage/dev-branches/${b.id}`);
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ code: "devBranch.notFound", error: `Branch id:"${b.id}" was not found.` });
    // The name is free again (DevBranchesTest testBranchCreateAndDelete).
    await createBranch("Doomed");
  });

  it("lets any token list and read branches, a master token create them, and an admin delete them", async () => {
    // DevBranchesTest testNonAdminTokenBehavior (a token that is not a master token lists and reads
    // branches, creates and deletes none), testGuestRoleBranchesPermissions and
    // testAdminRoleBranchesPermissions (a guest creates a branch, may not delete the admin's, the
    // admin deletes the guest's), testReadOnlyRoleBranchesPermissions (read-only: neither).
    const as = (token: string) => (method: string, path: string, json?: unknown) => call(emu.url, method, path, { token, json });
    const master = emu.state.tokens[0]!;
    emu.state.tokens.push(
      { ...master, id: "1101", token: "guest", description: "Guest", admin: { id: 11, name: "Guest", role: "guest" } },
      { ...master, id: "1102", token: "read-only", description: "Read only", admin: { id: 12, name: "Reader", role: "readOnly" } },
    );
    const forbidden = { code: "accessDenied", error: "You don't have access to the resource." };
    const adminBranch = await createBranch("Permissions Admin");

    const limited = as("limited");
    const readOnly = as("read-only");
    const guest = as("guest");
    for (const read of [limited, readOnly, guest]) {
      expect((await read("GET", "/v2/storage/dev-branches")).body.map((b: { id: number }) => b.id)).toContain(adminBranch.id);
      expect((await read("GET", `/v2/storage/dev-branches/${adminBranch.id}`)).body).toEqual(adminBranch);
    }
    for (const refuse of [limited, readOnly]) {
      const created = await refuse("POST", "/v2/storage/dev-branches", { name: "Not Allowed" });
      expect([created.status, created.body]).toEqual([403, expect.objectContaining(forbidden)]);
    }
    for (const refuse of [limited, readOnly, guest]) {
      const deleted = await refuse("DELETE", `/v2/storage/dev-branches/${adminBranch.id}`);
      expect([deleted.status, deleted.body]).toEqual([403, expect.objectContaining(forbidden)]);
    }

    const guestCreate = await guest("POST", "/v2/storage/dev-branches", { name: "Permissions Guest" });
    expect(guestCreate.status).toBe(202);
    const guestBranch = (await waitJob(guestCreate.body)).results;
    expect(guestBranch.creatorToken).toEqual({ id: 1101, name: "Guest" });
    for (const id of [adminBranch.id, guestBranch.id]) {
      expect((await waitJob((await api("DELETE", `/v2/storage/dev-branches/${id}`)).body)).status).toBe("success");
    }
  });
});

describe("updates without a change", () => {
  // Configuration: storage-api-php-client tests/Common/ComponentsTest.php testComponentConfigUpdateVersioning.
  // Row: the same file's testComponentConfigRowVersionRollback (the same configuration alone is no
  // version), but testComponentConfigRowUpdate and keboola-sdk-go v2.21.0
  // pkg/keboola/storage_config_test.go TestConfigApiCalls (rows at version 2 after an unchanged
  // name, description, changeDescription and configuration): a row update giving the name is one.
  it("add no version and keep the change description of a configuration; a row's update giving its name is a version", async () => {
    const base = `/v2/storage/components/${COMPONENT}/configs`;
    await api("POST", base, { json: { name: "Same", configurationId: "same", configuration: { a: 1 }, changeDescription: "created by test" } });
    await api("POST", `${base}/same/rows`, { json: { rowId: "r1", name: "Row", configuration: { b: 2 }, changeDescription: "row by test" } });
    const before = (await api("GET", `${base}/same`)).body;
    expect(before.version).toBe(2);

    const put = await api("PUT", `${base}/same`, { json: { name: "Same", configuration: { a: 1 }, changeDescription: "Updated from #KeboolaCLI" } });
    expect(put.body).toMatchObject({ version: 2, changeDescription: "row by test" });
    const sameConfig = await api("PUT", `${base}/same/rows/r1`, { json: { configuration: { b: 2 } } });
    expect(sameConfig.body).toMatchObject({ version: 1, changeDescription: "row by test" });
    expect((await api("GET", `${base}/same/versions`)).body).toHaveLength(2);
    const row = await api("PUT", `${base}/same/rows/r1`, { json: { name: "Row", configuration: { b: 2 }, changeDescription: "Updated from #KeboolaCLI" } });
    expect(row.body).toMatchObject({ version: 2, changeDescription: "Updated from #KeboolaCLI" });
    expect((await api("GET", `${base}/same/versions`)).body).toHaveLength(3);

    const changed = await api("PUT", `${base}/same`, { json: { configuration: { a: 2 }, changeDescription: "real change" } });
    expect(changed.body).toMatchObject({ version: 4, changeDescription: "real change" });
  });
});
