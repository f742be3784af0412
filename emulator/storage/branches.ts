import type { EmulatorContext } from "../core/context";
import type { TokenRecord } from "../core/tokens";
import type { StorageDevBranch } from "../../keboola/storage-answers";
import { authenticated, type StorageApp } from "./auth";
import { readBody, str } from "./body";
import { copyConfigsToBranch, dropBranchConfigs } from "./configurations";
import { StorageHttpError, errors } from "./errors";
import { recordEvent } from "./events";
import { nowStorage } from "./format";
import { JobFailure, createStorageJob, onStorageJob, storageJobJson } from "./jobs";
import { deleteFile } from "./files";
import type { BranchRecord, BucketRecord } from "./state";
import { deleteBucket, deleteTable, listTables } from "./tables";

// Development branches (`/v2/storage/dev-branches`), as keboola/storage-api-php-client apiary.apib
// "Development Branches" documents them and its tests/Common/DevBranchesTest.php asserts them
// (commit f1d929a7; keboola-sdk-go pkg/keboola/storage_branch.go and storage_branch_test.go use
// them the same way):
// - create: `POST {name, description?}` answers 202 with a `devBranchCreate` storage job whose
//   results are the branch; a name a branch already has is refused at once, 400
//   `devBranch.duplicateName` `There already is a branch with name "<name>"` (the SDK's test gets
//   the error from the request, with no job). The new branch gets a copy of every configuration
//   of the default branch (not those in its trash) with its rows and metadata, and of the
//   default branch's metadata (configurations.ts copyConfigsToBranch; DevBranchesTest,
//   BranchComponentTest, BranchMetadataTest, ConfigurationMetadataTest).
// - detail and list: `{id, name, description, created, isDefault, creatorToken}`;
//   `creatorToken` is `{id, name}` of the token that created the branch, `[]` for the default
//   branch. An unknown id answers 404 `Branch id:"<id>" was not found.`.
// - update: `PUT {name?, description?}` answers the branch; the default branch's description can
//   change, its name cannot (400 `You can not update default branch name.`).
// - delete: answers 202 with a `devBranchDelete` job; the branch goes with its configurations,
//   buckets, tables and files (their objects too: SOX/BranchFileStorageTest
//   testDeleteBranchDeleteFiles downloads a deleted branch's file, S3 answers 404), and with the
//   default branch's buckets that carry the system metadata `KBC.createdBy.branch.id` of the
//   branch (the buckets jobs of the branch wrote in projects without branched storage; tests/Common/
//   BranchBucketsTest.php testDropAllDevBucketsWhenDropBranch: other buckets, and tables or columns
//   with that metadata, stay). The default branch cannot be deleted (400 `Cannot delete Main
//   branch`); an id that is not a branch (one deleted before) answers 404 `Branch id:"<id>" was not
//   found.` (DevBranchesTest testBranchCreateAndDelete).
// - who may: any token lists and reads branches (DevBranchesTest testNonAdminTokenBehavior: a
//   token that is not a master token lists and reads them, and may neither create nor delete one);
//   a master token creates branches unless its user's role is `readOnly` (a `guest` may:
//   testGuestRoleBranchesPermissions, testReadOnlyRoleBranchesPermissions) and deletes them
//   unless the role is `readOnly` or `guest` (a guest may not delete the admin's branch). Refusals
//   are 403 `You don't have access to the resource.`.
// Not in the public sources, so chosen here: the error codes of the default-branch refusals and
// of a missing name, that a create whose job has not finished yet holds its name, that a guest
// deletes no branch (the tests show it refused on another user's branch only), that updating a
// branch needs what creating one does, and that the tests' read access holds for every token (they
// read with one that may manage buckets).

/** The default branch's record, made when the state has none (state files of older emulators). */
export function ensureDefaultBranch(ctx: EmulatorContext): BranchRecord {
  const id = ctx.state.project.defaultBranchId;
  const branches = ctx.state.storage.branches;
  return (branches[String(id)] ??= { id, name: "Main", description: "", created: "2024-01-01T00:00:00+0000", isDefault: true, creatorToken: null, metadata: [] });
}

export function findBranch(ctx: EmulatorContext, id: number): BranchRecord | undefined {
  return ctx.state.storage.branches[String(id)];
}

