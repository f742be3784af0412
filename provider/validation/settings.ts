import { z } from "zod";
import { formatDuration, formatSize, parseDuration, parseSize, type Parsed } from "../../keboola/quantities";
import type { SettingPatch, StreamSetting } from "../../keboola/stream";
import { EDITABLE_SETTINGS, rangeOf, type EditableSetting } from "../../keboola/settings";
import { isRecord } from "../../keboola/json";

export { EDITABLE_SETTINGS, rangeOf, type EditableSetting } from "../../keboola/settings";

// The seven editable Stream settings, shared by SourceSettings and SinkSettings. Inputs are typed
// and validated against the service's ranges; values compare by meaning (`1m` == `1m0s`).
// Durations and sizes are read with the service's own parsers (./quantities), so check refuses
// exactly the spellings the service refuses, quoting its error.

interface SettingFacts {
  /** Dotted input path, e.g. `targetImportTrigger.interval`. */
  input: string;
  key: string;
  /** Range: nanoseconds (duration), bytes (size) or units (int), in the service's spelling. */
  min?: string | number;
  max?: string | number;
  defaultValue: string | number | boolean;
}

/** A duration or a size: read and compared with the service's parsers. */
type QuantityDef = SettingFacts & { kind: "duration" | "size" };
type SettingDef = QuantityDef | (SettingFacts & { kind: "int" | "bool" });

/** An input path of ours for a key of the service's record. */
function editable(input: string, key: EditableSetting["key"]): SettingDef {
  const fact = EDITABLE_SETTINGS.find((e) => e.key === key)!;
  const { min, max } = rangeOf("validation" in fact ? fact.validation : undefined);
  // A count's bounds as numbers (a count always has both; a flag has none).
  const num = (v: string | undefined) => (fact.kind === "int" ? Number(v) : v);
  return { input, key, kind: fact.kind, min: num(min), max: num(max), defaultValue: fact.default };
}

export const SETTINGS: readonly SettingDef[] = [
  editable("stagingUploadTrigger.interval", "storage.level.staging.upload.trigger.interval"),
  editable("stagingUploadTrigger.size", "storage.level.staging.upload.trigger.size"),
  editable("stagingUploadTrigger.count", "storage.level.staging.upload.trigger.count"),
  editable("targetImportTrigger.interval", "storage.level.target.import.trigger.interval"),
  editable("targetImportTrigger.size", "storage.level.target.import.trigger.size"),
  editable("targetImportTrigger.count", "storage.level.target.import.trigger.count"),
  editable("syncWait", "storage.level.local.encoding.sync.wait"),
];

const PARSERS: Record<"duration" | "size", { parse: (text: string) => Parsed; format: (v: bigint) => string; example: string }> = {
  duration: { parse: parseDuration, format: formatDuration, example: "45s or 1m30s (units h, m, s, ms; no spaces)" },
  size: { parse: parseSize, format: formatSize, example: "5MB or 100KB (whole numbers; units B, KB, MB, GB)" },
};

/** A range bound of a duration or size setting, as a value. */
function bound(def: QuantityDef, which: "min" | "max"): bigint {
  const text = String(def[which]);
  const parsed = PARSERS[def.kind].parse(text);
  // Stryker disable next-line StringLiteral: unreachable: the table's bounds are the service's, each parsed by a test
  if (!parsed.ok) throw new Error(`settings table: bad ${which} ${text} for ${def.input}`);
  return parsed.value;
}

function rangeText(def: SettingDef): string {
  // Stryker disable next-line ConditionalExpression: equivalent for sizes: each size bound is written as the service formats it (100B, 50MB, 500MB)
  if (def.kind === "duration" || def.kind === "size") {
    const { format } = PARSERS[def.kind];
    return `${format(bound(def, "min"))} .. ${format(bound(def, "max"))}`;
  }
  return `${def.min} .. ${def.max}`;
}

