// Go formatting rules the real service's messages and values follow: string quoting (%q / %#v),
// "as sentence" error messages, time.Duration and datasize.ByteSize parsing and printing.

const SIMPLE_ESCAPES: Record<string, string> = {
  "\u0007": "\\a",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\u000b": "\\v",
  '"': '\\"',
  "\\": "\\\\",
};

/** Go's strconv.Quote (what `%q` and `%#v` print for a string). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (SIMPLE_ESCAPES[ch]) out += SIMPLE_ESCAPES[ch];
    else if (cp < 0x20 || cp === 0x7f) out += "\\x" + cp.toString(16).padStart(2, "0");
    else if (cp < 0x80 || /[\p{L}\p{M}\p{N}\p{P}\p{S}]/u.test(ch)) out += ch;
    else if (cp < 0x10000) out += "\\u" + cp.toString(16).padStart(4, "0");
    else out += "\\U" + cp.toString(16).padStart(8, "0");
  }
  return out + '"';
}

/** Upper-case first letter, add a dot unless the message ends with a special character. */
export function asSentence(msg: string): string {
  const out = msg.replace(/ +$/, "");
  if (out.length === 0) return msg;
  const upper = out[0].toUpperCase() + out.slice(1);
  return /[a-zA-Z0-9'"]$/.test(upper) ? upper + "." : upper;
}

/** strhelper.Truncate: cut to `max` bytes and append the suffix. */
export function truncateBytes(s: string, max: number, suffix: string): string {
  const buf = Buffer.from(s, "utf8");
  if (buf.length <= max) return s;
  return buf.subarray(0, max).toString("utf8") + suffix;
}

/** Go's `%s` of a []string as JSON (json.MustEncodeString of a string slice). */
export function goJSONStrings(values: string[]): string {
  return JSON.stringify(values);
}

// ---- time.Duration ---------------------------------------------------------------------------

const NS = 1n;
const US = 1000n * NS;
const MS = 1000n * US;
const SEC = 1000n * MS;
const MIN = 60n * SEC;
const HOUR = 60n * MIN;
const UNITS: Record<string, bigint> = { ns: NS, us: US, "\u00b5s": US, "\u03bcs": US, ms: MS, s: SEC, m: MIN, h: HOUR };
const MAX_DURATION = (1n << 63n) - 1n;

export class GoError extends Error {}

function timeQuote(s: string): string {
  return '"' + s.replace(/\\/g, "\\\\").replace(/"/g, '\\"') + '"';
}

/** time.ParseDuration; returns nanoseconds or throws GoError with Go's message. */
export function parseGoDuration(orig: string): bigint {
  const invalid = () => new GoError(`time: invalid duration ${timeQuote(orig)}`);
  let s = orig;
  let neg = false;
  if (s !== "" && (s[0] === "-" || s[0] === "+")) {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return 0n;
  if (s === "") throw invalid();
  let d = 0n;
  while (s !== "") {
    if (!(s[0] === "." || (s[0] >= "0" && s[0] <= "9"))) throw invalid();
    const intMatch = /^[0-9]*/.exec(s)![0];
    s = s.slice(intMatch.length);
    let v = intMatch === "" ? 0n : BigInt(intMatch);
    if (v > 1n << 63n) throw invalid();
    const pre = intMatch.length > 0;
    let frac = "";
    let post = false;
    if (s !== "" && s[0] === ".") {
      s = s.slice(1);
      frac = /^[0-9]*/.exec(s)![0];
      s = s.slice(frac.length);
      post = frac.length > 0;
    }
    if (!pre && !post) throw invalid();
    let i = 0;
    while (i < s.length && !(s[i] === "." || (s[i] >= "0" && s[i] <= "9"))) i++;
    if (i === 0) throw new GoError(`time: missing unit in duration ${timeQuote(orig)}`);
    const u = s.slice(0, i);
    s = s.slice(i);
    const unit = UNITS[u];
    if (unit === undefined) throw new GoError(`time: unknown unit ${timeQuote(u)} in duration ${timeQuote(orig)}`);
    if (v > (1n << 63n) / unit) throw invalid();
    v *= unit;
    if (frac !== "") {
      const f = Number("0." + frac);
      v += BigInt(Math.floor(f * Number(unit)));
      if (v > 1n << 63n) throw invalid();
    }
    d += v;
    if (d > 1n << 63n) throw invalid();
  }
  if (neg) return -d;
  if (d > MAX_DURATION) throw invalid();
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

/** time.Duration.String(). */
export function formatGoDuration(ns: bigint): string {
  const neg = ns < 0n;
  let u = neg ? -ns : ns;
  let out: string;
  if (u < SEC) {
    if (u === 0n) return "0s";
    let prec: number;
    let unit: string;
    if (u < US) {
      prec = 0;
      unit = "ns";
    } else if (u < MS) {
      prec = 3;
      unit = "\u00b5s";
    } else {
      prec = 6;
      unit = "ms";
    }
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
const SIZE_UNITS: Array<[bigint, string]> = [
  [KB ** 6n, "EB"],
  [KB ** 5n, "PB"],
  [KB ** 4n, "TB"],
  [KB ** 3n, "GB"],
  [KB ** 2n, "MB"],
  [KB, "KB"],
];
const MAX_UINT64 = (1n << 64n) - 1n;

/** strconv.NumError text for the datasize parser ("invalid syntax", "value out of range", bits). */
export class SizeSyntaxError extends GoError {}

/** datasize.ByteSize.UnmarshalText; returns bytes or throws SizeSyntaxError with the NumError's reason. */
export function parseByteSize(text: string): bigint {
  let i = 0;
  let val = 0n;
  while (i < text.length && text[i] >= "0" && text[i] <= "9") {
    val = val * 10n + BigInt(text.charCodeAt(i) - 48);
    if (val > MAX_UINT64) throw new SizeSyntaxError("value out of range");
    i++;
  }
  if (i === 0) throw new SizeSyntaxError("invalid syntax");
  const rawUnit = text.slice(i).trim();
  if (["Kb", "Mb", "Gb", "Tb", "Pb", "Eb"].includes(rawUnit)) {
    throw new SizeSyntaxError("unit with capital unit prefix and lower case unit (b) - bits, not bytes ");
  }
  const unit = rawUnit.toLowerCase();
  const multipliers: Array<[string[], bigint]> = [
    [["", "b", "byte"], 1n],
    [["k", "kb", "kilo", "kilobyte", "kilobytes"], KB],
    [["m", "mb", "mega", "megabyte", "megabytes"], KB ** 2n],
    [["g", "gb", "giga", "gigabyte", "gigabytes"], KB ** 3n],
    [["t", "tb", "tera", "terabyte", "terabytes"], KB ** 4n],
    [["p", "pb", "peta", "petabyte", "petabytes"], KB ** 5n],
    [["e", "eb", "exa", "exabyte", "exabytes"], KB ** 6n],
  ];
  for (const [names, mult] of multipliers) {
    if (names.includes(unit)) {
      if (val * mult > MAX_UINT64) throw new SizeSyntaxError("value out of range");
      return val * mult;
    }
  }
  throw new SizeSyntaxError("invalid syntax");
}

/** datasize.ByteSize.String(). */
export function formatByteSize(bytes: bigint): string {
  if (bytes === 0n) return "0B";
  for (const [size, name] of SIZE_UNITS) if (bytes % size === 0n) return `${bytes / size}${name}`;
  return `${bytes}B`;
}
