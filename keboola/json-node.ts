import { parseJson, type JsonValue } from "./json";
import { goQuote } from "./go-quote";

// A request body as the Stream service's path columns see it (valyala/fastjson, which
// keboola-as-code internal/pkg/service/stream/mapping/table/column/renderer.go uses): a small JSON
// parser keeping the key order of objects (JavaScript objects would move integer-like keys first)
// and the literal text of numbers. Serialisation follows fastjson's (compact; a string with
// special characters is Go-quoted). Shared by the emulator and the provider's example checks.

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

function quote(s: string): string {
  return /["\\\u0000-\u001f]/.test(s) ? goQuote(s) : `"${s}"`;
}

/** Compact serialisation of a node. */
export function serialize(node: JNode): string {
  switch (node.t) {
    case "null":
      return "null";
    case "bool":
      return String(node.v);
    case "num":
      return node.raw;
    case "str":
      return quote(node.v);
    case "arr":
      return "[" + node.items.map(serialize).join(",") + "]";
    case "obj":
      return "{" + node.entries.map(([k, v]) => quote(k) + ":" + serialize(v)).join(",") + "}";
  }
}

/** Plain JavaScript value (numbers become numbers). */
export function toPlain(node: JNode): unknown {
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
    case "obj": {
      const out: Record<string, unknown> = {};
      for (const [k, v] of node.entries) out[k] = toPlain(v);
      return out;
    }
  }
}

/** Value at the path (object keys, or array indexes given as [n] or as a plain number key). */
export function lookup(node: JNode, steps: Array<string | number>): JNode | undefined {
  let cur: JNode | undefined = node;
  for (const step of steps) {
    if (!cur) return undefined;
    if (cur.t === "obj") {
      const key = String(step);
      cur = cur.entries.find(([k]) => k === key)?.[1];
    } else if (cur.t === "arr") {
      const idx = typeof step === "number" ? step : /^\d+$/.test(step) ? Number(step) : NaN;
      cur = Number.isInteger(idx) ? cur.items[idx] : undefined;
    } else {
      return undefined;
    }
  }
  return cur;
}
