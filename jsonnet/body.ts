/**
 * Request-body helpers with the Keboola Stream service's semantics, used by the
 * template globals Body()/Body(path) (and usable by path columns, which share them).
 *
 * Sources (keboola/keboola-as-code):
 *  - internal/pkg/service/stream/mapping/recordctx/utils.go parseBody: the body is parsed by the
 *    Content-Type header: form if it starts with "application/x-www-form-urlencoded", JSON if it
 *    matches ^application/([a-zA-Z0-9.\-]+\+)?json$ (exact match: "application/json; charset=utf-8"
 *    is NOT JSON and fails as an unsupported type), else the error
 *    `unsupported content type "<ct>", supported types: application/json and application/x-www-form-urlencoded`.
 *    The JSON body must be an object (it is decoded into an ordered map).
 *  - recordctx/http.go + fasthttp.go BodyMap: parse errors are prefixed "cannot parse request body"
 *    (utils/errors PrefixError renders "cannot parse request body:\n- <error>").
 *  - internal/pkg/utils/url/url.go ParseQuery: form bodies, "a[b]=1" nests, "a[0]=1" indexes,
 *    "a[]=1&a[]=2" appends; all values are strings.
 *  - github.com/keboola/go-utils v1.4.0 pkg/orderedmap path.go PathFromStr + orderedmap.go GetNestedPath:
 *    the path "a.b[1].c" is split on "." and "["; a part "<digits>]" is an array index.
 */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export type PathStep = { key: string } | { index: number };

export class BodyError extends Error {}

export const UNSUPPORTED_CONTENT_TYPE = (contentType: string) =>
  `unsupported content type "${contentType}", supported types: application/json and application/x-www-form-urlencoded`;

export function isContentTypeJSON(contentType: string): boolean {
  return /^application\/([a-zA-Z0-9.-]+\+)?json$/.test(contentType);
}

