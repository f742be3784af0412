import { goQuote, goQuoteBytes } from "./go-quote";

// A JSON body as the Stream service's path columns read it: github.com/valyala/fastjson v1.6.10
// (the version keboola-as-code's go.mod pins; parser.go, util.go), which
// internal/pkg/service/stream/mapping/table/column/renderer.go jsonPathCSVValue uses. Not a
// validating parser: a number is any run of `0-9 . - + e E` (and inf, nan), and a string's escapes
// are kept as written until something reads the string as a string. What a path column prints
// follows from that: `"caf\u00e9"` stays escaped, `"http:\/\/x"` keeps its slashes escaped.
//
// Reading a value changes what is printed later, as in Go: the service parses a record's body once
// and every column of every sink reads that one value. `typeOf` unescapes a string in place (a
// raw-string column calls it), and a lookup that misses an object's keys as written unescapes
// that object's keys (printed with Go quoting from then on).

export type FastValue =
  | { t: "rawString" | "string" | "number"; s: string }
  | { t: "true" | "false" | "null" }
  | { t: "array"; a: FastValue[] }
  | { t: "object"; kvs: Array<{ k: string; v: FastValue }>; keysUnescaped: boolean };

/** Parser.Parse's error (its text is fastjson's). */
export class FastJSONError extends Error {}

/** fastjson's MaxDepth. */
const MAX_DEPTH = 300;

/** A failure inside the parser: its text so far and where the unparsed tail starts. */
class Failure {
  constructor(
    public text: string,
    readonly at: number,
  ) {}
}

/** Runs `parse`, prefixing the text of a failure in it (fastjson wraps each level's error). */
function within<T>(prefix: string, parse: () => T): T {
  try {
    return parse();
  } catch (e) {
    if (e instanceof Failure) e.text = prefix + e.text;
    throw e;
  }
}

const isWS = (ch: string | undefined): boolean => ch === " " || ch === "\n" || ch === "\t" || ch === "\r";
const isNumberChar = (ch: string): boolean => (ch >= "0" && ch <= "9") || ch === "." || ch === "-" || ch === "e" || ch === "E" || ch === "+";

/** strings.EqualFold of three bytes and an ASCII word: only ASCII letters fold to "inf" or "nan". */
const foldsTo = (s: string, word: string): boolean => s.replace(/[A-Z]/g, (c) => c.toLowerCase()) === word;

/** Go's %q of s[:1]: the first byte of the text, a lone byte of a multi-byte character as \xNN. */
function firstByteQuoted(s: string): string {
  // Stryker disable next-line MethodExpression: equivalent: the first two UTF-16 units hold the first character; the rest only costs time
  return goQuoteBytes(Buffer.from(s.slice(0, 2)).subarray(0, 1));
}

/**
 * Go's %q of fastjson's startEndString: the text, or its first and last 40 bytes when longer
 * than 80 (a character cut there is printed byte by byte, as \xNN).
 */
function tailQuoted(tail: string): string {
  if (Buffer.byteLength(tail) <= 80) return goQuote(tail);
  // 40 UTF-16 units hold at least 40 bytes; one more keeps a surrogate pair cut there whole.
  // Stryker disable next-line MethodExpression: equivalent: encoding the whole tail gives the same bytes, only slower
  const start = Buffer.from(tail.slice(0, 41)).subarray(0, 40);
  // Stryker disable next-line MethodExpression: equivalent, as above
  const end = Buffer.from(tail.slice(-41)).subarray(-40);
  return goQuoteBytes(Buffer.concat([start, Buffer.from("..."), end]));
}

