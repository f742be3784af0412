/**
 * Calls of the template globals that fail for every record, found without a record.
 *
 * The service checks a template only statically at sink create/update (syntax and unknown
 * variables: keboola/keboola-as-code internal/pkg/service/stream/api/mapper/sink_request.go), so
 * `Ip(1)` or `Body(1)` is accepted and then fails each record at evaluation: go-jsonnet's call
 * checks ("function expected 0 positional argument(s), but got 1", "function has no parameter x",
 * "Argument format already provided") and the globals' own type checks ("parameter must be a
 * string", "first parameter must be a string", an invalid Now() format) from
 * internal/pkg/service/stream/mapping/jsonnet/jsonnet.go (see globals.ts).
 *
 * A call is reported only when its failure does not depend on the record: too many or unknown
 * arguments, or literal arguments of the wrong type. The text is what the service's engine says
 * for that call, obtained by evaluating the call alone with the same engine and globals.
 */
import type { JsonnetEngine } from "./engine";
import { TEMPLATE_GLOBALS } from "./globals";

type Global = (typeof TEMPLATE_GLOBALS)[number];

const isGlobalName = (name: string): name is Global => TEMPLATE_GLOBALS.some((g) => g === name);

/** Parameters of each global as the service declares them (names matter for named arguments). */
const PARAMS: Record<Global, readonly string[]> = {
  Ip: [],
  HeaderStr: [],
  BodyStr: [],
  Now: ["format"],
  Header: ["header", "default"],
  Body: ["path", "default"],
};

const FIXES: Record<Global, string> = {
  Ip: "call Ip() with no arguments",
  HeaderStr: "call HeaderStr() with no arguments",
  BodyStr: "call BodyStr() with no arguments",
  Now: 'call Now() or Now("<strftime format>") with a string, e.g. Now("%Y-%m-%d %H:%M:%S")',
  Header: 'call Header("Header-Name") or Header("Header-Name", default); Header() returns all headers',
  Body: 'call Body("path.to.field") or Body("path.to.field", default); Body() returns the whole body',
};

export interface FailingCall {
  global: Global;
  /** The call as written, e.g. `Ip(1)`. */
  call: string;
  /** 1-based position of the global's name. */
  line: number;
  column: number;
  /** The service's evaluation error for it, e.g. "function expected 0 positional argument(s), but got 1". */
  error: string;
  /** How to write the call instead. */
  fix: string;
}

interface Token {
  kind: "ident" | "string" | "number" | "punct";
  text: string;
  start: number;
  end: number;
}

const NUMBER = /[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;
const PUNCT = ["|||", ":::", "==", "!=", "<=", ">=", "&&", "||", "::", "+:", "<<", ">>"];

/** Jsonnet tokens (comments and white space dropped). Returns undefined on text it cannot read. */
function tokenize(src: string): Token[] | undefined {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === "#" || src.startsWith("//", i)) {
      const nl = src.indexOf("\n", i);
      i = nl < 0 ? src.length : nl + 1;
    } else if (src.startsWith("/*", i)) {
      const endAt = src.indexOf("*/", i + 2);
      if (endAt < 0) return undefined;
      i = endAt + 2;
    } else if (src.startsWith("|||", i)) {
      const close = /\n[ \t]*\|\|\|/g;
      close.lastIndex = i + 3;
      const m = close.exec(src);
      if (!m) return undefined;
      out.push({ kind: "string", text: src.slice(i, close.lastIndex), start: i, end: close.lastIndex });
      i = close.lastIndex;
    } else if (c === '"' || c === "'" || (c === "@" && (src[i + 1] === '"' || src[i + 1] === "'"))) {
      const verbatim = c === "@";
      const quote = verbatim ? src[i + 1]! : c;
      let j = i + (verbatim ? 2 : 1);
      for (;;) {
        if (j >= src.length) return undefined;
        if (!verbatim && src[j] === "\\") j += 2;
        else if (src[j] === quote && verbatim && src[j + 1] === quote) j += 2;
        else if (src[j] === quote) break;
        else j++;
      }
      out.push({ kind: "string", text: src.slice(i, j + 1), start: i, end: j + 1 });
      i = j + 1;
    } else if (/[0-9]/.test(c)) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(src)!;
      out.push({ kind: "number", text: m[0], start: i, end: i + m[0].length });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      IDENT.lastIndex = i;
      const m = IDENT.exec(src)!;
      out.push({ kind: "ident", text: m[0], start: i, end: i + m[0].length });
      i += m[0].length;
    } else {
      const op = PUNCT.find((p) => src.startsWith(p, i)) ?? c;
      out.push({ kind: "punct", text: op, start: i, end: i + op.length });
      i += op.length;
    }
  }
  return out;
}

