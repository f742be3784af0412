import { z } from "zod";
import { formatDuration, formatSize, parseDuration, parseSize, type Parsed } from "./quantities";
import type { SettingPatch, StreamSetting } from "../api/stream";

// The seven editable Stream settings, shared by SourceSettings and SinkSettings. Inputs are typed
// and validated against the service's ranges; values compare by meaning (`1m` == `1m0s`).
// Durations and sizes are read with the service's own parsers (./quantities), so check refuses
// exactly the spellings the service refuses, quoting its error.

type Kind = "duration" | "size" | "int" | "bool";

interface SettingDef {
  /** Dotted input path, e.g. `targetImportTrigger.interval`. */
  input: string;
  key: string;
  kind: Kind;
  /** Range: nanoseconds (duration), bytes (size) or units (int), in the service's spelling. */
  min?: string | number;
  max?: string | number;
  defaultValue: string | number | boolean;
}

export const SETTINGS: readonly SettingDef[] = [
  { input: "stagingUploadTrigger.interval", key: "storage.level.staging.upload.trigger.interval", kind: "duration", min: "1s", max: "30m", defaultValue: "30s" },
  { input: "stagingUploadTrigger.size", key: "storage.level.staging.upload.trigger.size", kind: "size", min: "100B", max: "50MB", defaultValue: "5MB" },
  { input: "stagingUploadTrigger.count", key: "storage.level.staging.upload.trigger.count", kind: "int", min: 1, max: 10_000_000, defaultValue: 10000 },
  { input: "targetImportTrigger.interval", key: "storage.level.target.import.trigger.interval", kind: "duration", min: "30s", max: "24h", defaultValue: "1m0s" },
  { input: "targetImportTrigger.size", key: "storage.level.target.import.trigger.size", kind: "size", min: "100B", max: "500MB", defaultValue: "50MB" },
  { input: "targetImportTrigger.count", key: "storage.level.target.import.trigger.count", kind: "int", min: 1, max: 10_000_000, defaultValue: 50000 },
  { input: "syncWait", key: "storage.level.local.encoding.sync.wait", kind: "bool", defaultValue: true },
];

const PARSERS: Record<"duration" | "size", { parse: (text: string) => Parsed; format: (v: bigint) => string; example: string }> = {
  duration: { parse: parseDuration, format: formatDuration, example: "45s or 1m30s (units h, m, s, ms; no spaces)" },
  size: { parse: parseSize, format: formatSize, example: "5MB or 100KB (whole numbers; units B, KB, MB, GB)" },
};

/** A range bound of a duration or size setting, as a value. */
function bound(def: SettingDef, which: "min" | "max"): bigint {
  const text = String(def[which]);
  const parsed = PARSERS[def.kind as "duration" | "size"].parse(text);
  if (!parsed.ok) throw new Error(`settings table: bad ${which} ${text} for ${def.input}`);
  return parsed.value;
}

function rangeText(def: SettingDef): string {
  if (def.kind === "duration" || def.kind === "size") {
    const { format } = PARSERS[def.kind];
    return `${format(bound(def, "min"))} .. ${format(bound(def, "max"))}`;
  }
  return `${def.min} .. ${def.max}`;
}

function quantity(def: SettingDef & { kind: "duration" | "size" }) {
  const { parse, example } = PARSERS[def.kind];
  const [min, max] = [bound(def, "min"), bound(def, "max")];
  return z.string().superRefine((text, ctx) => {
    const shown = JSON.stringify(text);
    if (text === "") {
      ctx.addIssue({ code: "custom", message: `is empty: write a ${def.kind} like ${example}, or leave the key out to keep the service default ${def.defaultValue}` });
      return;
    }
    const v = parse(text);
    if (!v.ok) {
      ctx.addIssue({ code: "custom", message: `${shown} is not a ${def.kind} the service accepts (${v.error}): write it like ${example}` });
    } else if (v.value < min || v.value > max) {
      ctx.addIssue({ code: "custom", message: `${shown} is out of range: use a value in ${rangeText(def)} (service default ${def.defaultValue})` });
    }
  });
}

function count(def: SettingDef) {
  const [min, max] = [Number(def.min), Number(def.max)];
  return z
    .number()
    .int(`must be a whole number in ${rangeText(def)}`)
    .min(min, `must be at least ${min} (range ${rangeText(def)})`)
    .max(max, `must be at most ${max} (range ${rangeText(def)})`);
}

