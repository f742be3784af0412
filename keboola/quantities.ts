// Durations and sizes exactly as the Stream service parses and prints them. The one
// implementation for both the provider (check, diff) and the emulator (settings PATCH, GET),
// so preview refuses precisely what the service refuses, with the service's own error text.
//
// Durations: the service's duration.Duration.UnmarshalText is time.ParseDuration
// (keboola/keboola-as-code internal/pkg/service/common/duration/duration.go), so Go's
// src/time/format.go rules apply: no spaces anywhere, units ns us µs μs ms s m h only, signs allowed.
// Sizes: github.com/c2h5oh/datasize ByteSize.UnmarshalText at the version pinned in
// keboola/keboola-as-code go.mod (v0.0.0-20231215233829-aa82cc1e6500): leading digits only, then a
// unit trimmed of surrounding white space, case-insensitive, binary multiples, "Kb".."Eb" refused as bits.
// Values are bigint nanoseconds / bytes: Go's int64 and uint64 do not fit in a JS number.

import { goQuote } from "./go-quote";

/** An error whose message is Go's err.Error() for the same input. */
export class GoError extends Error {}

/** time.ParseDuration's *time.parseDurationError. */
export class DurationError extends GoError {}

/** datasize's *strconv.NumError; `reason` is its Err ("invalid syntax", "value out of range", the bits text). */
export class SizeError extends GoError {
  constructor(
    readonly input: string,
    readonly reason: string,
  ) {
    super(`strconv.UnmarshalText: parsing ${goQuote(input)}: ${reason}`);
  }
}

// ---- time.Duration ---------------------------------------------------------------------------

const NS = 1n;
const US = 1000n * NS;
const MS = 1000n * US;
const SEC = 1000n * MS;
const MIN = 60n * SEC;
const HOUR = 60n * MIN;
const DURATION_UNITS: ReadonlyMap<string, bigint> = new Map([
  ["ns", NS],
  ["us", US],
  ["\u00b5s", US], // micro sign
  ["\u03bcs", US], // Greek mu
  ["ms", MS],
  ["s", SEC],
  ["m", MIN],
  ["h", HOUR],
]);
const TWO_63 = 1n << 63n;

const isDigit = (byte: number): boolean => byte >= 0x30 && byte <= 0x39;
const isDot = (byte: number): boolean => byte === 0x2e;

/** The time package's quote(): ASCII kept (with \" and \\ escaped), every other byte as \xNN. */
function timeQuote(bytes: Uint8Array): string {
  let out = '"';
  for (const byte of bytes) {
    if (byte >= 0x80 || byte < 0x20) out += "\\x" + byte.toString(16).padStart(2, "0");
    else out += (byte === 0x22 || byte === 0x5c ? "\\" : "") + String.fromCharCode(byte);
  }
  return out + '"';
}

/** time.ParseDuration: nanoseconds, or a DurationError with Go's message. Works on UTF-8 bytes as Go does. */
export function parseGoDuration(text: string): bigint {
  const s = Buffer.from(text, "utf8");
  const fail = (message: string) => new DurationError(`time: ${message} ${timeQuote(s)}`);
  let i = 0;
  let neg = false;
  if (s[0] === 0x2d || s[0] === 0x2b) {
    neg = s[0] === 0x2d;
    i = 1;
  }
  if (s.length - i === 1 && s[i] === 0x30) return 0n; // "0", "-0", "+0"
  if (i === s.length) throw fail("invalid duration");
  let d = 0n;
  while (i < s.length) {
    // Go first refuses a number that starts with neither a digit nor a dot; here the check that
    // it has digits before or after its dot (below) refuses it with the same message.
    // Integer part: overflow past 1<<63 is an invalid duration.
    const intStart = i;
    let v = 0n;
    // Stryker disable next-line EqualityOperator,ConditionalExpression: equivalent: past the end s[i] is undefined, which isDigit refuses
    for (; i < s.length && isDigit(s[i]); i++) {
      // Go also checks v before multiplying, against uint64 overflow; a bigint cannot overflow.
      v = v * 10n + BigInt(s[i] - 0x30);
      if (v > TWO_63) throw fail("invalid duration");
    }
    const pre = i > intStart;
    // Fraction: digits past what fits are skipped, as leadingFraction does.
    let f = 0n;
    let scale = 1;
    let post = false;
    if (i < s.length && isDot(s[i])) {
      i++;
      const fracStart = i;
      let overflow = false;
      // Stryker disable next-line EqualityOperator,ConditionalExpression: equivalent: past the end s[i] is undefined, which isDigit refuses
      for (; i < s.length && isDigit(s[i]); i++) {
        if (overflow) continue;
        const y = f * 10n + BigInt(s[i] - 0x30);
        if (y > TWO_63) {
          overflow = true;
          continue;
        }
        f = y;
        scale *= 10;
      }
      post = i > fracStart;
    }
    if (!pre && !post) throw fail("invalid duration");
    const unitStart = i;
    while (i < s.length && !(isDot(s[i]) || isDigit(s[i]))) i++;
    if (i === unitStart) throw fail("missing unit in duration");
    const unitBytes = s.subarray(unitStart, i);
    const unit = DURATION_UNITS.get(unitBytes.toString("utf8"));
    if (unit === undefined) throw fail(`unknown unit ${timeQuote(unitBytes)} in duration`);
    v *= unit;
    // Go: uint64(float64(f) * (float64(unit) / scale)), float64 arithmetic as written (Go adds
    // only when f > 0; a zero fraction adds 0 here).
    v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
    if (v > TWO_63) throw fail("invalid duration");
    d += v;
    if (d > TWO_63) throw fail("invalid duration");
  }
  if (neg) return -d;
  if (d > TWO_63 - 1n) throw fail("invalid duration");
  return d;
}