/** fastjson's Parser.Parse. Throws FastJSONError with its text. */
export function parseFastJSON(text: string): FastValue {
  let i = 0;
  const skipWS = (): void => {
    while (isWS(text[i])) i++;
  };
  const fail = (message: string, at = i): never => {
    throw new Failure(message, at);
  };

  /** parseRawString: the string's text as written, from after its opening quote to before its closing one. */
  const rawString = (): string => {
    const start = i;
    for (;;) {
      const n = text.indexOf('"', i);
      // Stryker disable next-line EqualityOperator: equivalent: the search starts after the opening quote, so n is never 0
      if (n < 0) return fail(`missing closing '"'`, text.length);
      let slashes = 0;
      // The backslashes right before the quote (the opening quote stops the count): an even number escape each other.
      while (text[n - slashes - 1] === "\\") slashes++;
      i = n + 1;
      if (slashes % 2 === 0) return text.slice(start, n);
    }
  };

  /** parseRawNumber: a run of number characters, or inf / nan after at most a sign. */
  const rawNumber = (): string => {
    const start = i;
    while (i < text.length && isNumberChar(text[i])) i++;
    if (i === text.length || i > start + 1 || (i === start + 1 && text[start] !== "-" && text[start] !== "+")) {
      return text.slice(start, i);
    }
    const word = text.slice(i, i + 3);
    if (foldsTo(word, "inf") || foldsTo(word, "nan")) {
      i += 3;
      return text.slice(start, i);
    }
    return fail(`unexpected char: ${firstByteQuoted(text.slice(start))}`, start);
  };

  const literal = (word: "true" | "false" | "null"): FastValue => {
    if (!text.startsWith(word, i)) {
      // fastjson reads "nan" (any case) where it expected null (a text at "t" or "f" is no "nan").
      if (foldsTo(text.slice(i, i + 3), "nan")) {
        i += 3;
        return { t: "number", s: text.slice(i - 3, i) };
      }
      fail(`unexpected value found: ${goQuote(text.slice(i))}`);
    }
    i += word.length;
    return { t: word };
  };

  const array = (depth: number): FastValue => {
    skipWS();
    if (i === text.length) fail("missing ']'");
    const a: FastValue[] = [];
    if (text[i] === "]") {
      i++;
      return { t: "array", a };
    }
    for (;;) {
      skipWS();
      a.push(within("cannot parse array value: ", () => value(depth)));
      skipWS();
      if (i === text.length) fail("unexpected end of array");
      if (text[i] === ",") {
        i++;
        continue;
      }
      if (text[i] === "]") {
        i++;
        return { t: "array", a };
      }
      fail("missing ',' after array value");
    }
  };

  const object = (depth: number): FastValue => {
    skipWS();
    if (i === text.length) fail("missing '}'");
    const o: FastValue = { t: "object", kvs: [], keysUnescaped: false };
    if (text[i] === "}") {
      i++;
      return o;
    }
    for (;;) {
      skipWS();
      // The text is fastjson's, its odd quotes included.
      if (text[i] !== '"') fail(`cannot find opening '"" for object key`);
      i++;
      const k = within("cannot parse object key: ", rawString);
      skipWS();
      if (text[i] !== ":") fail("missing ':' after object key");
      i++;
      skipWS();
      o.kvs.push({ k, v: within("cannot parse object value: ", () => value(depth)) });
      skipWS();
      if (i === text.length) fail("unexpected end of object");
      if (text[i] === ",") {
        i++;
        continue;
      }
      if (text[i] === "}") {
        i++;
        return o;
      }
      fail("missing ',' after object value");
    }
  };

  const value = (outer: number): FastValue => {
    if (i === text.length) fail("cannot parse empty string");
    const depth = outer + 1;
    if (depth > MAX_DEPTH) fail(`too big depth for the nested JSON; it exceeds ${MAX_DEPTH}`);
    switch (text[i]) {
      case "{":
        i++;
        return within("cannot parse object: ", () => object(depth));
      case "[":
        i++;
        return within("cannot parse array: ", () => array(depth));
      case '"':
        i++;
        return { t: "rawString", s: within("cannot parse string: ", rawString) };
      case "t":
        return literal("true");
      case "f":
        return literal("false");
      case "n":
        return literal("null");
      default:
        return { t: "number", s: within("cannot parse number: ", rawNumber) };
    }
  };

  skipWS();
  let parsed: FastValue;
  try {
    parsed = value(0);
  } catch (e) {
    if (e instanceof Failure) throw new FastJSONError(`cannot parse JSON: ${e.text}; unparsed tail: ${tailQuoted(text.slice(e.at))}`);
    throw e;
  }
  skipWS();
  if (i < text.length) throw new FastJSONError(`unexpected tail: ${tailQuoted(text.slice(i))}`);
  return parsed;
}

const SIMPLE_UNESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
// Stryker disable next-line Regex: equivalent: it tests slices of at most four characters, so either anchor alone says the same
const HEX4 = /^[0-9a-fA-F]{4}$/;

/**
 * fastjson's unescapeStringBestEffort: JSON escapes decoded; an escape it cannot decode (unknown,
 * short or not hexadecimal \u) is kept as written, and a surrogate \u not followed by another \u
 * escape too. Two \u escapes that are no surrogate pair give U+FFFD (Go's utf16.DecodeRune).
 */
