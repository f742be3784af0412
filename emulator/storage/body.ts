import type { Context } from "hono";
import { isRecord, parseJson } from "../../keboola/json";

// Request bodies as PHP sees them: JSON, or form fields (urlencoded or multipart) where
// `a[]=x`, `a[0]=x` and `a[b]=x` build arrays and objects.

export type Body = Record<string, unknown>;

export interface UploadedFile {
  name: string;
  type: string;
  data: Uint8Array;
}

/** Sets `value` at a PHP-style form key such as `rowsSortOrder[]` or `values[0][name]`. */
export function setFormValue(target: Body, key: string, value: unknown): void {
  const m = /^([^[\]]+)((?:\[[^\]]*\])*)$/.exec(key);
  if (!m || !m[2]) {
    target[key] = value;
    return;
  }
  const path = [m[1], ...[...m[2].matchAll(/\[([^\]]*)\]/g)].map((x) => x[1])];
  // A node is an object or an array; either is written by key as PHP does (`[]` appends to a list).
  let node: object = target;
  for (let i = 0; i < path.length; i++) {
    const last = i === path.length - 1;
    const part: PropertyKey = Array.isArray(node) && path[i] === "" ? node.length : path[i];
    if (last) {
      Reflect.set(node, part, value);
      return;
    }
    const nextIsList = path[i + 1] === "" || /^\d+$/.test(path[i + 1]);
    const existing: unknown = Reflect.get(node, part);
    if (typeof existing === "object" && existing !== null) node = existing;
    else {
      const child = nextIsList ? [] : {};
      Reflect.set(node, part, child);
      node = child;
    }
  }
}

/** Parses the body of JSON, urlencoded or multipart requests; files are returned separately. */
export async function readBody(c: Context): Promise<{ body: Body; files: Record<string, UploadedFile> }> {
  const type = (c.req.header("Content-Type") ?? "").toLowerCase();
  const files: Record<string, UploadedFile> = {};
  if (type.includes("application/json")) {
    const text = await c.req.text();
    if (!text.trim()) return { body: {}, files };
    try {
      const parsed = parseJson(text);
      return { body: isRecord(parsed) ? parsed : {}, files };
    } catch {
      throw new InvalidJsonBody();
    }
  }
  const body: Body = {};
  if (type.includes("multipart/form-data")) {
    const form = await c.req.formData();
    for (const [key, value] of form.entries()) {
      if (typeof value === "string") setFormValue(body, key, value);
      else files[key] = { name: value.name, type: value.type, data: new Uint8Array(await value.arrayBuffer()) };
    }
    return { body, files };
  }
  const text = await c.req.text();
  for (const [key, value] of new URLSearchParams(text).entries()) setFormValue(body, key, value);
  return { body, files };
}

/** Query parameters with the same PHP semantics. */
export function readQuery(c: Context): Body {
  const out: Body = {};
  for (const [key, value] of new URL(c.req.url).searchParams.entries()) setFormValue(out, key, value);
  return out;
}

export class InvalidJsonBody extends Error {}

export function str(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return undefined;
}

/** A list parameter given as an array, an index-keyed object, or a comma-separated string. */
export function list(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v)) return v.map((x) => String(x));
  if (typeof v === "object") return Object.values(v).map((x) => String(x));
  if (typeof v === "string") return v === "" ? [] : v.split(",").map((x) => x.trim());
  return [String(v)];
}