export function branchJson(b: BranchRecord): StorageDevBranch {
  return { id: b.id, name: b.name, description: b.description, created: b.created, isDefault: b.isDefault, creatorToken: b.creatorToken ?? [] };
}

/** The default branch as the API answers it. */
export function defaultBranch(ctx: EmulatorContext): StorageDevBranch {
  return branchJson(ensureDefaultBranch(ctx));
}

/** The role of a master token's user (`admin` when the emulator's token names none). */
const roleOf = (token: TokenRecord): string => token.admin?.role ?? "admin";

/** Creating (and updating) a branch: a master token of a user who is not read-only. */
function requireBranchWrite(token: TokenRecord): void {
  if (!token.isMasterToken || roleOf(token) === "readOnly") throw errors.accessDenied();
}

/** Deleting a branch: a master token of a user who is neither read-only nor a guest. */
function requireBranchDelete(token: TokenRecord): void {
  requireBranchWrite(token);
  if (roleOf(token) === "guest") throw errors.accessDenied();
}

const duplicateName = (name: string): StorageHttpError =>
  new StorageHttpError(400, "devBranch.duplicateName", `There already is a branch with name "${name}"`);

/** Whether a branch, or a branch whose create job has not finished, has this name (other than `except`). */
function nameTaken(ctx: EmulatorContext, name: string, except?: number): boolean {
  if (Object.values(ctx.state.storage.branches).some((b) => b.name === name && b.id !== except)) return true;
  return Object.values(ctx.state.storage.jobs).some(
    (j) => j.operationName === "devBranchCreate" && (j.status === "waiting" || j.status === "processing") && j.work.name === name,
  );
}

/** The system metadata a job of a development branch leaves on the buckets it writes (BranchBucketsTest). */
export const CREATED_BY_BRANCH_KEY = "KBC.createdBy.branch.id";

/** A default-branch bucket that jobs of the branch wrote (its system metadata names the branch). */
const writtenForBranch = (b: BucketRecord, branchId: number): boolean =>
  (b.metadata ?? []).some((m) => m.provider === "system" && m.key === CREATED_BY_BRANCH_KEY && m.value === String(branchId));

/** What a branch's delete removes besides the branch: its configurations, storage and files. */
function dropBranchContent(ctx: EmulatorContext, branchId: number): void {
  dropBranchConfigs(ctx, branchId);
  const s = ctx.state.storage;
  const main = ctx.state.project.defaultBranchId;
  for (const b of Object.values(s.buckets)) {
    if (b.branchId !== branchId && !(b.branchId === main && writtenForBranch(b, branchId))) continue;
    for (const t of listTables(ctx, b.branchId, b.id)) deleteTable(ctx, b.branchId, t.id);
    deleteBucket(ctx, b.branchId, b.id);
  }
  for (const f of Object.values(s.files)) if (f.branchId === branchId) deleteFile(ctx, f);
}