function fmtFrac(v: bigint, prec: number): { frac: string; rest: bigint } {
  let digits = "";
  let print = false;
  for (let i = 0; i < prec; i++) {
    const digit = v % 10n;
    print = print || digit !== 0n;
    if (print) digits = digit.toString() + digits;
    v /= 10n;
  }
  return { frac: print ? "." + digits : "", rest: v };
}

/** time.Duration.String(), e.g. 60s -> "1m0s", 1.5ms -> "1.5ms". */
export function formatGoDuration(ns: bigint): string {
  const neg = ns < 0n;
  let u = neg ? -ns : ns;
  let out: string;
  if (u < SEC) {
    if (u === 0n) return "0s";
    const [prec, unit] = u < US ? [0, "ns"] : u < MS ? [3, "\u00b5s"] : [6, "ms"];
    const { frac, rest } = fmtFrac(u, prec);
    out = rest.toString() + frac + unit;
  } else {
    const { frac, rest } = fmtFrac(u, 9);
    u = rest;
    out = (u % 60n).toString() + frac + "s";
    u /= 60n;
    if (u > 0n) {
      out = (u % 60n).toString() + "m" + out;
      u /= 60n;
      if (u > 0n) out = u.toString() + "h" + out;
    }
  }
  return neg ? "-" + out : out;
}

// ---- datasize.ByteSize -----------------------------------------------------------------------

const KB = 1024n;
const MAX_UINT64 = (1n << 64n) - 1n;
const BITS = "unit with capital unit prefix and lower case unit (b) - bits, not bytes ";

// The unit names of that datasize version, after lower-casing ("exa"/"kib" etc. came later or never).
const SIZE_UNITS: ReadonlyMap<string, bigint> = new Map([
  ...["", "b", "byte"].map((u): [string, bigint] => [u, 1n]),
  ...["k", "kb", "kilo", "kilobyte", "kilobytes"].map((u): [string, bigint] => [u, KB]),
  ...["m", "mb", "mega", "megabyte", "megabytes"].map((u): [string, bigint] => [u, KB ** 2n]),
  ...["g", "gb", "giga", "gigabyte", "gigabytes"].map((u): [string, bigint] => [u, KB ** 3n]),
  ...["t", "tb", "tera", "terabyte", "terabytes"].map((u): [string, bigint] => [u, KB ** 4n]),
  ...["p", "pb", "peta", "petabyte", "petabytes"].map((u): [string, bigint] => [u, KB ** 5n]),
  ...["e", "eb"].map((u): [string, bigint] => [u, KB ** 6n]),
]);

// Go's unicode.IsSpace (what strings.TrimSpace removes); unlike String.prototype.trim, not U+FEFF.
const GO_SPACE = "[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const GO_TRIM = new RegExp(`^${GO_SPACE}+|${GO_SPACE}+$`, "gu");

/** datasize.ByteSize.UnmarshalText: bytes, or a SizeError with the strconv.NumError's text. */
export function parseByteSize(text: string): bigint {
  let i = 0;
  let val = 0n;
  // Stryker disable next-line EqualityOperator,ConditionalExpression: equivalent: past the end charCodeAt is NaN, which isDigit refuses
  for (; i < text.length && isDigit(text.charCodeAt(i)); i++) {
    val = val * 10n + BigInt(text.charCodeAt(i) - 0x30);
    if (val > MAX_UINT64) throw new SizeError(text, "value out of range");
  }
  // An empty text is 0 bytes: the parse loop never runs, so the "no digits" check never fires.
  if (i === 0 && text.length > 0) throw new SizeError(text, "invalid syntax");
  const unit = text.slice(i).replace(GO_TRIM, "");
  if (["Kb", "Mb", "Gb", "Tb", "Pb", "Eb"].includes(unit)) throw new SizeError(text, BITS);
  const multiplier = SIZE_UNITS.get(unit.toLowerCase());
  if (multiplier === undefined) throw new SizeError(text, "invalid syntax");
  if (val * multiplier > MAX_UINT64) throw new SizeError(text, "value out of range");
  return val * multiplier;
}

const SIZE_NAMES: ReadonlyArray<[bigint, string]> = [
  [KB ** 6n, "EB"],
  [KB ** 5n, "PB"],
  [KB ** 4n, "TB"],
  [KB ** 3n, "GB"],
  [KB ** 2n, "MB"],
  [KB, "KB"],
];

/** datasize.ByteSize.String(): the largest unit that divides evenly, e.g. "5MB", "100B". */
export function formatByteSize(bytes: bigint): string {
  if (bytes === 0n) return "0B";
  for (const [size, name] of SIZE_NAMES) if (bytes % size === 0n) return `${bytes / size}${name}`;
  return `${bytes}B`;
}

// ---- helpers for the provider ----------------------------------------------------------------

export type Parsed = { ok: true; value: bigint } | { ok: false; error: string };

function attempt(parse: (text: string) => bigint, text: string): Parsed {
  try {
    return { ok: true, value: parse(text) };
  } catch (e) {
    if (e instanceof GoError) return { ok: false, error: e.message };
    throw e;
  }
}

/** A duration as the service reads it: nanoseconds, or Go's error text. */
export const parseDuration = (text: string): Parsed => attempt(parseGoDuration, text);

/** A size as the service reads it: bytes, or Go's error text. */
export const parseSize = (text: string): Parsed => attempt(parseByteSize, text);

export const formatDuration = formatGoDuration;
export const formatSize = formatByteSize;
