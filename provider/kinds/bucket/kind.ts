import { z } from "zod";
import type * as dynamic from "@pulumi/pulumi/dynamic";
import type { StorageApi, StorageBucket, StorageTable } from "../../api/storage";
import { asError, KeboolaApiError, KeboolaTaskError } from "../../api/errors";
import { checkWith, isUnknown, knownFields } from "../../validation/check";
import { branchSchema } from "../../validation/ids";
import { bucketDisplayNameSchema, bucketIdOf, bucketNameSchema, stageSchema } from "../../validation/storage";
import { createOnce } from "../../lifecycle/create-once";
import { defineResource, markerDiff, replaces, unique, untracked, type CheckedOf, type InputsOf, type StateOf } from "../../lifecycle/define";
import type { CallContext, CheckResponse, Handler } from "../../lifecycle/call";
import { branchFailure, isDeployed, isNew } from "../../lifecycle/preflight";
import { describeOwner, foundWithOwner, metadataValue, METADATA_PROVIDER, OWNER_KEY, stackOf } from "../../lifecycle/ownership";
import { PartialFailure, type Props } from "../../lifecycle/types";

// A Storage bucket: stage and name make its id (`in.c-<name>`, as the service derives it), so a
// new stage or name replaces it; description and display name update in place. Its owner marker
// is a metadata entry of keboola-pulumi's. Deleting it refuses while it holds tables this stack
// does not manage, unless `forceDelete` says to drop them too.

export const bucket = defineResource({
  type: "Bucket",
  description: "A Storage bucket holding tables.",
  inputs: {
    branchId: replaces(branchSchema),
    stage: replaces(stageSchema.default("in")),
    name: replaces(bucketNameSchema.describe('The bucket name without the "c-" prefix the service adds: "ref" makes "in.c-ref".')),
    description: z.string().max(4096, "must be at most 4096 characters: shorten it").default("").describe("Bucket description."),
    // The service keeps display names unique within a branch and stage (emulator/storage/buckets.ts):
    // a bucket renamed with its display name kept is replaced by deleting the old one first.
    displayName: unique(bucketDisplayNameSchema.optional().describe("Name shown in the UI (default: the name)."), { within: ["branchId", "stage"], orElse: "name", what: "display name" }),
    forceDelete: untracked(
      z.boolean().default(false).describe("On delete, also drop the tables this stack does not manage (otherwise the delete is refused with their list)."),
    ),
    adoptExisting: untracked(z.boolean().default(false).describe("Take over an existing bucket with the same id instead of refusing it.")),
  },
  outputs: {
    bucketId: z.string().describe('The bucket id, e.g. "in.c-ref".'),
  },
});

export const bucketInputsSchema = bucket.inputs;
export type BucketInputs = InputsOf<typeof bucket>;
type Parsed = CheckedOf<typeof bucket>;
type State = StateOf<typeof bucket>;


const what = (name: string, id: string) => `Bucket "${id}" (resource "${name}")`;

/** The declaration a bucket of the service amounts to (read, drift, export). */
export function bucketFromRemote(b: StorageBucket) {
  // Stryker disable next-line Regex: equivalent: the service names every bucket "c-<name>", so the first "c-" is the prefix
  const name = b.name.replace(/^c-/, "");
  return {
    stage: b.stage === "out" ? ("out" as const) : ("in" as const),
    name,
    description: descriptionOf(b),
    ...(b.displayName && b.displayName !== name && b.displayName !== b.name ? { displayName: b.displayName } : {}),
  };
}

function stateOf(p: Pick<Parsed, "branchId" | "forceDelete" | "adoptExisting" | "displayName">, b: StorageBucket): State {
  const remote = bucketFromRemote(b);
  return {
    branchId: p.branchId,
    ...remote,
    // A display name declared equal to the name is kept as declared (the service shows the name anyway).
    // (A display name of its own on the bucket is the remote one, above: equal to the declared one, or drift.)
    ...(p.displayName !== undefined && (b.displayName === p.displayName || !b.displayName) ? { displayName: p.displayName } : {}),
    forceDelete: p.forceDelete,
    adoptExisting: p.adoptExisting,
    bucketId: b.id,
  };
}

// A bucket's description after its create lives in metadata (provider "user", key KBC.description),
// as Keboola's UI keeps it; the bucket's own `description` field is the one given at create.
const DESCRIPTION_KEY = "KBC.description";
const descriptionOf = (b: StorageBucket): string => b.metadata?.find((m) => m.provider === "user" && m.key === DESCRIPTION_KEY)?.value ?? b.description ?? "";

