import type { EmulatorContext, StackShared } from "../core/context";
import { type Random, randomString, seededRandom } from "../core/random";

// Value formats the Storage API uses.

const generators = new WeakMap<StackShared, Random>();

/**
 * The Storage and Queue services' own seeded generator (for exception ids, credentials,
 * signatures), apart from `ctx.random`, so their calls do not shift other services' secrets. One
 * for the stack, not one a project: two projects' credentials or exception ids never repeat.
 */
export function rng(ctx: EmulatorContext): Random {
  let r = generators.get(ctx.stack);
  if (!r) generators.set(ctx.stack, (r = seededRandom(((ctx.options.seed ?? 7) ^ 0x5eed) >>> 0)));
  return r;
}

const pad = (n: number, w = 2): string => String(n).padStart(w, "0");

/** Storage timestamps: `2017-02-14T10:34:45+0000` (numeric offset without colon; the emulator uses UTC). */
export function storageTime(at: number | string | null | undefined): string | null {
  if (at === null || at === undefined) return null;
  const d = new Date(at);
  return Number.isNaN(d.getTime()) ? null : formatUtc(d);
}

/**
 * A timestamp the emulator made itself (a record's `created`, a clock reading), in the Storage
 * format; one it cannot read (a hand-edited state file) is shown as it is stored.
 */
export function storageTimeOf(at: number | string): string {
  return storageTime(at) ?? String(at);
}

function formatUtc(d: Date): string {
  return (
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}` +
    `T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}+0000`
  );
}

/** ISO 8601 with a colon offset, `2024-09-23T11:41:52+00:00` (credentials expiration, queue jobs). */
export function colonTime(at: number | string): string {
  return storageTimeOf(at).replace(/\+0000$/, "+00:00");
}

/** Now, in the Storage format. */
export function nowStorage(ctx: EmulatorContext): string {
  return storageTimeOf(ctx.now());
}

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** A ULID-like version identifier, as `currentVersion.versionIdentifier`. */
export function versionIdentifier(ctx: EmulatorContext): string {
  let time = ctx.now();
  let head = "";
  for (let i = 0; i < 10; i++) {
    head = CROCKFORD[time % 32] + head;
    time = Math.floor(time / 32);
  }
  return head + randomString(rng(ctx), 16, CROCKFORD);
}

/** Parses a boolean parameter as PHP would: "1", "true", true -> true. */
export function truthy(v: unknown): boolean {
  if (typeof v === "boolean") return v;
  if (typeof v === "number") return v !== 0;
  if (typeof v === "string") return v === "1" || v.toLowerCase() === "true";
  return false;
}