const def = (input: string): SettingDef => SETTINGS.find((d) => d.input === input)!;

const trigger = (prefix: string) =>
  z
    .object({
      interval: quantity(def(`${prefix}.interval`) as SettingDef & { kind: "duration" }).optional(),
      size: quantity(def(`${prefix}.size`) as SettingDef & { kind: "size" }).optional(),
      count: count(def(`${prefix}.count`)).optional(),
    })
    .strict();

/** The settings part of SourceSettings and SinkSettings inputs. Only keys set here are managed. */
export const settingsShape = {
  stagingUploadTrigger: trigger("stagingUploadTrigger")
    .optional()
    .describe("Step 1, local disk to staging: whichever of interval (1s..30m), size (100B..50MB), count (1..10M) is met first."),
  targetImportTrigger: trigger("targetImportTrigger")
    .optional()
    .describe("Step 2, staging to the table: interval (30s..24h), size (100B..500MB), count (1..10M)."),
  syncWait: z.boolean().optional().describe("storage.level.local.encoding.sync.wait: write to local disk before acknowledging (default true)."),
};

export type SettingsValues = {
  stagingUploadTrigger?: { interval?: string; size?: string; count?: number };
  targetImportTrigger?: { interval?: string; size?: string; count?: number };
  syncWait?: boolean;
};

function getPath(obj: SettingsValues, path: string): unknown {
  return path.split(".").reduce<unknown>((o, k) => (o && typeof o === "object" ? (o as Record<string, unknown>)[k] : undefined), obj);
}

function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split(".");
  let o = obj;
  for (const k of keys.slice(0, -1)) o = (o[k] ??= {}) as Record<string, unknown>;
  o[keys[keys.length - 1]] = value;
}

/** Definitions of the keys a given input manages. */
export function managedSettings(values: SettingsValues): SettingDef[] {
  return SETTINGS.filter((d) => getPath(values, d.input) !== undefined);
}

/** Canonical comparable form of one value. */
function canonical(d: SettingDef, v: unknown): unknown {
  if ((d.kind === "duration" || d.kind === "size") && typeof v === "string") {
    const parsed = PARSERS[d.kind].parse(v);
    return parsed.ok ? parsed.value : v;
  }
  return v;
}

export function sameSetting(d: SettingDef, a: unknown, b: unknown): boolean {
  return canonical(d, a) === canonical(d, b);
}

/** Input paths whose values differ between two inputs (by value). */
export function changedSettings(olds: SettingsValues, news: SettingsValues): string[] {
  return SETTINGS.filter((d) => !sameSetting(d, getPath(olds, d.input), getPath(news, d.input))).map((d) => d.input);
}

// Resetting writes the default value. The API documents `value: null` as a reset, but the
// service panics on it (configpatch.BindKVs calls Interface() on reflect.ValueOf(nil)) and
// answers 500, and a stored override cannot be removed otherwise: PATCH merges into it.
const resetTo = (d: SettingDef): SettingPatch => ({ key: d.key, value: d.defaultValue });

/** PATCH body: set every managed key; reset the keys managed before but not now. */
export function settingsPatch(news: SettingsValues, olds?: SettingsValues): SettingPatch[] {
  const patch: SettingPatch[] = managedSettings(news).map((d) => ({ key: d.key, value: getPath(news, d.input) }));
  if (olds) {
    for (const d of managedSettings(olds)) if (getPath(news, d.input) === undefined) patch.push(resetTo(d));
  }
  return patch;
}

/** Reset everything `values` manages to the service defaults. */
export function resetPatch(values: SettingsValues): SettingPatch[] {
  return managedSettings(values).map(resetTo);
}

/**
 * Remote settings -> the same shape as the inputs, for the keys the inputs manage. A value
 * equal by meaning keeps the user's spelling, so refresh shows no diff for `1m` vs `1m0s`.
 */
export function settingsFromRemote(remote: StreamSetting[], managed: SettingsValues): SettingsValues {
  const out: Record<string, unknown> = {};
  for (const d of managedSettings(managed)) {
    const r = remote.find((s) => s.key === d.key);
    if (!r) continue;
    const mine = getPath(managed, d.input);
    setPath(out, d.input, sameSetting(d, mine, r.value) ? mine : r.value);
  }
  return out as SettingsValues;
}
