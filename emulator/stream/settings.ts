import type { StreamSetting } from "../../keboola/stream";
import { badRequest, forbidden, type StreamError } from "./errors";
import { asSentence, truncateBytes } from "./gofmt";
import { DurationError, formatByteSize, formatGoDuration, parseByteSize, parseGoDuration, SizeError } from "../../keboola/quantities";
import type { SettingPatchKV } from "./state";
import { EDITABLE_SETTINGS, rangeOf, type EditableSetting } from "../../keboola/settings";

// Source and sink settings: the keys the real service lists (same set on sources and sinks), how a
// PATCH is bound and checked, and how GET dumps them. Overrides are stored as sent and re-parsed
// when read, like the real service stores its patch key-value pairs.
//
// What the real service checks when: syntax and types at PATCH time (400 badRequest, one
// "- ..." line per bad key), protected keys at PATCH time (403), value ranges only when a sink
// opens a new file (sink create, update, settings update, enable), which then fails the task.

type Kind = "duration" | "size" | "int" | "bool" | "string" | "stringList";

export interface SettingDef {
  key: string;
  /** Type shown by GET. */
  type: "string" | "int" | "bool" | "[]string";
  kind: Kind;
  /** Go type name used in type-mismatch messages. */
  goType: string;
  description: string;
  default: string | number | boolean | string[];
  protected: boolean;
  validation?: string;
  /** Value range (editable keys), in ns / bytes / units. */
  range?: { min: bigint; max: bigint };
}

/**
 * An editable key: its default, `validate` tag and range from the one record the provider's
 * inputs use too (provider/validation/settings.ts EDITABLE_SETTINGS).
 */
function editable(key: EditableSetting["key"], shown: Pick<SettingDef, "type" | "goType" | "description">): SettingDef {
  const fact = EDITABLE_SETTINGS.find((e) => e.key === key)!;
  const validation = "validation" in fact ? fact.validation : undefined;
  const { min, max } = rangeOf(validation);
  // A size's bound in bytes; a count's bound is digits only, which parseByteSize reads as that number.
  const value = (v: string) => (fact.kind === "duration" ? parseGoDuration(v) : parseByteSize(v));
  return {
    key,
    kind: fact.kind,
    default: fact.default,
    protected: false,
    ...shown,
    ...(validation ? { validation } : {}),
    // Stryker disable next-line LogicalOperator: equivalent: each editable key's validate tag gives both bounds or neither
    ...(min !== undefined && max !== undefined ? { range: { min: value(min), max: value(max) } } : {}),
  };
}

