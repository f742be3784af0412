// The Stream service's editable settings: the one record of their keys, kinds, defaults and ranges,
// from which the provider's inputs (provider/validation/settings.ts) and the emulator's settings
// table (emulator/stream/settings.ts) both derive theirs.

/**
 * The editable settings as the service declares them: each key's default and its `validate` tag
 * (keboola-as-code internal/pkg/service/stream/storage/level/{local,staging,target}/config/config.go,
 * as GET .../settings shows them). The one record of their ranges and defaults: the inputs below
 * and the emulator's settings table (emulator/stream/settings.ts) both derive theirs from it.
 */
export const EDITABLE_SETTINGS = [
  { key: "storage.level.local.encoding.sync.wait", kind: "bool", default: true },
  { key: "storage.level.staging.upload.trigger.count", kind: "int", default: 10000, validation: "required,min=1,max=10000000" },
  { key: "storage.level.staging.upload.trigger.size", kind: "size", default: "5MB", validation: "required,minBytes=100B,maxBytes=50MB" },
  { key: "storage.level.staging.upload.trigger.interval", kind: "duration", default: "30s", validation: "required,minDuration=1s,maxDuration=30m" },
  { key: "storage.level.target.import.trigger.count", kind: "int", default: 50000, validation: "required,min=1,max=10000000" },
  { key: "storage.level.target.import.trigger.size", kind: "size", default: "50MB", validation: "required,minBytes=100B,maxBytes=500MB" },
  { key: "storage.level.target.import.trigger.interval", kind: "duration", default: "1m0s", validation: "required,minDuration=30s,maxDuration=24h" },
] as const;

export type EditableSetting = (typeof EDITABLE_SETTINGS)[number];

/** The range a `validate` tag sets (`min`/`max`, `minDuration`/..., `minBytes`/...), as the tag spells it. */
export function rangeOf(validation: string | undefined): { min?: string; max?: string } {
  const out: { min?: string; max?: string } = {};
  // Stryker disable next-line StringLiteral: equivalent: any text without "min"/"max" splits into rules that set no bound, as "" does
  for (const rule of (validation ?? "").split(",")) {
    // `.+` runs to the end of the rule (tags have no line breaks).
    const m = /^(min|max)(?:Duration|Bytes)?=(.+)/.exec(rule);
    const bound = m?.[1];
    if (m && (bound === "min" || bound === "max")) out[bound] = m[2];
  }
  return out;
}
