/**
 * The Keboola Stream template globals: Ip, Now, HeaderStr, Header, BodyStr, Body.
 *
 * Facts copied from the real service (keboola/keboola-as-code,
 * internal/pkg/service/stream/mapping/jsonnet/jsonnet.go and its jsonnet_test.go):
 *  - Ip, HeaderStr, BodyStr are native functions bound directly as globals
 *    (`Ip` is `std.native("Ip")`), so they take no parameters.
 *  - Now, Header, Body are jsonnet functions with default arguments calling internal natives:
 *      Now(format="%Y-%m-%dT%H:%M:%S.%fZ")  -> std.native("_now")(format)
 *      Header(header="", default=SENTINEL)  -> if header == "" then std.native("_headersMap")()
 *                                              else std.native("_header")(header, default)
 *      Body(path="", default=SENTINEL)      -> if path == "" then std.native("_bodyMap")()
 *                                              else std.native("_bodyPath")(path, default)
 *    SENTINEL is the string "<<~~errOnUndefined~~>>" (ThrowErrOnUndefined). So Header("") / Body("")
 *    return everything, and passing the sentinel string as default behaves like no default.
 *  - Now(): the record's receive time in UTC, DefaultTimeFormat "%Y-%m-%dT%H:%M:%S.%fZ", %f = 3-digit
 *    milliseconds (lestrrat-go/strftime WithMilliseconds('f')), e.g. "2006-01-01T08:04:05.123Z".
 *    Errors: "parameter must be a string"; `datetime format "<f>" is invalid: <strftime error>`.
 *  - Header(name): name canonicalized with Go http.CanonicalHeaderKey ("x-header" -> "X-Header");
 *    value is the first value of the header. Missing without default: `header "X-Header-3" not found`
 *    (canonical name in the message). Non-string name: "parameter must be a string".
 *  - Header(): object of all headers, canonical names, first values (recordctx headersToMap).
 *  - HeaderStr(): one "Canonical-Name: value\n" line per header, the lines sorted (byte order);
 *    "" when there are no headers. Every line ends with "\n".
 *  - BodyStr(): raw body string. Body(): body parsed by Content-Type (see body.ts); an OTLP record's
 *    map as it is (TemplateContext.bodyMap).
 *  - Body(path): orderedmap GetNested; any lookup failure without default:
 *    `path "foo1.foo2" not found in the body`; non-string path: "first parameter must be a string";
 *    body parse errors pass through, e.g.
 *    "cannot parse request body:\n- unsupported content type \"\", supported types: application/json and application/x-www-form-urlencoded".
 *  - Defaults are returned as given (any JSON value): Body('x', 123) -> 123.
 *  - A native error becomes a jsonnet RuntimeError whose Msg is reported as is (see engine.ts).
 */
import { BodyError, getNested, parseBody, type JsonObject, type JsonValue } from "./body";
import { strftime } from "./strftime";
import { isIP } from "node:net";

export const DEFAULT_TIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ";
export const THROW_ERR_ON_UNDEFINED = "<<~~errOnUndefined~~>>";

/** The global identifiers the service binds (the static check knows exactly these plus std). */
export const TEMPLATE_GLOBALS = ["Ip", "Now", "HeaderStr", "Header", "BodyStr", "Body"] as const;

export interface TemplateContext {
  /** Client IP address (e.g. req.socket.remoteAddress; "::ffff:1.2.3.4" is shown as "1.2.3.4" like Go's net.IP). */
  ip: string;
  /** Raw request body text. */
  body: string;
  /** Request headers, any name case; for repeated headers the first value is used (Go: v[0]). */
  headers: Record<string, string | readonly string[] | undefined>;
  /** Record timestamp, used by Now(); defaults to the evaluation time. */
  now?: Date;
  /**
   * The body already as a map (a flattened OTLP record): Body() reads it whatever the
   * Content-Type (keboola-as-code internal/pkg/service/stream/mapping/recordctx/otlp.go BodyMap).
   */
  bodyMap?: JsonObject;
}

/** An error reported by a global; its message becomes the evaluation error text. */
export class TemplateFunctionError extends Error {}