// In the order the service's configuration structure declares them (errors are reported in this order).
export const SETTINGS: SettingDef[] = [
  { key: "storage.level.local.encoding.encoder.type", type: "string", kind: "string", goType: "encoder.Type", description: "Encoder type.", default: "csv", protected: true, validation: "required,oneof=csv" },
  { key: "storage.level.local.encoding.encoder.concurrency", type: "int", kind: "int", goType: "int", description: "Concurrency of the format writer for the specified file type. 0 = auto = num of CPU cores", default: 0, protected: true, validation: "min=0,max=256" },
  { key: "storage.level.local.encoding.inputBuffer", type: "string", kind: "size", goType: "datasize.ByteSize", description: "Max size of the buffer before compression, if compression is enabled. 0 = disabled", default: "2MB", protected: true, validation: "maxBytes=16MB" },
  { key: "storage.level.local.encoding.maxChunkSize", type: "string", kind: "size", goType: "datasize.ByteSize", description: "Max size of a chunk sent over the network to a disk writer node.", default: "512KB", protected: true, validation: "required,minBytes=64kB,maxBytes=1MB" },
  { key: "storage.level.local.encoding.failedChunksThreshold", type: "int", kind: "int", goType: "int", description: "If the defined number of chunks cannot be sent, the pipeline is marked as not ready.", default: 3, protected: true, validation: "required,min=1,max=100" },
  { key: "storage.level.local.encoding.compression.type", type: "string", kind: "string", goType: "compression.Type", description: "Compression type.", default: "gzip", protected: true, validation: "required,oneof=none gzip" },
  { key: "storage.level.local.encoding.compression.gzip.level", type: "int", kind: "int", goType: "int", description: "GZIP compression level: 1-9.", default: 1, protected: true, validation: "min=1,max=9" },
  { key: "storage.level.local.encoding.compression.gzip.implementation", type: "string", kind: "string", goType: "compression.GZIPImplementation", description: "GZIP implementation: standard, fast, parallel.", default: "parallel", protected: true, validation: "required,oneof=standard fast parallel" },
  { key: "storage.level.local.encoding.compression.gzip.blockSize", type: "string", kind: "size", goType: "datasize.ByteSize", description: "GZIP parallel block size.", default: "256KB", protected: true, validation: "required,minBytes=16kB,maxBytes=100MB" },
  { key: "storage.level.local.encoding.compression.gzip.concurrency", type: "int", kind: "int", goType: "int", description: "GZIP parallel concurrency, 0 = auto.", default: 0, protected: true },
  { key: "storage.level.local.encoding.sync.mode", type: "string", kind: "string", goType: "writesync.Mode", description: 'Sync mode: "cache" or "disk".', default: "disk", protected: true, validation: "required,oneof=disk cache" },
  editable("storage.level.local.encoding.sync.wait", { type: "bool", goType: "bool", description: "Wait for sync to disk OS cache or to disk hardware, depending on the mode." }),
  { key: "storage.level.local.encoding.sync.checkInterval", type: "string", kind: "duration", goType: "duration.Duration", description: "Minimal interval between syncs to disk.", default: "5ms", protected: true, validation: "required,minDuration=1ms,maxDuration=30s" },
  { key: "storage.level.local.encoding.sync.countTrigger", type: "int", kind: "int", goType: "uint", description: "Written records count to trigger sync.", default: 10000, protected: true, validation: "required,min=1,max=1000000" },
  { key: "storage.level.local.encoding.sync.uncompressedBytesTrigger", type: "string", kind: "size", goType: "datasize.ByteSize", description: "Size of buffered uncompressed data to trigger sync.", default: "1MB", protected: true, validation: "required,minBytes=100B,maxBytes=500MB" },
  { key: "storage.level.local.encoding.sync.compressedBytesTrigger", type: "string", kind: "size", goType: "datasize.ByteSize", description: "Size of buffered compressed data to trigger sync.", default: "256KB", protected: true, validation: "required,minBytes=100B,maxBytes=100MB" },
  { key: "storage.level.local.encoding.sync.intervalTrigger", type: "string", kind: "duration", goType: "duration.Duration", description: "Interval from the last sync to trigger sync.", default: "50ms", protected: true, validation: "required,minDuration=10ms,maxDuration=30s" },
  { key: "storage.level.local.volume.assignment.count", type: "int", kind: "int", goType: "int", description: "Volumes count simultaneously utilized per sink.", default: 1, protected: true, validation: "required,min=1,max=100" },
  { key: "storage.level.local.volume.assignment.preferredTypes", type: "[]string", kind: "stringList", goType: "[]string", description: "List of preferred volume types, start with the most preferred.", default: ["default"], protected: true, validation: "required,min=1" },
  editable("storage.level.staging.upload.trigger.count", { type: "int", goType: "uint64", description: "Records count to trigger slice upload." }),
  editable("storage.level.staging.upload.trigger.size", { type: "string", goType: "datasize.ByteSize", description: "Records size to trigger slice upload." }),
  editable("storage.level.staging.upload.trigger.interval", { type: "string", goType: "duration.Duration", description: "Duration from the last slice upload to trigger the next upload." }),
  editable("storage.level.target.import.trigger.count", { type: "int", goType: "uint64", description: "Records count to trigger file import." }),
  editable("storage.level.target.import.trigger.size", { type: "string", goType: "datasize.ByteSize", description: "Records size to trigger file import." }),
  editable("storage.level.target.import.trigger.interval", { type: "string", goType: "duration.Duration", description: "Duration from the last import to trigger the next import." }),
  { key: "storage.level.target.import.trigger.slicesCount", type: "int", kind: "int", goType: "uint64", description: "Number of slices in the file to trigger file import.", default: 100, protected: true, validation: "required,min=1,max=200" },
  { key: "storage.level.target.import.trigger.expiration", type: "string", kind: "duration", goType: "duration.Duration", description: "Min remaining expiration to trigger file import.", default: "30m0s", protected: true, validation: "required,minDuration=5m,maxDuration=45m" },
];

