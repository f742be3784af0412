import { z } from "zod";
import type { KeboolaClient } from "../../api/client";
import type { StorageApi } from "../../api/storage";
import { asError, KeboolaApiError } from "../../api/errors";
import type { StorageDevBranch } from "../../../keboola/storage-answers";
import { isRecord } from "../../../keboola/json";
import { checkWith, isUnknown } from "../../validation/check";
import { createOnce } from "../../lifecycle/create-once";
import { defineResource, untracked, type CheckedOf, type InputsOf, type StateOf } from "../../lifecycle/define";
import type { Handler } from "../../lifecycle/call";
import { describeOwner, OWNER_KEY, splitMarker, withMarker } from "../../lifecycle/ownership";
import { tokenInfo } from "../../lifecycle/configurations";
import { forgetBranches, isDeployed } from "../../lifecycle/preflight";
import { PartialFailure } from "../../lifecycle/types";

// A development branch: the Storage API's `/v2/storage/dev-branches` (keboola-sdk-go
// pkg/keboola/storage_branch.go CreateBranchRequest, UpdateBranchRequest, DeleteBranchRequest;
// keboola/storage-api-php-client apiary.apib "Development Branches"). The service chooses its id
// and runs its create and delete as Storage jobs; its name is unique in the project (a second
// create of one answers 400 `devBranch.duplicateName` at once, also while the first create's job
// still runs), and both name and description update in place.
//
// Exactly once: the create carries this resource's owner marker in the branch description, so a
// branch made by a create whose answer was lost, or whose job outlived a crashed `up`, is
// recognised as ours by its name and marker. Once the job is done the marker moves to the
// branch's metadata (`keboola-pulumi.owner`, keboola-sdk-go AppendBranchMetadataRequest) and the
// description becomes the declared one. Deleting a branch deletes everything in it
// (configurations, buckets, tables, files); one already gone is deleted.

export const branch = defineResource({
  type: "Branch",
  description: "A development branch: configurations, storage and jobs isolated from the default (production) branch.",
  inputs: {
    name: z
      .string()
      .trim()
      .min(1, "must not be empty: name the branch (e.g. the pull request, `pr-12`)")
      .max(255, "must be at most 255 characters: shorten it")
      .describe("The branch name, unique in the project; renaming updates the branch in place."),
    description: z.string().default("").describe("Branch description."),
    adoptExisting: untracked(
      z.boolean().default(false).describe("Take over an existing branch of this name instead of refusing it (its description is then brought to the declared one)."),
    ),
  },
  outputs: {
    branchId: z.string().describe('The branch id: pass it as the `branchId` of the resources that live in the branch.'),
  },
});

export const branchInputsSchema = branch.inputs;
export type BranchInputs = InputsOf<typeof branch>;
type Parsed = CheckedOf<typeof branch>;
type State = StateOf<typeof branch>;


const what = (resource: string, name: string) => `Branch "${name}" (resource "${resource}")`;

function stateOf(p: Pick<Parsed, "adoptExisting">, b: StorageDevBranch): State {
  return { name: b.name, description: splitMarker(b.description).text, adoptExisting: p.adoptExisting, branchId: String(b.id) };
}

/** The owner a branch records: its metadata entry, else the marker its create left in the description. */
async function ownerOfBranch(storage: StorageApi, b: StorageDevBranch): Promise<string | undefined> {
  const metadata = await storage.branchMetadata(String(b.id));
  return metadata.find((m) => m.key === OWNER_KEY)?.value ?? splitMarker(b.description).owner;
}

/** The branch of this name, with its owner; undefined when no branch has it. */
async function findByName(storage: StorageApi, name: string): Promise<{ branch: StorageDevBranch; owner: string | undefined } | undefined> {
  const found = (await storage.devBranches()).find((b) => b.name === name);
  return found && { branch: found, owner: found.isDefault ? undefined : await ownerOfBranch(storage, found) };
}

/** Whether a failed create says the name is taken (400 `devBranch.duplicateName`). */
const duplicateName = (err: unknown) => err instanceof KeboolaApiError && /duplicateName$/i.test(err.code ?? "");

/**
 * Why this token cannot create a branch, or undefined when it can: a master token whose user is
 * not read-only (keboola/storage-api-php-client tests/Common/DevBranchesTest.php
 * testNonAdminTokenBehavior, testReadOnlyRoleBranchesPermissions; emulator/storage/branches.ts).
 */
async function createProblem(client: KeboolaClient): Promise<string | undefined> {
  const token = await tokenInfo(client);
  const who = `the token "${token.description}" (id ${token.id})`;
  if (!token.isMasterToken) return `${who} is not a master token, and only a master token creates development branches: use a master token of a project admin (Keboola: Users & Settings > API Tokens)`;
  if (token.admin?.role === "readOnly") return `${who} belongs to a read-only user, who cannot create development branches: use the master token of a user with another role`;
  // A guest creates branches but deletes none (testGuestRoleBranchesPermissions): `pulumi destroy` could not remove it.
  if (token.admin?.role === "guest") return `${who} belongs to a guest, who may create development branches but not delete them, so \`pulumi destroy\` could not remove this one: use the master token of an admin`;
  return undefined;
}

