import { z } from "zod";

// Stream object ids and limits are the service's rules (keboola/stream.ts); the input schemas
// below build on them.
export { MAX_DESCRIPTION_LENGTH, MAX_ID_LENGTH, MAX_NAME_LENGTH, MAX_SINKS_PER_SOURCE, MAX_SOURCES_PER_BRANCH, normalizeId, TABLE_ID_PATTERN } from "../../keboola/stream";
import { MAX_DESCRIPTION_LENGTH, MAX_ID_LENGTH, MAX_NAME_LENGTH, normalizeId } from "../../keboola/stream";

/** An optional explicit source/sink id, written as the service would store it. */
export function streamIdSchema(entity: "source" | "sink") {
  return z
    .string()
    .min(1, "must not be empty: omit it to derive the id from name")
    .max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters: shorten it`)
    .refine((id) => normalizeId(id) === id, {
      message: "must be lowercase letters, digits and single dashes (the service would rename it): write it normalized",
    })
    .optional()
    .describe(`${entity === "source" ? "Source" : "Sink"} id; derived from name (kebab-case) when omitted. Changing it replaces the ${entity}.`);
}

export const streamNameSchema = z
  .string()
  .min(1, "must not be empty")
  .max(MAX_NAME_LENGTH, `must be at most ${MAX_NAME_LENGTH} characters: shorten it`)
  .describe(`Name shown in the Keboola UI (1-${MAX_NAME_LENGTH} characters).`);

export const descriptionSchema = z
  .string()
  .max(MAX_DESCRIPTION_LENGTH, `must be at most ${MAX_DESCRIPTION_LENGTH} characters: shorten it`)
  .default("")
  .describe(`Description shown in the Keboola UI (at most ${MAX_DESCRIPTION_LENGTH} characters).`);

const BRANCH_TEXT = 'Branch: "default" or the numeric id of a dev branch (a Branch\'s branchId). Omitted: the stack\'s development branch when stack config keboola:branch names one, else the default branch.';

/** A branch as given: `default` or a numeric dev-branch id (kept as a string). */
export const branchIdSchema = z
  .union([z.string().regex(/^(default|\d+)$/, 'must be "default" or a numeric branch id'), z.number().int().positive()])
  .transform(String);

/** Branch of any resource, "default" when omitted (the resource classes put the stack's keboola:branch first). */
export const branchSchema = branchIdSchema.default("default").describe(BRANCH_TEXT);

/** A branch a manifest entry may omit: omitted is the stack's keboola:branch, else the default branch. */
export const optionalBranchSchema = branchIdSchema.optional().describe(BRANCH_TEXT);

/**
 * A source's or sink's id, derived in this one place: the declared id, else the one state recorded
 * (a rename keeps its id), else the service's derivation from the name (`My Source` -> `my-source`).
 */
export function streamObjectId(declared: string | undefined, name: string, recorded?: unknown): string {
  if (declared) return declared;
  if (typeof recorded === "string" && recorded) return recorded;
  // A name not known yet at preview (another resource's output) gives an id not known yet:
  // normalizeId keeps the preview marker as it is (lowercase hex digits and single dashes).
  return normalizeId(name);
}

/** Ids of Storage configurations, rows and components: what Keboola accepts in them. */
export const STORAGE_ID = /^[A-Za-z0-9._-]+$/;

/** A configuration's or row's id as an input; `empty` says what to do instead of an empty one. */
export function storageIdSchema(empty: string) {
  return z.string().min(1, { error: empty, abort: true }).regex(STORAGE_ID, "must be letters, digits, '.', '_' or '-'");
}