const BY_KEY = new Map(SETTINGS.map((s) => [s.key, s]));

/** A bound value: bigint for durations (ns) and sizes (bytes), or a JSON value. */
type Bound = bigint | number | boolean | string | string[];

function goTypeOf(value: unknown): string {
  if (typeof value === "string") return "string";
  if (typeof value === "number") return "float64";
  if (typeof value === "boolean") return "bool";
  if (Array.isArray(value)) return "[]interface {}";
  return "map[string]interface {}";
}

/** Thrown for `value: null`: the real service panics on it and answers 500. */
export class NullSettingValue extends Error {}

/** A bound override: its value, undefined for "not set", or the error text for an invalid value. */
type Binding = { value: Bound | undefined } | { error: string };

/** Binds one override to its key (an empty string for a duration or size means "not set"). */
function bindValue(def: SettingDef, value: unknown): Binding {
  // null or undefined (a decoded body has no undefined value: a missing one is read as null)
  if (value == null) throw new NullSettingValue();
  const mismatch = { error: `invalid "${def.key}" value: found type "${goTypeOf(value)}", expected "${def.goType}"` };
  if (typeof value === "string" && (def.kind === "duration" || def.kind === "size")) {
    if (value === "") return { value: undefined };
    try {
      return { value: def.kind === "duration" ? parseGoDuration(value) : parseByteSize(value) };
    } catch (e) {
      if (e instanceof SizeError) return { error: `invalid "${def.key}" value "${truncateBytes(value, 20, "\u2026")}": ${e.reason}` };
      if (e instanceof DurationError) return { error: `invalid "${def.key}": ${e.message}` };
      throw e;
    }
  }
  switch (def.kind) {
    case "duration":
    case "size":
      return typeof value === "number" ? { value: BigInt(Math.trunc(value)) } : mismatch;
    case "int":
      return typeof value === "number" ? { value: Math.trunc(value) } : mismatch;
    case "bool":
      return typeof value === "boolean" ? { value } : mismatch;
    case "string":
      return typeof value === "string" ? { value } : mismatch;
    case "stringList": {
      if (!Array.isArray(value)) return mismatch;
      // Stryker disable next-line ArrayDeclaration: equivalent: the only list key is protected, so a bound list is refused (403) and never stored or shown
      const strings: string[] = [];
      for (const [index, item] of value.entries()) {
        if (typeof item !== "string") return { error: `invalid "${def.key}" value: index ${index}: found type "${goTypeOf(item)}", expected "string"` };
        strings.push(item);
      }
      return { value: strings };
    }
  }
}

function formatBound(def: SettingDef, v: Bound): unknown {
  // A duration or a size is bound to a bigint (bindValue).
  if (def.kind === "duration" && typeof v === "bigint") return formatGoDuration(v);
  if (def.kind === "size" && typeof v === "bigint") return formatByteSize(v);
  return v;
}

/** Several errors: one "- " line each, every line a sentence. */
function multiError(messages: string[]): string {
  if (messages.length === 1) return messages[0];
  return messages.map((m) => "- " + asSentence(m)).join("\n");
}

/**
 * Checks a PATCH request's settings: 400 for invalid values or unknown keys, 403 for protected
 * keys. Throws NullSettingValue for a null value (the caller answers as the real service does).
 */