export const handler: Handler<typeof branch> = {
  async check(req) {
    const { olds, news } = req;
    const { value, failures } = checkWith(branch, news);
    if (!value) return { inputs: news, failures };
    const storage = req.client().storage;
    const deployed = isDeployed(olds);
    if (!deployed) {
      const problem = await createProblem(req.client());
      // With failures the engine stops at them: the inputs are not used.
      if (problem) return { inputs: news, failures: [{ property: "name", reason: problem }] };
    }
    // The name is free, ours (an earlier create of this resource), or taken over on purpose. A name
    // not known yet (another resource's output) is looked up when `up` checks again.
    if (!isUnknown(value.name) && (!deployed || olds.name !== value.name)) {
      const found = await findByName(storage, value.name);
      const mine = deployed && found && String(found.branch.id) === String(olds.branchId ?? "");
      if (found && !mine && !(found.owner !== undefined && found.owner === req.call.owner) && !(value.adoptExisting && !found.branch.isDefault)) {
        const whose = found.branch.isDefault ? "is the name of the default (production) branch" : `is taken: branch ${found.branch.id} has it and belongs to ${describeOwner(found.owner)}`;
        return {
          inputs: news,
          failures: [{ property: "name", reason: `branch name "${value.name}" ${whose}: choose another name${found.branch.isDefault ? "" : ", or set adoptExisting: true to take that branch over"}` }],
        };
      }
    }
    return { inputs: { ...news, ...value }, failures };
  },

  async create(req) {
    const { inputs: p } = req;
    const storage = req.client().storage;
    const label = what(req.call.name, p.name);
    const owner = req.call.owner;
    const created = await createOnce<{ branch: StorageDevBranch; owner: string | undefined }>({
      label,
      where: "in the project",
      owner,
      adoptExisting: p.adoptExisting,
      fix: "Choose another name, or set adoptExisting: true to take this branch over.",
      find: async () => {
        const found = await findByName(storage, p.name);
        return found && !found.branch.isDefault ? found : undefined;
      },
      ownerOf: (found) => found.owner,
      create: async () => {
        // The marker rides in the description, so the branch is ours from its first moment.
        const job = await storage.createDevBranch({ name: p.name, description: withMarker(p.description, owner) });
        const done = await storage.waitJob(job, label);
        return { object: { branch: branchOfJob(done.results, label), owner } };
      },
      exists: duplicateName,
      // The name is taken while the create job runs, before the branch can be listed.
      whenExistsUnreadable: "wait",
    });
    forgetBranches(req.client());
    const current = created.object.branch;
    const id = String(current.id);
    try {
      await markAndDescribe(storage, current, created.object.owner, owner, p.description);
    } catch (err) {
      throw new PartialFailure(`${label}: ${asError(err).message}`, id, stateOf(p, current));
    }
    return { id, outs: stateOf(p, { ...current, description: p.description }) };
  },

  async read(req) {
    const { id, recorded } = req;
    const b = await req.client().storage.findDevBranch(id);
    if (!b || b.isDefault) return { id: "" };
    const state = stateOf({ adoptExisting: recorded.adoptExisting ?? false }, b);
    const { branchId: _id, ...inputs } = state;
    return { id: String(b.id), props: state, inputs };
  },

  async update(req) {
    const { id, olds, news: p } = req;
    const storage = req.client().storage;
    const current = await storage.findDevBranch(id);
    if (!current) throw new Error(`${what(req.call.name, olds.name ?? id)} no longer exists: run \`pulumi refresh\` so Pulumi recreates it`);
    const body = {
      ...(current.name !== p.name ? { name: p.name } : {}),
      ...(current.description !== p.description ? { description: p.description } : {}),
    };
    const updated = Object.keys(body).length > 0 ? await storage.updateDevBranch(id, body) : current;
    forgetBranches(req.client());
    return { outs: stateOf(p, updated) };
  },

  async delete(req) {
    const { id, recorded } = req;
    // A branch already gone (deleted by hand, or by the first attempt of this delete) is deleted.
    await req.client().storage.deleteDevBranch(id, what(req.call.name, recorded.name ?? id));
    forgetBranches(req.client());
  },
};

/** The branch a `devBranchCreate` job made (its results), as the SDK maps them. */
function branchOfJob(results: unknown, label: string): StorageDevBranch {
  if (!isRecord(results) || typeof results.id !== "number" || typeof results.name !== "string") throw new Error(`${label}: the branch's create job finished without the branch in its results`);
  const { id, name, description, created, creatorToken: token, isDefault } = results;
  return {
    id,
    name,
    description: typeof description === "string" ? description : "",
    created: typeof created === "string" ? created : "",
    creatorToken: isRecord(token) && typeof token.id === "number" && typeof token.name === "string" ? { id: token.id, name: token.name } : [],
    isDefault: typeof isDefault === "boolean" ? isDefault : false,
  };
}

/**
 * After the create: the owner recorded in the branch's metadata (unless it already is), and the
 * description the declared one (without the marker the create carried).
 */
async function markAndDescribe(storage: StorageApi, b: StorageDevBranch, found: string | undefined, owner: string | undefined, description: string): Promise<void> {
  const id = String(b.id);
  if (owner) {
    const metadata = await storage.branchMetadata(id);
    if (metadata.find((m) => m.key === OWNER_KEY)?.value !== owner) await storage.setBranchMetadata(id, [{ key: OWNER_KEY, value: owner }]);
  } else if (found !== undefined) {
    return; // adopted without an owner of ours to record: leave its marker as it is
  }
  if (b.description !== description) await storage.updateDevBranch(id, { description });
}

export const definition = branch;
