/**
 * strftime as used by the Keboola Stream template function `Now(format)`.
 *
 * The service formats with github.com/lestrrat-go/strftime v1.1.1 and the option
 * `strftime.WithMilliseconds('f')` (keboola-as-code
 * internal/pkg/service/stream/mapping/jsonnet/jsonnet.go, nowInternalFn), always in UTC.
 * This is a re-implementation of that library's default specification set
 * (specifications.go / appenders.go / extension.go), including its error texts:
 *   - "stray % at the end of pattern"
 *   - "pattern compilation failed: lookup failed: '%Q' was not found in specification set"
 */

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS = [
  "January", "February", "March", "April", "May", "June",
  "July", "August", "September", "October", "November", "December",
];

const pad = (n: number, width: number, ch = "0"): string => String(n).padStart(width, ch);

function yearDay(d: Date): number {
  return Math.floor((Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86400000) + 1;
}

/** Go time.Time.ISOWeek() */
function isoWeek(d: Date): [year: number, week: number] {
  const isoDow = d.getUTCDay() === 0 ? 7 : d.getUTCDay();
  const thursday = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 4 - isoDow));
  return [thursday.getUTCFullYear(), Math.floor((yearDay(thursday) - 1) / 7) + 1];
}

/** Go time.Format "2006" (4 digits, sign for negative years). */
function year4(y: number): string {
  return y < 0 ? "-" + pad(-y, 4) : pad(y, 4);
}

function hour12(h: number): number {
  if (h > 12) return h - 12;
  if (h === 0) return 12;
  return h;
}

const mdy = (d: Date) => `${pad(d.getUTCMonth() + 1, 2)}/${pad(d.getUTCDate(), 2)}/${pad(d.getUTCFullYear() % 100, 2)}`;
const hms = (d: Date) => `${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}`;

function weekNumberOffset(d: Date, sundayOrigin: boolean): string {
  let offset = d.getUTCDay();
  if (sundayOrigin) offset = 6 - offset;
  else if (offset !== 0) offset = 7 - offset;
  return pad(Math.floor((yearDay(d) + offset) / 7), 2);
}

function isoWeekYear(d: Date, century: boolean): string {
  let [y] = isoWeek(d);
  const sign = y < 0 ? "-" : "";
  y = Math.abs(y);
  return century ? sign + pad(y, 4) : sign + pad(y % 100, 2);
}

const SPECS: Record<string, (d: Date) => string> = {
  A: (d) => WEEKDAYS[d.getUTCDay()]!,
  a: (d) => WEEKDAYS[d.getUTCDay()]!.slice(0, 3),
  B: (d) => MONTHS[d.getUTCMonth()]!,
  b: (d) => MONTHS[d.getUTCMonth()]!.slice(0, 3),
  C: (d) => pad(Math.trunc(d.getUTCFullYear() / 100), 2),
  // Go layout "Mon Jan _2 15:04:05 2006"
  c: (d) => `${SPECS.a!(d)} ${SPECS.b!(d)} ${pad(d.getUTCDate(), 2, " ")} ${hms(d)} ${year4(d.getUTCFullYear())}`,
  D: mdy,
  d: (d) => pad(d.getUTCDate(), 2),
  e: (d) => pad(d.getUTCDate(), 2, " "),
  F: (d) => `${year4(d.getUTCFullYear())}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`,
  f: (d) => pad(d.getUTCMilliseconds(), 3), // WithMilliseconds('f')
  G: (d) => isoWeekYear(d, true),
  g: (d) => isoWeekYear(d, false),
  H: (d) => pad(d.getUTCHours(), 2),
  h: (d) => MONTHS[d.getUTCMonth()]!.slice(0, 3),
  I: (d) => pad(hour12(d.getUTCHours()), 2),
  j: (d) => pad(yearDay(d), 3),
  k: (d) => pad(d.getUTCHours(), 2, " "),
  l: (d) => pad(hour12(d.getUTCHours()), 2, " "),
  M: (d) => pad(d.getUTCMinutes(), 2),
  m: (d) => pad(d.getUTCMonth() + 1, 2),
  n: () => "\n",
  p: (d) => (d.getUTCHours() >= 12 ? "PM" : "AM"),
  R: (d) => `${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}`,
  r: (d) => `${pad(hour12(d.getUTCHours()), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)} ${d.getUTCHours() >= 12 ? "PM" : "AM"}`,
  S: (d) => pad(d.getUTCSeconds(), 2),
  T: hms,
  t: () => "\t",
  U: (d) => weekNumberOffset(d, true),
  u: (d) => String(d.getUTCDay() === 0 ? 7 : d.getUTCDay()),
  V: (d) => pad(isoWeek(d)[1], 2),
  // Go layout "_2-Jan-2006"
  v: (d) => `${pad(d.getUTCDate(), 2, " ")}-${SPECS.b!(d)}-${year4(d.getUTCFullYear())}`,
  W: (d) => weekNumberOffset(d, false),
  w: (d) => String(d.getUTCDay()),
  X: hms,
  x: mdy,
  Y: (d) => year4(d.getUTCFullYear()),
  y: (d) => pad(((d.getUTCFullYear() % 100) + 100) % 100, 2),
  Z: () => "UTC",
  z: () => "+0000",
  "%": () => "%",
};

/** Formats `date` (in UTC) like lestrrat-go/strftime with `%f` = milliseconds. Throws Error with the library's message. */
export function strftime(format: string, date: Date): string {
  let out = "";
  for (let i = 0; i < format.length; i++) {
    const ch = format[i]!;
    if (ch !== "%") {
      out += ch;
      continue;
    }
    if (i === format.length - 1) throw new Error("stray % at the end of pattern");
    const spec = format[++i]!;
    const fn = Object.prototype.hasOwnProperty.call(SPECS, spec) ? SPECS[spec] : undefined;
    if (!fn) {
      // The Go library looks at one byte: for a non-ASCII character it is the first UTF-8 byte, printed with %c.
      const byte = Buffer.from(String.fromCodePoint(format.codePointAt(i)!), "utf8")[0]!;
      throw new Error(`pattern compilation failed: lookup failed: '%${String.fromCharCode(byte)}' was not found in specification set`);
    }
    out += fn(date);
  }
  return out;
}