/** Go textproto.CanonicalMIMEHeaderKey (http.CanonicalHeaderKey). */
export function canonicalHeaderKey(name: string): string {
  for (let i = 0; i < name.length; i++) {
    if (!/[!#$%&'*+\-.^_`|~0-9a-zA-Z]/.test(name[i]!)) return name;
  }
  let upper = true;
  let out = "";
  for (const c of name) {
    out += upper ? c.toUpperCase() : c.toLowerCase();
    upper = c === "-";
  }
  return out;
}

/** Canonical name -> first value, sorted by name (recordctx headersToMap). */
export function headersMap(headers: TemplateContext["headers"]): Record<string, string> {
  const collected = new Map<string, string>();
  for (const [name, raw] of Object.entries(headers)) {
    const value = typeof raw === "string" ? raw : raw?.[0];
    if (value === undefined) continue;
    const key = canonicalHeaderKey(name);
    if (!collected.has(key)) collected.set(key, value);
  }
  const out: Record<string, string> = {};
  for (const key of [...collected.keys()].sort()) {
    Object.defineProperty(out, key, { value: collected.get(key)!, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** recordctx HeadersString: sorted "Name: value\n" lines. */
export function headersString(headers: TemplateContext["headers"]): string {
  return Object.entries(headersMap(headers))
    .map(([k, v]) => `${k}: ${v}\n`)
    .sort()
    .join("");
}

/**
 * Go's net.IP.String() of an address: an IPv4-mapped IPv6 address in its dotted IPv4 form, any
 * other IPv6 address lower-case with its first longest run of zero groups written "::" (RFC 5952,
 * which the URL standard's host serializer follows too); anything else as it is.
 */
export function clientIpString(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  const canonical = new URL(`http://[${ip}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (!mapped) return canonical;
  const [hi, lo] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Per-record lazily computed values, shared by all template columns of one record. */
export class RecordState {
  private headersMapCache?: Record<string, string>;
  private bodyCache?: { ok: true; value: JsonObject } | { ok: false; error: string };
  readonly now: Date;

  constructor(readonly ctx: TemplateContext) {
    this.now = ctx.now ?? new Date();
  }

  headers(): Record<string, string> {
    return (this.headersMapCache ??= headersMap(this.ctx.headers));
  }

  /** recordctx BodyMap: parsed once, errors cached too. */
  bodyMap(): JsonObject {
    if (this.ctx.bodyMap) return this.ctx.bodyMap;
    if (!this.bodyCache) {
      const contentType = Object.prototype.hasOwnProperty.call(this.headers(), "Content-Type") ? this.headers()["Content-Type"]! : "";
      try {
        this.bodyCache = { ok: true, value: parseBody(contentType, this.ctx.body) };
      } catch (e) {
        if (!(e instanceof BodyError)) throw e;
        this.bodyCache = { ok: false, error: e.message };
      }
    }
    if (!this.bodyCache.ok) throw new TemplateFunctionError(this.bodyCache.error);
    return this.bodyCache.value;
  }
}

type NativeImpl = (args: JsonValue[], rec: RecordState) => JsonValue;

interface NativeDef {
  params: string[];
  impl: NativeImpl;
}

function expectArgs(args: JsonValue[], n: number): void {
  if (args.length === n) return;
  if (n === 0) throw new TemplateFunctionError(`no parameter expected, found ${args.length}`);
  if (n === 1) throw new TemplateFunctionError(`one parameter expected, found ${args.length}`);
  throw new TemplateFunctionError(`two parameters expected, found ${args.length}`);
}

/** Native functions, names and parameter names exactly as registered by the service. */
export const NATIVE_FUNCTIONS: Record<string, NativeDef> = {
  Ip: {
    params: [],
    impl: (args, rec) => (expectArgs(args, 0), clientIpString(rec.ctx.ip)),
  },
  HeaderStr: {
    params: [],
    impl: (args, rec) => (expectArgs(args, 0), headersString(rec.ctx.headers)),
  },
  BodyStr: {
    params: [],
    impl: (args, rec) => (expectArgs(args, 0), rec.ctx.body),
  },
  _now: {
    params: ["format"],
    impl: (args, rec) => {
      expectArgs(args, 1);
      const format = args[0];
      if (typeof format !== "string") throw new TemplateFunctionError("parameter must be a string");
      try {
        return strftime(format, rec.now);
      } catch (e) {
        throw new TemplateFunctionError(`datetime format "${format}" is invalid: ${e instanceof Error ? e.message : String(e)}`);
      }
    },
  },
  _headersMap: {
    params: [],
    impl: (args, rec) => (expectArgs(args, 0), rec.headers()),
  },
  _header: {
    params: ["path", "default"],
    impl: (args, rec) => {
      expectArgs(args, 2);
      const [name, defaultValue] = args;
      if (typeof name !== "string") throw new TemplateFunctionError("parameter must be a string");
      const key = canonicalHeaderKey(name);
      const headers = rec.headers();
      if (Object.prototype.hasOwnProperty.call(headers, key)) return headers[key]!;
      if (defaultValue === THROW_ERR_ON_UNDEFINED) throw new TemplateFunctionError(`header "${key}" not found`);
      return defaultValue!;
    },
  },
  _bodyMap: {
    params: [],
    impl: (args, rec) => (expectArgs(args, 0), rec.bodyMap()),
  },
  _bodyPath: {
    params: ["path", "default"],
    impl: (args, rec) => {
      expectArgs(args, 2);
      const [path, defaultValue] = args;
      if (typeof path !== "string") throw new TemplateFunctionError("first parameter must be a string");
      const found = getNested(rec.bodyMap(), path);
      if (found.ok) return found.value;
      if (defaultValue === THROW_ERR_ON_UNDEFINED) throw new TemplateFunctionError(`path "${path}" not found in the body`);
      return defaultValue!;
    },
  },
};

const SENTINEL = JSON.stringify(THROW_ERR_ON_UNDEFINED);

/** Global bindings (jsonnet source), shaped like the service's AST (parameter names matter for named arguments). */
export const GLOBAL_BINDINGS: Record<(typeof TEMPLATE_GLOBALS)[number], string> = {
  Ip: `std.native("Ip")`,
  HeaderStr: `std.native("HeaderStr")`,
  BodyStr: `std.native("BodyStr")`,
  Now: `function(format=${JSON.stringify(DEFAULT_TIME_FORMAT)}) std.native("_now")(format)`,
  Header: `function(header="", default=${SENTINEL}) if "" == header then std.native("_headersMap")() else std.native("_header")(header, default)`,
  Body: `function(path="", default=${SENTINEL}) if "" == path then std.native("_bodyMap")() else std.native("_bodyPath")(path, default)`,
};