export function unescapeBestEffort(s: string): string {
  let out = "";
  let i = 0;
  for (;;) {
    const n = s.indexOf("\\", i);
    if (n < 0) return out + s.slice(i);
    // A backslash that ends the text escapes nothing and is dropped (a parsed string cannot end so).
    if (n === s.length - 1) return out + s.slice(i, n);
    out += s.slice(i, n);
    const ch = s[n + 1];
    i = n + 2;
    if (ch in SIMPLE_UNESCAPES) {
      out += SIMPLE_UNESCAPES[ch];
      continue;
    }
    if (ch !== "u") {
      out += "\\" + ch;
      continue;
    }
    const xs = s.slice(i, i + 4);
    if (!HEX4.test(xs)) {
      out += "\\u";
      continue;
    }
    i += 4;
    const x = parseInt(xs, 16);
    if (x < 0xd800 || x > 0xdfff) {
      out += String.fromCodePoint(x);
      continue;
    }
    const next = s.slice(i + 2, i + 6);
    if (s[i] !== "\\" || s[i + 1] !== "u" || !HEX4.test(next)) {
      out += "\\u" + xs;
      continue;
    }
    const x1 = parseInt(next, 16);
    const pair = x < 0xdc00 && x1 >= 0xdc00 && x1 <= 0xdfff;
    out += pair ? String.fromCodePoint(0x10000 + ((x - 0xd800) << 10) + (x1 - 0xdc00)) : "\ufffd";
    i += 6;
  }
}

/** Value.Type(): a string's escapes are decoded here, once, in place (it prints with Go quoting from then on). */
export function typeOf(v: FastValue): Exclude<FastValue["t"], "rawString"> {
  if (v.t === "rawString") {
    Object.assign(v, { t: "string", s: unescapeBestEffort(v.s) });
    return "string";
  }
  return v.t;
}

/** Value.StringBytes of a string (its escapes decoded, typeOf), undefined for another type. */
export function stringBytes(v: FastValue): string | undefined {
  return typeOf(v) === "string" && v.t === "string" ? v.s : undefined;
}

/** strconv.Atoi as Value.Get reads an array index: an optional sign and decimal digits. */
const arrayIndex = (key: string): number => (/^[+-]?[0-9]+$/.test(key) ? Number(key) : NaN);

/** Object.Get: the keys as written first; a key with a backslash, or one not found so, unescapes the object's keys. */
function objectGet(o: Extract<FastValue, { t: "object" }>, key: string): FastValue | undefined {
  if (!o.keysUnescaped && !key.includes("\\")) {
    const hit = o.kvs.find((kv) => kv.k === key);
    if (hit) return hit.v;
  }
  if (!o.keysUnescaped) {
    for (const kv of o.kvs) kv.k = unescapeBestEffort(kv.k);
    o.keysUnescaped = true;
  }
  return o.kvs.find((kv) => kv.k === key)?.v;
}

/** Value.Get: the value at the keys (array indexes as decimal text), or undefined. */
export function fastGet(v: FastValue, keys: string[]): FastValue | undefined {
  let cur = v;
  for (const key of keys) {
    if (cur.t === "object") {
      const next = objectGet(cur, key);
      if (!next) return undefined;
      cur = next;
    } else if (cur.t === "array") {
      const n = arrayIndex(key);
      if (!(n >= 0 && n < cur.a.length)) return undefined;
      cur = cur.a[n];
    } else {
      return undefined;
    }
  }
  return cur;
}

/** fastjson's escapeString: as it is between quotes, or Go-quoted when it holds `"`, `\` or a control byte. */
function escapeString(s: string): string {
  return /["\\\u0000-\u001f]/.test(s) ? goQuote(s) : `"${s}"`;
}

/** Value.String() (MarshalTo): compact; a string not yet read as one is printed as written. */
export function fastString(v: FastValue): string {
  switch (v.t) {
    case "rawString":
      return `"${v.s}"`;
    case "string":
      return escapeString(v.s);
    case "number":
      return v.s;
    case "true":
    case "false":
    case "null":
      return v.t;
    case "array":
      return "[" + v.a.map(fastString).join(",") + "]";
    case "object":
      return "{" + v.kvs.map(({ k, v: item }) => (v.keysUnescaped ? escapeString(k) : `"${k}"`) + ":" + fastString(item)).join(",") + "}";
  }
}
