import { z } from "zod";

// Stream object ids, derived exactly as the Stream service does (keboola-as-code
// strhelper.NormalizeName), so the id of a source or sink is known at preview.

export const MAX_ID_LENGTH = 48;
export const MAX_NAME_LENGTH = 40;
export const MAX_DESCRIPTION_LENGTH = 4096;
// keboola/keboola-as-code internal/pkg/service/stream/definition/repository/{source,sink}:
// MaxSourcesPerBranch and MaxSinksPerSource (the create task fails past them).
export const MAX_SOURCES_PER_BRANCH = 100;
export const MAX_SINKS_PER_SOURCE = 100;

/** "My Source" -> "my-source", "HTTPEvents" -> "httpevents", "!!weird||id##" -> "weird-id". */
export function normalizeId(input: string): string {
  return input
    .replace(/([A-Z]+)/g, "-$1")
    .replace(/[^a-zA-Z\u00e1-\u017e\u00c1-\u017d0-9]+/g, "-")
    .normalize("NFD")
    .replace(/\p{Mn}/gu, "")
    .normalize("NFC")
    .replace(/^-+|-+$/g, "")
    .toLowerCase();
}

/** Storage table ids: `in|out.c-<bucket>.<table>`. */
export const TABLE_ID_PATTERN = /^(in|out)\.c-[a-zA-Z0-9_-]+\.[a-zA-Z0-9_-]+$/;

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
  .max(MAX_NAME_LENGTH, `must be at most ${MAX_NAME_LENGTH} characters: shorten it`);

export const descriptionSchema = z
  .string()
  .max(MAX_DESCRIPTION_LENGTH, `must be at most ${MAX_DESCRIPTION_LENGTH} characters: shorten it`)
  .default("");

/** Branch of any resource: `default` or a numeric dev-branch id (kept as a string). */
export const branchSchema = z
  .union([z.string().regex(/^(default|\d+)$/, 'must be "default" or a numeric branch id'), z.number().int().positive()])
  .transform(String)
  .default("default")
  .describe('Branch: "default" or the numeric id of a dev branch.');
