import { parseJson, type JsonValue } from "./json";
import { goJSON } from "./go-json";
import { goQuote } from "./go-quote";

// JSON values as the Stream service's Go code holds them after decoding: a small, strict JSON
// parser keeping the key order of objects (JavaScript objects would move integer-like keys first)
// and the literal text of numbers, and Go's encoding/json text of the decoded value. An OTLP
// record is such a value (the body text of its path columns, stream-record.ts otlpBodyText), and
// so is the body of an OTLP test request (emulator/stream/testendpoint.ts). What path columns read
// from an HTTP body is fastjson.ts: a parser that validates less and keeps escapes as written.

export type JNode =
  | { t: "null" }
  | { t: "bool"; v: boolean }
  | { t: "num"; raw: string }
  | { t: "str"; v: string }
  | { t: "arr"; items: JNode[] }
  | { t: "obj"; entries: Array<[string, JNode]> };

export class JSONSyntaxError extends Error {}

export function parseJSON(text: string): JNode {
  let i = 0;
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i])) i++;
  };
  const fail = (what: string): never => {
    throw new JSONSyntaxError(`${what}; unparsed tail: ${goQuote(text.slice(i, i + 60))}`);
  };
  const str = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    if (i >= text.length) fail("missing closing '\"'");
    i++;
    let parsed: JsonValue;
    try {
      parsed = parseJson(text.slice(start, i));
    } catch {
      return fail("cannot parse string");
    }
    // A JSON text from `"` to `"` is a string.
    return typeof parsed === "string" ? parsed : fail("cannot parse string");
  };
  const value = (): JNode => {
    ws();
    const ch = text[i];
    if (ch === "{") {
      i++;
      const entries: Array<[string, JNode]> = [];
      ws();
      if (text[i] === "}") {
        i++;
        return { t: "obj", entries };
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail("cannot find opening '\"' for object key");
        const key = str();
        ws();
        if (text[i] !== ":") fail("missing ':' after object key");
        i++;
        entries.push([key, value()]);
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") {
          i++;
          return { t: "obj", entries };
        }
        fail("missing ',' after object value");
      }
    }
    if (ch === "[") {
      i++;
      const items: JNode[] = [];
      ws();
      if (text[i] === "]") {
        i++;
        return { t: "arr", items };
      }
      for (;;) {
        items.push(value());
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") {
          i++;
          return { t: "arr", items };
        }
        fail("missing ',' after array value");
      }
    }
    if (ch === '"') return { t: "str", v: str() };
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (m && m[0] !== "" && m[0] !== "-") {
      i += m[0].length;
      return { t: "num", raw: m[0] };
    }
    for (const [lit, node] of [
      ["true", { t: "bool", v: true }],
      ["false", { t: "bool", v: false }],
      ["null", { t: "null" }],
    ] as const) {
      if (text.startsWith(lit, i)) {
        i += lit.length;
        return node;
      }
    }
    if (i >= text.length) return fail("cannot parse empty string");
    return fail("unexpected value");
  };
  const out = value();
  ws();
  if (i < text.length) fail("unexpected tail");
  return out;
}

/** Compact text of a node, its strings (and keys) written by `str`. */
function write(node: JNode, str: (s: string) => string): string {
  switch (node.t) {
    case "null":
      return "null";
    case "bool":
      return String(node.v);
    case "num":
      return node.raw;
    case "str":
      return str(node.v);
    case "arr":
      return "[" + node.items.map((n) => write(n, str)).join(",") + "]";
    case "obj":
      return "{" + node.entries.map(([k, v]) => str(k) + ":" + write(v, str)).join(",") + "}";
  }
}

/** A JSON object node. */
export type JObject = Extract<JNode, { t: "obj" }>;

/** Plain JavaScript value (numbers become numbers; "__proto__" stays an ordinary key). */
export function toPlain(node: JNode): JsonValue {
  switch (node.t) {
    case "null":
      return null;
    case "bool":
      return node.v;
    case "num":
      return Number(node.raw);
    case "str":
      return node.v;
    case "arr":
      return node.items.map(toPlain);
    case "obj":
      return toPlainObject(node);
  }
}

/** Plain JavaScript object of an object node. */
export function toPlainObject(node: JObject): { [key: string]: JsonValue } {
  const out: { [key: string]: JsonValue } = {};
  for (const [k, v] of node.entries) Object.defineProperty(out, k, { value: toPlain(v), enumerable: true, writable: true, configurable: true });
  return out;
}

/** The node of a JavaScript JSON value (its keys in their JavaScript order). */
export function fromPlain(value: JsonValue): JNode {
  if (value === null) return { t: "null" };
  if (typeof value === "boolean") return { t: "bool", v: value };
  if (typeof value === "number") return { t: "num", raw: float64Text(value) };
  if (typeof value === "string") return { t: "str", v: value };
  if (Array.isArray(value)) return { t: "arr", items: value.map(fromPlain) };
  return { t: "obj", entries: Object.entries(value).map(([k, v]) => [k, fromPlain(v)]) };
}

/**
 * How Go's encoding/json writes a float64: the shortest text that reads back, in exponent form
 * below 1e-6 and from 1e21 (encoding/json floatEncoder). JavaScript's number to string follows
 * the same rule and thresholds; only -0 differs (Go keeps the sign).
 */
function float64Text(n: number): string {
  return Object.is(n, -0) ? "-0" : JSON.stringify(n);
}

/** A number literal that Go cannot hold in a float64 (encoding/json refuses it). */
export class Float64RangeError extends Error {}

/**
 * The value as Go holds it after decoding JSON into `any` with keboola/go-utils' orderedmap
 * (pkg/orderedmap/json.go UnmarshalJSON): every number is a float64 (its text is then Go's), and
 * a key given twice keeps its last value, at the place of its last occurrence. Throws
 * Float64RangeError with encoding/json's text for a number beyond float64.
 */
export function asDecodedByGo(node: JNode): JNode {
  switch (node.t) {
    case "num": {
      const n = Number(node.raw);
      if (!Number.isFinite(n)) throw new Float64RangeError(`json: cannot unmarshal number ${node.raw} into Go value of type float64`);
      return { t: "num", raw: float64Text(n) };
    }
    case "arr":
      return { t: "arr", items: node.items.map(asDecodedByGo) };
    case "obj":
      return asDecodedObject(node);
    default:
      return node;
  }
}

/** asDecodedByGo of an object. */
export function asDecodedObject(node: JObject): JObject {
  const last = new Map<string, number>();
  node.entries.forEach(([k], i) => last.set(k, i));
  return { t: "obj", entries: node.entries.filter(([k], i) => last.get(k) === i).map(([k, v]) => [k, asDecodedByGo(v)]) };
}

/**
 * Go's encoding/json text of a decoded value (compact, keys in their order, strings with Go's
 * HTML-safe escaping): what json.Marshal writes for an orderedmap and its values.
 */
export function goMarshal(node: JNode): string {
  return write(node, goJSON);
}