const OPEN: Record<string, string> = { "(": ")", "[": "]", "{": "}" };

/** Index of the token closing the bracket at `open`, or -1. */
function matching(tokens: Token[], open: number): number {
  const stack: string[] = [];
  for (let k = open; k < tokens.length; k++) {
    const t = tokens[k]!.text;
    if (tokens[k]!.kind !== "punct") continue;
    if (OPEN[t]) stack.push(OPEN[t]);
    else if (t === ")" || t === "]" || t === "}") {
      if (stack.pop() !== t) return -1;
      if (stack.length === 0) return k;
    }
  }
  return -1;
}

/** What an argument is, when that is known without evaluating anything that could fail. */
type ArgType = "string" | "other" | "unknown";

const isConstant = (t: Token) => t.kind === "string" || t.kind === "number" || (t.kind === "ident" && ["true", "false", "null"].includes(t.text));

function argType(arg: Token[]): ArgType {
  if (arg.length === 1 && isConstant(arg[0]!)) return arg[0]!.kind === "string" ? "string" : "other";
  if (arg.length === 2 && arg[0]!.text === "-" && arg[1]!.kind === "number") return "other";
  // An array or object literal of constants only (field names allowed): manifests without error.
  const first = arg[0]?.text;
  if ((first === "[" || first === "{") && matching(arg, 0) === arg.length - 1) {
    const inner = arg.slice(1, -1);
    const safe = inner.every((t, k) => isConstant(t) || (t.kind === "punct" && [",", ":", "[", "]", "{", "}"].includes(t.text)) || (t.kind === "ident" && inner[k + 1]?.text === ":"));
    if (safe) return "other";
  }
  return "unknown";
}

/** Names bound by the template itself (local, parameters, for): such a global is not the service's. */
function shadowed(tokens: Token[]): Set<string> {
  const out = new Set<string>();
  const isGlobal = (t: Token | undefined) => t?.kind === "ident" && isGlobalName(t.text);
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (isGlobal(t)) {
      const prev = tokens[k - 1]?.text;
      // `local Body = ...`, `local a = 1, Body = ...`, `for Body in`, `local Body(x) = ...`.
      if (prev === "local" || prev === "for" || tokens[k + 1]?.text === "=") out.add(t.text);
      if (tokens[k + 1]?.text === "(") {
        const close = matching(tokens, k + 1);
        if (close > 0 && tokens[close + 1]?.text === "=") out.add(t.text);
      }
    }
    // Parameter lists: `function(...)`, `local f(...) =`, method fields `f(...): ...`.
    if (t.text === "(" && t.kind === "punct") {
      const close = matching(tokens, k);
      if (close < 0) continue;
      const after = tokens[close + 1]?.text ?? "";
      const isParams = tokens[k - 1]?.text === "function" || ["=", ":", "::", ":::", "+:"].includes(after);
      if (!isParams) continue;
      let depth = 0;
      for (let j = k + 1; j < close; j++) {
        const x = tokens[j]!;
        if (x.kind === "punct" && OPEN[x.text]) depth++;
        else if (x.kind === "punct" && [")", "]", "}"].includes(x.text)) depth--;
        else if (depth === 0 && isGlobal(x) && ["(", ","].includes(tokens[j - 1]!.text)) out.add(x.text);
      }
    }
  }
  return out;
}