export function registerBranchRoutes(api: StorageApp, ctx: EmulatorContext): void {
  const auth = authenticated(ctx);
  ensureDefaultBranch(ctx);

  onStorageJob(ctx, "devBranchCreate", (job) => {
    const name = String(job.work.name);
    const token = ctx.state.tokens.find((t) => t.id === job.creatorToken.id);
    const branch: BranchRecord = {
      id: ctx.nextId("storage.branchId", ctx.state.project.defaultBranchId + 1),
      name,
      description: String(job.work.description ?? ""),
      created: nowStorage(ctx),
      isDefault: false,
      creatorToken: { id: Number(job.creatorToken.id), name: job.creatorToken.description },
      metadata: [],
    };
    const main = ensureDefaultBranch(ctx);
    // Copied entries get new ids and timestamps (BranchMetadataTest testCreateBranchMetadataCopyToBranch).
    branch.metadata = main.metadata.map((m) => ({ ...m, id: String(ctx.nextId("storage.metadata", 19501)), timestamp: nowStorage(ctx) }));
    ctx.state.storage.branches[String(branch.id)] = branch;
    copyConfigsToBranch(ctx, main.id, branch.id, token);
    recordEvent(ctx, { event: "storage.devBranchCreated", message: `Development branch "${name}" created`, objectId: String(branch.id), objectName: name, objectType: "devBranch", token: job.creatorToken, branchId: main.id });
    return { ...branchJson(branch) };
  });

  onStorageJob(ctx, "devBranchDelete", (job) => {
    const id = Number(job.work.id);
    const branch = findBranch(ctx, id);
    if (!branch) throw new JobFailure("devBranch.notFound", `Branch id:"${id}" was not found.`);
    delete ctx.state.storage.branches[String(id)];
    dropBranchContent(ctx, id);
    recordEvent(ctx, { event: "storage.devBranchDeleted", message: `Development branch "${branch.name}" deleted`, objectId: String(id), objectName: branch.name, objectType: "devBranch", token: job.creatorToken, branchId: ctx.state.project.defaultBranchId });
    return null;
  });

  // The development branches in the order they were created, then the default branch: keboola-sdk-go
  // pkg/keboola/storage_branch_test.go (v2.21.0) expectedBranchesAll lists "Foo modified" before
  // "Main", and keboola-as-code's first branch test (src/remote, TestBranchApiCalls,
  // expectedBranchesAll) lists Foo, then Bar made after it, then Main: neither the id alone (Main
  // has the lowest) nor newest first.
  api.get("/dev-branches", auth, (c) => {
    ensureDefaultBranch(ctx);
    const order = (b: { id: number; isDefault: boolean }) => (b.isDefault ? Number.MAX_SAFE_INTEGER : b.id);
    return c.json(Object.values(ctx.state.storage.branches).sort((a, b) => order(a) - order(b)).map(branchJson));
  });

  api.get("/dev-branches/:id", auth, (c) => {
    const id = c.req.param("id");
    const branch = id === "default" ? ensureDefaultBranch(ctx) : findBranch(ctx, Number(id));
    if (!branch || (id !== "default" && !/^\d+$/.test(id))) throw errors.branchNotFound(id);
    return c.json(branchJson(branch));
  });

  api.post("/dev-branches", auth, async (c) => {
    const { token } = c.var;
    requireBranchWrite(token);
    const { body } = await readBody(c);
    const name = str(body.name);
    if (!name) throw new StorageHttpError(400, "storage.devBranches.validation", "Invalid parameters - name: This value should not be blank.");
    const description = str(body.description) ?? "";
    if (nameTaken(ctx, name)) throw duplicateName(name);
    const values = { name, ...(body.description !== undefined ? { description } : {}) };
    const job = createStorageJob(ctx, token, ctx.state.project.defaultBranchId, "devBranchCreate", { queue: "main", values }, null, { name, description });
    return c.json(storageJobJson(ctx, job), 202);
  });

  api.put("/dev-branches/:id", auth, async (c) => {
    const { token } = c.var;
    requireBranchWrite(token);
    const id = c.req.param("id");
    const branch = id === "default" ? ensureDefaultBranch(ctx) : findBranch(ctx, Number(id));
    if (!branch) throw errors.branchNotFound(id);
    const { body } = await readBody(c);
    const name = str(body.name);
    const description = str(body.description);
    if (name !== undefined && name !== branch.name) {
      if (branch.isDefault) throw new StorageHttpError(400, "devBranch.cannotRenameDefault", "You can not update default branch name.");
      if (!name) throw new StorageHttpError(400, "storage.devBranches.validation", "Invalid parameters - name: This value should not be blank.");
      if (nameTaken(ctx, name, branch.id)) throw duplicateName(name);
    }
    const before = branch.name;
    if (name) branch.name = name;
    if (description !== undefined) branch.description = description;
    recordEvent(ctx, {
      event: "storage.devBranchUpdated",
      message: `Development branch "${before}" updated`,
      objectId: String(branch.id),
      objectName: before,
      objectType: "devBranch",
      params: { devBranchName: branch.name, devBranchDescription: branch.description },
      token: { id: token.id, description: token.description },
      branchId: branch.id,
    });
    return c.json(branchJson(branch));
  });

  api.delete("/dev-branches/:id", auth, (c) => {
    const { token } = c.var;
    requireBranchDelete(token);
    const id = c.req.param("id");
    const branch = id === "default" ? ensureDefaultBranch(ctx) : findBranch(ctx, Number(id));
    if (!branch) throw errors.branchNotFound(id);
    if (branch.isDefault) throw new StorageHttpError(400, "devBranch.cannotDeleteDefault", "Cannot delete Main branch");
    const job = createStorageJob(ctx, token, ctx.state.project.defaultBranchId, "devBranchDelete", { queue: "main", values: { id: branch.id } }, null, { id: branch.id });
    return c.json(storageJobJson(ctx, job), 202);
  });
}
