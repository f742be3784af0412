import { createHash } from "node:crypto";
import type { EmulatorContext } from "../core/context";
import { randomString } from "../core/random";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/**
 * The real service's id normalisation (applied to a given sourceId/sinkId too, not only to a name):
 * every run of upper-case letters is prefixed with "-", every run of other characters than
 * letters (a-z, A-Z, á-ž, Á-Ž) and digits becomes one "-", accents are removed, dashes are trimmed,
 * the result is lower-cased. "My Source" -> "my-source", "!!!!~~~~weird|||id##" -> "weird-id".
 */
export function normalizeName(str: string): string {
  let out = str.replace(/([A-Z]+)/g, "-$1");
  out = out.replace(/[^a-zA-Z\u00e1-\u017e\u00c1-\u017d0-9]+/g, "-");
  out = out.normalize("NFD").replace(/\p{Mn}/gu, "").normalize("NFC");
  out = out.replace(/^-+|-+$/g, "");
  return out.toLowerCase();
}

/** 48 alphanumeric characters, like the real ingestion secrets. */
export function newSourceSecret(ctx: EmulatorContext): string {
  return randomString(ctx.random, 48, ALPHABET);
}

export function randomId(ctx: EmulatorContext, length: number): string {
  return randomString(ctx.random, length, ALPHABET);
}

/** Task id: `<type>/<branchId>/<sourceId>[/<sinkId>]/<createdAt>_<5 random chars>`. */
export function newTaskId(ctx: EmulatorContext, type: string, objectPath: string, createdAt: string): string {
  return `${type}/${objectPath}/${createdAt}_${randomId(ctx, 5)}`;
}

/** A 16 hex character hash of an entity state (the version hash). */
export function stateHash(value: unknown): string {
  return createHash("sha256").update(JSON.stringify(value)).digest("hex").slice(0, 16);
}

/** Time in the service's fixed-length format (milliseconds, UTC, "Z"). */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