/** Whether a failed create says the bucket exists (400 `storage.buckets.alreadyExists`). */
const exists = (err: unknown) => err instanceof KeboolaApiError && /alreadyExists$/i.test(err.code ?? "");

/**
 * The owner of a bucket: its marker, else (an unmarked bucket) ours only when it is what our own
 * create makes before the marker is written: empty, with the declared description.
 */
async function ownerOfBucket(storage: StorageApi, p: Pick<Parsed, "branchId" | "description">, b: StorageBucket, owner: string | undefined): Promise<string | undefined> {
  const marked = metadataValue(b.metadata, OWNER_KEY);
  if (marked) return marked;
  if (descriptionOf(b) !== p.description) return undefined;
  const tables = await storage.listBucketTables(p.branchId, b.id);
  return tables && tables.length === 0 ? owner : undefined;
}

export const handler: Handler<typeof bucket> = {
  async check(req): Promise<CheckResponse> {
    const { olds, news } = req;
    const { value, failures } = checkWith(bucket, news);
    if (!value) return { inputs: news, failures };
    // A replacement (new stage, name or branch) deletes the old bucket: what it holds must be this
    // stack's tables (replaced with it), or given up with forceDelete, or the delete fails at `up`
    // after the new bucket was made.
    if (failures.length === 0 && isDeployed(olds)) {
      const replacing = markerDiff(bucket, bucket.parseState(olds), news, req.call.facts);
      if (replacing.replaces?.length) {
        const refusal = await replacementFailure(req, olds, replacing.replaces, replacing.deleteBeforeReplace === true);
        if (refusal) failures.push(refusal);
      }
    }
    // Against the stack: the branch exists; a new bucket's id (from its stage and name) is free or ours.
    const slot = knownFields(value, ["branchId", "stage", "name", "adoptExisting", "description"]);
    if (failures.length === 0 && !isUnknown(value.branchId) && isNew(olds, { branchId: value.branchId, stage: value.stage, name: value.name })) {
      const branch = await branchFailure(req, value.branchId);
      if (branch) failures.push(branch);
      else if (slot && !slot.adoptExisting) {
        const id = bucketIdOf(slot.stage, slot.name);
        // The same rule the create applies to what it finds (ownerOfBucket), so a bucket the create
        // would refuse is refused here, before anything is written.
        const storage = req.client().storage;
        const found = await storage.findBucket(slot.branchId, id);
        const owner = found ? await ownerOfBucket(storage, slot, found, req.call.owner) : undefined;
        if (found && (owner === undefined || owner !== req.call.owner)) {
          failures.push({
            property: "name",
            reason: `bucket "${id}" already exists and belongs to ${describeOwner(owner)}: choose another name, or set adoptExisting: true to take it over`,
          });
        }
      }
    }
    return { inputs: { ...news, ...value }, failures };
  },

  async create(req) {
    const { inputs: p } = req;
    const storage = req.client().storage;
    const id = bucketIdOf(p.stage, p.name);
    const label = what(req.call.name, id);
    const owner = req.call.owner;
    let marked = false;
    const created = await createOnce<StorageBucket>({
      label,
      where: `in branch ${p.branchId}`,
      owner,
      adoptExisting: p.adoptExisting,
      fix: "Choose another name (or stage), or set adoptExisting: true to take this bucket over (it is then brought to the declared state).",
      find: async () => {
        const b = await storage.findBucket(p.branchId, id);
        if (!b) return undefined;
        const seen = foundWithOwner(b, await ownerOfBucket(storage, p, b, owner), owner);
        marked = seen.marked;
        return seen.object;
      },
      ownerOf: (b) => metadataValue(b.metadata, OWNER_KEY),
      create: async () => ({
        object: await storage.createBucket(p.branchId, { name: p.name, stage: p.stage, description: p.description, ...(p.displayName ? { displayName: p.displayName } : {}) }),
      }),
      exists,
      whenExistsUnreadable: "fail",
    });
    let current = created.object;
    try {
      if (!marked && owner) await storage.setBucketMetadata(p.branchId, current.id, METADATA_PROVIDER, [{ key: OWNER_KEY, value: owner }]);
      if (created.existed) current = await converge(storage, p, current);
    } catch (err) {
      throw new PartialFailure(`${label}: ${asError(err).message}`, current.id, stateOf(p, current));
    }
    return { id: current.id, outs: stateOf(p, current) };
  },

  async read(req) {
    const { id, recorded } = req;
    const storage = req.client().storage;
    const branchId = recorded.branchId ?? "default";
    const b = await storage.findBucket(branchId, recorded.bucketId ?? id);
    if (!b) return { id: "" };
    const state = stateOf({ branchId, forceDelete: recorded.forceDelete ?? false, adoptExisting: recorded.adoptExisting ?? false, displayName: recorded.displayName }, b);
    const { bucketId: _b, ...inputs } = state;
    return { id: b.id, props: state, inputs };
  },

  async update(req) {
    const { id, news: p } = req;
    const storage = req.client().storage;
    const current = await storage.findBucket(p.branchId, id);
    if (!current) throw new Error(`${what(req.call.name, id)} no longer exists: run \`pulumi refresh\` so Pulumi recreates it`);
    return { outs: stateOf(p, await converge(storage, p, current)) };
  },

  async delete(req) {
    const { id, recorded } = req;
    const storage = req.client().storage;
    const branchId = recorded.branchId ?? "default";
    const bucketId = recorded.bucketId ?? id;
    const label = what(req.call.name, bucketId);
    const tables = await storage.listBucketTables(branchId, bucketId);
    if (tables === undefined) return; // gone already
    const foreign = (await foreignTables(req, branchId, bucketId)) ?? [];
    if (foreign.length > 0 && !recorded.forceDelete) {
      throw new Error(
        `${label} still holds ${foreign.length} table(s) this stack does not manage: ${foreign.map((t) => t.id).join(", ")}. ` +
          "Nothing was deleted. Move or drop them first, or set forceDelete: true on the bucket (run `pulumi up` to record it) to drop them with it.",
      );
    }
    try {
      await storage.deleteBucket(branchId, bucketId, tables.length > 0, label);
    } catch (err) {
      // Dropped meanwhile (by the job's first attempt, or by hand): deleted is deleted.
      if (err instanceof KeboolaTaskError && /not found/i.test(err.taskMessage)) return;
      throw err;
    }
  },
};