export function checkSettingsPatch(kvs: SettingPatchKV[]): StreamError | undefined {
  const given = new Map<string, unknown>();
  for (const kv of kvs) {
    if (given.has(kv.key)) return badRequest(`key "${kv.key}" is defined multiple times`);
    given.set(kv.key, kv.value);
  }
  const errors: string[] = [];
  const patched: string[] = [];
  for (const def of SETTINGS) {
    if (!given.has(def.key)) continue;
    const value = given.get(def.key);
    given.delete(def.key);
    const bound = bindValue(def, value);
    if ("error" in bound) errors.push(bound.error);
    else if (bound.value !== undefined && def.protected) patched.push(def.key);
  }
  if (given.size > 0) {
    errors.push(`key not found: "${truncateBytes([...given.keys()].sort().join('", "'), 50, "\u2026")}"`);
  }
  if (errors.length > 0) return badRequest(multiError(errors));
  if (patched.length > 0) return forbidden(`cannot modify protected keys: "${patched.join('", "')}"`);
  return undefined;
}

/** Orders records by key, by code point. */
// Stryker disable next-line EqualityOperator: equivalent: the keys sorted are unique (SETTINGS', a Map's), so no two compare equal
const byKeyName = (x: { key: string }, y: { key: string }) => (x.key < y.key ? -1 : 1);

/** Merges new overrides into stored ones: later values win, keys sorted. */
export function mergeSettings(stored: SettingPatchKV[], patch: SettingPatchKV[]): SettingPatchKV[] {
  const byKey = new Map<string, SettingPatchKV>();
  for (const kv of [...stored, ...patch]) byKey.set(kv.key, { key: kv.key, value: kv.value });
  return [...byKey.values()].sort(byKeyName);
}

function boundOverrides(config: SettingPatchKV[]): Map<string, Bound> {
  const out = new Map<string, Bound>();
  for (const kv of config) {
    const def = BY_KEY.get(kv.key);
    if (!def) continue;
    // Stored overrides were checked when they were written.
    const bound = bindValue(def, kv.value);
    const value = "value" in bound ? bound.value : undefined;
    if (value !== undefined) out.set(def.key, value);
  }
  return out;
}


/** GET .../settings: every key, sorted, with the entity's own overrides (no inheritance). */
/** The settings as GET .../settings answers them, typed by the service's contract (keboola/stream.ts). */
export function dumpSettings(config: SettingPatchKV[]): StreamSetting[] {
  const overrides = boundOverrides(config);
  return [...SETTINGS]
    .sort(byKeyName)
    .map((def) => {
      const override = overrides.get(def.key);
      const out: StreamSetting = {
        key: def.key,
        type: def.type,
        description: def.description,
        value: override !== undefined ? formatBound(def, override) : def.default,
        defaultValue: def.default,
        overwritten: override !== undefined,
        protected: def.protected,
      };
      // Stryker disable next-line ConditionalExpression: equivalent: an undefined validation is left out when the answer is written as JSON
      if (def.validation) out.validation = def.validation;
      return out;
    });
}

/**
 * Whether the effective values (defaults, then the source's, then the sink's overrides) are in
 * the allowed ranges; the real service validates them when a sink opens a file.
 */
export function effectiveSettingsValid(sourceConfig: SettingPatchKV[], sinkConfig: SettingPatchKV[]): boolean {
  const effective = new Map([...boundOverrides(sourceConfig), ...boundOverrides(sinkConfig)]);
  for (const def of SETTINGS) {
    if (!def.range) continue;
    const v = effective.get(def.key);
    // Ranged keys are numbers: durations and sizes bound to bigints, counts to numbers (a key
    // not overridden is undefined: its default is in range).
    const n = typeof v === "bigint" ? v : typeof v === "number" ? BigInt(v) : undefined;
    if (n !== undefined && (n < def.range.min || n > def.range.max)) return false;
  }
  return true;
}

/** The effective value of one key, formatted as GET shows it. */
export function effectiveSetting(key: string, sourceConfig: SettingPatchKV[], sinkConfig: SettingPatchKV[]): unknown {
  const def = BY_KEY.get(key);
  if (!def) return undefined;
  const v = boundOverrides(sinkConfig).get(key) ?? boundOverrides(sourceConfig).get(key);
  return v === undefined ? def.default : formatBound(def, v);
}