export function isContentTypeForm(contentType: string): boolean {
  return contentType.startsWith("application/x-www-form-urlencoded");
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function setKey(obj: JsonObject, key: string, value: JsonValue): void {
  // defineProperty: "__proto__" is an ordinary key here, as in Go.
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

function hasKey(obj: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** Go %T names of the values the service can meet, used in its error texts. */
function goTypeName(v: unknown): string {
  if (Array.isArray(v)) return "[]interface {}";
  if (isObject(v)) return "*orderedmap.OrderedMap";
  if (typeof v === "string") return "string";
  if (typeof v === "number") return "float64";
  if (typeof v === "boolean") return "bool";
  return "<nil>";
}

/** orderedmap.PathFromStr */
export function pathFromStr(path: string): PathStep[] {
  return path
    .split(/[.[]/)
    .filter((part) => part !== "")
    .map((part) => {
      const m = /^(\d+)\]$/.exec(part);
      return m ? { index: Number(m[1]) } : { key: part };
    });
}

/** orderedmap.Path.String() */
export function pathToString(path: PathStep[]): string {
  return path.map((s) => ("key" in s ? s.key : `[${s.index}]`)).join(".").replaceAll(".[", "[");
}

/**
 * orderedmap.GetNested: returns {found: true, value} or {found: false, error}. The service treats any
 * error (missing key, index out of range, wrong container type, empty path) as "not found".
 */
export function getNested(root: JsonObject, path: string): { ok: true; value: JsonValue } | { ok: false; error: string } {
  const steps = pathFromStr(path);
  if (steps.length === 0) return { ok: false, error: "path cannot be empty" };
  let current: JsonValue = root;
  const done: PathStep[] = [];
  for (const step of steps) {
    done.push(step);
    if ("key" in step) {
      if (!isObject(current)) {
        return { ok: false, error: `path "${pathToString(done.slice(0, -1))}": expected object found "${goTypeName(current)}"` };
      }
      if (!hasKey(current, step.key)) return { ok: false, error: `path "${pathToString(done)}" not found` };
      current = current[step.key]!;
    } else {
      if (!Array.isArray(current)) {
        return { ok: false, error: `path "${pathToString(done.slice(0, -1))}": expected array found "${goTypeName(current)}"` };
      }
      if (step.index >= current.length) return { ok: false, error: `path "${pathToString(done)}" not found` };
      current = current[step.index]!;
    }
  }
  return { ok: true, value: current };
}

/** orderedmap.SetNestedPath (used by the form parser). */
function setNestedPath(root: JsonObject, path: PathStep[], value: JsonValue): void {
  if (path.length === 0) throw new BodyError("path cannot be empty");
  const newContainer = (next: PathStep): JsonValue => ("index" in next ? [] : Object.create(null));
  let current: JsonValue = root;
  for (let i = 0; i < path.length; i++) {
    const step = path[i]!;
    const last = i === path.length - 1;
    const sofar = pathToString(path.slice(0, i + 1));
    if ("key" in step) {
      if (!isObject(current)) throw new BodyError(`path "${sofar}": expected object found "${goTypeName(current)}"`);
      if (last) {
        setKey(current, step.key, value);
        return;
      }
      if (!hasKey(current, step.key)) setKey(current, step.key, newContainer(path[i + 1]!));
      current = current[step.key]!;
    } else {
      if (!Array.isArray(current)) throw new BodyError(`path "${sofar}": expected array found "${goTypeName(current)}"`);
      while (current.length < step.index) current.push(null);
      if (last) {
        current[step.index] = value;
        return;
      }
      if (step.index >= current.length) current[step.index] = newContainer(path[i + 1]!);
      current = current[step.index]!;
    }
  }
}

/** Go url.QueryUnescape */
function queryUnescape(s: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "%") {
      const hex = s.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) {
        throw new BodyError(`invalid URL escape "${s.slice(i, i + 3)}"`);
      }
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else if (c === "+") {
      bytes.push(0x20);
    } else {
      bytes.push(...Buffer.from(c, "utf8"));
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

/** utils/url parseKey: "a[b][0][]" -> path + append flag. */
function parseFormKey(key: string): { path: PathStep[]; append: boolean } {
  const parts = key.split("[").filter((p) => p !== "");
  const path: PathStep[] = [];
  for (let i = 0; i < parts.length; i++) {
    let part = parts[i]!;
    if (i === 0) {
      path.push({ key: part });
      continue;
    }
    if (!part.endsWith("]")) throw new BodyError(`Unable to parse key "${key}"`);
    part = part.slice(0, -1);
    if (part === "") {
      if (i === parts.length - 1) return { path, append: true };
      throw new BodyError(`Unable to parse key "${key}"`);
    }
    path.push(/^[+-]?\d+$/.test(part) && Number.isSafeInteger(Number(part)) ? { index: Number(part) } : { key: part });
  }
  return { path, append: false };
}

/** utils/url ParseQuery */
export function parseQuery(query: string): JsonObject {
  const out: JsonObject = Object.create(null);
  let pendingErr: string | undefined;
  for (const pair of query.split("&")) {
    if (pair.includes(";")) {
      // Go sets err and continues; a later pair overwrites err (quirk kept).
      pendingErr = "invalid semicolon separator in query";
      continue;
    }
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const key = queryUnescape(eq < 0 ? pair : pair.slice(0, eq));
    const value = queryUnescape(eq < 0 ? "" : pair.slice(eq + 1));
    pendingErr = undefined;
    const { path, append } = parseFormKey(key);
    if (path.some((s) => "index" in s && s.index < 0)) throw new BodyError(`path "${pathToString(path)}": array key can't be negative`);
    if (append) {
      const existing = getNested(out, pathToString(path));
      if (!existing.ok) {
        setNestedPath(out, path, [value]);
      } else if (Array.isArray(existing.value)) {
        existing.value.push(value);
      } else {
        throw new BodyError("invalid square brackets in query");
      }
      continue;
    }
    setNestedPath(out, path, value);
  }
  if (pendingErr) throw new BodyError(pendingErr);
  return out;
}

/**
 * recordctx parseBody + the "cannot parse request body" prefix. Throws BodyError with the service's text.
 * Invalid JSON: the service's message comes from json-iterator; ours comes from JSON.parse (same prefix).
 */
export function parseBody(contentType: string, body: string): JsonObject {
  const fail = (msg: string): never => {
    throw new BodyError(`cannot parse request body:\n- ${msg}`);
  };
  if (isContentTypeForm(contentType)) {
    try {
      return parseQuery(body);
    } catch (e) {
      return fail(`invalid form data: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  if (isContentTypeJSON(contentType)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch (e) {
      return fail(`invalid JSON: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (!isObject(parsed)) {
      return fail(`invalid JSON: cannot unmarshal ${Array.isArray(parsed) ? "array" : parsed === null ? "null" : typeof parsed} into an object`);
    }
    return parsed;
  }
  return fail(UNSUPPORTED_CONTENT_TYPE(contentType));
}