function position(src: string, offset: number): { line: number; column: number } {
  const before = src.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - before.lastIndexOf("\n") };
}

/**
 * The calls of the globals in `content` that fail whatever the record, with the service's error.
 * `content` must already compile (engine.compile ok).
 */
export function failingGlobalCalls(engine: JsonnetEngine, content: string): FailingCall[] {
  const tokens = tokenize(content);
  if (!tokens) return [];
  const rebound = shadowed(tokens);
  const found: FailingCall[] = [];
  for (let k = 0; k < tokens.length; k++) {
    const name = tokens[k]!;
    const global = name.text;
    if (name.kind !== "ident" || !isGlobalName(global) || rebound.has(global)) continue;
    if (tokens[k - 1]?.text === "." || tokens[k + 1]?.text !== "(") continue;
    const close = matching(tokens, k + 1);
    if (close < 0) continue;
    // `{ Ip(x): ... }` defines a method field; it calls nothing.
    if ([":", "::", ":::", "+:"].includes(tokens[close + 1]?.text ?? "")) continue;
    const args = splitArgs(tokens.slice(k + 2, close));
    if (!args || !alwaysFails(global, args)) continue;
    // Reproduce the call alone, unknown arguments as null (the failure does not depend on them).
    const text = args.map((a) => (a.name ? `${a.name}=` : "") + (a.type === "unknown" ? "null" : content.slice(a.tokens[0]!.start, a.tokens[a.tokens.length - 1]!.end))).join(", ");
    const result = engine.evaluate(`${global}(${text})`, { ip: "0.0.0.0", body: "", headers: {} });
    if (result.ok) continue;
    found.push({ global, call: content.slice(name.start, tokens[close]!.end), ...position(content, name.start), error: result.error, fix: FIXES[global] });
  }
  return found;
}

interface Arg {
  name?: string;
  tokens: Token[];
  type: ArgType;
}

function splitArgs(inner: Token[]): Arg[] | undefined {
  const parts: Token[][] = [[]];
  let depth = 0;
  for (const t of inner) {
    if (t.kind === "punct" && OPEN[t.text]) depth++;
    if (t.kind === "punct" && (t.text === ")" || t.text === "]" || t.text === "}")) depth--;
    if (depth === 0 && t.text === ",") parts.push([]);
    else parts[parts.length - 1]!.push(t);
  }
  if (parts[parts.length - 1]!.length === 0) parts.pop(); // trailing comma, or no arguments
  const args: Arg[] = [];
  for (const p of parts) {
    if (p.length === 0) return undefined;
    if (p.length >= 2 && p[0]!.kind === "ident" && p[1]!.text === "=") {
      const value = p.slice(2);
      if (value.length === 0) return undefined;
      args.push({ name: p[0]!.text, tokens: value, type: argType(value) });
    } else {
      args.push({ tokens: p, type: argType(p) });
    }
  }
  return args;
}

function alwaysFails(global: Global, args: Arg[]): boolean {
  const params = PARAMS[global];
  const positional = args.filter((a) => !a.name);
  const named = args.filter((a) => a.name);
  if (positional.length > params.length) return true;
  const given = new Set(params.slice(0, positional.length));
  for (const a of named) {
    if (!params.includes(a.name!) || given.has(a.name!)) return true;
    given.add(a.name!);
  }
  // Arity is fine: the first parameter's type decides, if every argument is known to manifest.
  const first = positional[0] ?? named.find((a) => a.name === params[0]);
  if (!first || args.some((a) => a.type === "unknown")) return false;
  if (first.type === "other") return true;
  // A literal Now() format fails or not regardless of the record.
  return global === "Now";
}