/** The tables of a bucket that this stack does not manage (no owner marker of this stack). */
async function foreignTables(ctx: CallContext, branchId: string, bucketId: string): Promise<StorageTable[] | undefined> {
  const tables = await ctx.client().storage.listBucketTables(branchId, bucketId);
  if (tables === undefined) return undefined;
  const stack = stackOf(ctx.call.owner);
  return tables.filter((t) => {
    const owner = metadataValue(t.metadata, OWNER_KEY);
    return !stack || !owner?.startsWith(stack);
  });
}

/**
 * A replacement deletes the old bucket (first, when it keeps the display name the service keeps
 * unique): refused at preview when the old bucket holds tables this stack does not manage and its
 * recorded forceDelete does not give them up, since its delete reads the recorded value.
 */
async function replacementFailure(ctx: CallContext, olds: Props, replaces: readonly string[], deleteFirst: boolean): Promise<dynamic.CheckFailure | undefined> {
  // The old bucket, from its old inputs (what the engine passes check).
  const branchId = typeof olds.branchId === "string" ? olds.branchId : "default";
  const bucketId = typeof olds.name === "string" ? bucketIdOf(olds.stage === "out" ? "out" : "in", olds.name) : undefined;
  if (!bucketId || olds.forceDelete === true) return undefined;
  const foreign = await foreignTables(ctx, branchId, bucketId);
  if (!foreign?.length) return undefined;
  const how = deleteFirst
    ? `and it keeps the display name, which the service keeps unique in the stage, so bucket "${bucketId}" is deleted before the new one is created`
    : `and bucket "${bucketId}" is deleted once the new one exists`;
  return {
    property: replaces[0],
    reason:
      `changing ${replaces.join(", ")} replaces the bucket, ${how}; it holds ${foreign.length} table(s) this stack does not manage (${foreign.map((t) => t.id).join(", ")}). ` +
      "Move or drop them first, or set forceDelete: true and run `pulumi up` before this change (the old bucket's delete reads its recorded forceDelete)",
  };
}

/** Brings an existing bucket's description and display name to the declared ones. */
async function converge(storage: StorageApi, p: Parsed, current: StorageBucket): Promise<StorageBucket> {
  let changed = false;
  if (descriptionOf(current) !== p.description) {
    await storage.setBucketMetadata(p.branchId, current.id, "user", [{ key: DESCRIPTION_KEY, value: p.description }]);
    changed = true;
  }
  // Stryker disable next-line Regex: equivalent, as in bucketFromRemote
  const wantDisplay = p.displayName ?? current.name.replace(/^c-/, "");
  if (current.displayName !== wantDisplay && !(p.displayName === undefined && current.displayName === current.name)) {
    await storage.updateBucket(p.branchId, current.id, { displayName: wantDisplay });
    changed = true;
  }
  return changed ? ((await storage.findBucket(p.branchId, current.id)) ?? current) : current;
}

export const definition = bucket;