function quantity(def: QuantityDef) {
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

function quantityDef(input: string): QuantityDef {
  const d = def(input);
  // Stryker disable next-line StringLiteral: unreachable: the inputs asked for are the table's durations and sizes
  if (d.kind !== "duration" && d.kind !== "size") throw new Error(`settings table: ${input} is a ${d.kind}, not a duration or size`);
  return d;
}

/** `interval (1s..30m), size (100B..50MB), count (1..10M)` for a trigger's three keys. */
const ranges = (prefix: string) =>
  (["interval", "size", "count"] as const)
    .map((k) => {
      const d = def(`${prefix}.${k}`);
      const short = (v: string | number | undefined) => (typeof v === "number" && v % 1_000_000 === 0 ? `${v / 1_000_000}M` : String(v));
      return `${k} (${short(d.min)}..${short(d.max)})`;
    })
    .join(", ");

const trigger = (prefix: string) =>
  z
    .object({
      interval: quantity(quantityDef(`${prefix}.interval`)).optional().describe('Time since the first record, e.g. "30s".'),
      size: quantity(quantityDef(`${prefix}.size`)).optional().describe('Size of the records, e.g. "5MB".'),
      count: count(def(`${prefix}.count`)).optional().describe("Number of records."),
    })
    .strict();

/** The settings part of SourceSettings and SinkSettings inputs. Only keys set here are managed. */
export const settingsShape = {
  stagingUploadTrigger: trigger("stagingUploadTrigger")
    .optional()
    .describe(`Step 1, local disk to staging: whichever of ${ranges("stagingUploadTrigger")} is met first.`),
  targetImportTrigger: trigger("targetImportTrigger").optional().describe(`Step 2, staging to the table: ${ranges("targetImportTrigger")}.`),
  syncWait: z.boolean().optional().describe("storage.level.local.encoding.sync.wait: write to local disk before acknowledging (default true)."),
};

export type SettingsValues = {
  stagingUploadTrigger?: { interval?: string; size?: string; count?: number };
  targetImportTrigger?: { interval?: string; size?: string; count?: number };
  syncWait?: boolean;
};

/** The value at a dotted input path, of settings values or of raw inputs as the engine passes them. */
function getPath(obj: SettingsValues | Record<string, unknown>, path: string): unknown {
  return path.split(".").reduce<unknown>((o, k) => (isRecord(o) ? o[k] : undefined), obj);
}

function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split(".");
  let o = obj;
  for (const k of keys.slice(0, -1)) {
    const next = o[k];
    if (isRecord(next)) o = next;
    else o = o[k] = {};
  }
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

/** Input paths whose values differ between two inputs (by value); `news` as the engine passes them to diff. */
export function changedSettings(olds: SettingsValues, news: SettingsValues | Record<string, unknown>): string[] {
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
  return readSettings(remote, managedSettings(managed), managed);
}

/** The settings the service reports as set on a source or sink (`overwritten`), as inputs (an import manages those). */
export function overwrittenSettings(remote: StreamSetting[]): SettingsValues {
  return readSettings(remote, SETTINGS.filter((d) => remote.find((s) => s.key === d.key)?.overwritten), {});
}

/** The remote values of `defs` at their input paths, each in `mine`'s spelling where it means the same. */
function readSettings(remote: StreamSetting[], defs: readonly SettingDef[], mine: SettingsValues): SettingsValues {
  const out: Record<string, unknown> = {};
  for (const d of defs) {
    const r = remote.find((s) => s.key === d.key);
    if (!r) continue;
    const own = getPath(mine, d.input);
    const value = sameSetting(d, own, r.value) ? own : r.value;
    // A value the input cannot hold (not the service's type for the key) is not read back.
    if (holds(d, value)) setPath(out, d.input, value);
  }
  // Built by setPath at SETTINGS' input paths, each leaf of its input's type (holds): a
  // SettingsValues by construction, which TypeScript cannot follow through dotted paths. An
  // assertion rather than a second statement of the structure, which a new setting would have to
  // be added to as well or be dropped on every refresh without a word.
  return out as SettingsValues;
}

/** Whether a value has the type of the setting's input: a duration's or size's text, a count, a flag. */
function holds(d: SettingDef, value: unknown): boolean {
  if (d.kind === "int") return typeof value === "number";
  if (d.kind === "bool") return typeof value === "boolean";
  return typeof value === "string";
}
