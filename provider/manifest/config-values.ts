import { z } from "zod";
import { isRecord } from "../../keboola/json";
import { isSecretKey } from "../../keboola/secrets";
import { CONFIG_KEYS } from "../config";

// keboola.yaml's `config:` section and the `${name}` it lets entries use, as Pulumi YAML writes
// both (pulumi.com/docs/iac/languages-sdks/yaml/yaml-language-reference: `config:` with `type`,
// `default`, `secret`, and `${name}` interpolation in any string; `$${` is a literal `${`). One
// manifest serves a dev and a prod stack: what differs between them is a value of stack config
// under the deploying project's namespace (`pulumi config set apiBase ...`: `<project>:apiBase`).
//
// Resolution happens on the manifest's data before anything else reads it (parse.ts, through
// file-values.ts, which resolves the text of files read with fn::readFile with the same values),
// so the schema checks, references and each kind's checks see the values the stack will deploy,
// and every problem is reported at the `${name}` that brought the value in.

/** The scalar types of a value, by their Pulumi YAML names (case-insensitive there too). */
const SCALARS = ["string", "integer", "number", "boolean"] as const;
type Scalar = (typeof SCALARS)[number];
export type ValueType = { scalar: Scalar; list: boolean };

const TYPE_PATTERN = /^(?:(string|integer|number|boolean)|list<(string|integer|number|boolean)>)$/i;

/** A value's declared type, or undefined when the text names none. */
export function valueTypeOf(text: string): ValueType | undefined {
  const m = TYPE_PATTERN.exec(text.trim());
  if (!m) return undefined;
  const scalar = SCALARS.find((t) => t === (m[1] ?? m[2]).toLowerCase());
  if (scalar === undefined) return undefined;
  return { scalar, list: m[2] !== undefined };
}

const typeName = (t: ValueType) => (t.list ? `List<${t.scalar}>` : t.scalar);

export const configValueSchema = z
  .object({
    type: z
      .string()
      .refine((t) => valueTypeOf(t) !== undefined, { error: `must be one of ${SCALARS.join(", ")}, or List<...> of one of them (e.g. List<string>)` })
      .describe("The value's type: string, integer, number, boolean, or List<string> (List<integer>, ...)."),
    default: z.unknown().optional().describe("The value when the stack's config has none (of the declared type)."),
    description: z.string().optional().describe("What the value is (for the people setting it per stack)."),
    secret: z.boolean().optional().describe("Set with `pulumi config set --secret`: usable only as the whole value of a `#` key of a configuration, which Keboola stores encrypted."),
  })
  .strict();

/** A value's name: what `${name}` writes and the stack config key under the project's namespace. */
export const configNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must start with a letter or '_' and hold only letters, digits and '_'");

export const configSectionSchema = z
  .record(configNameSchema, configValueSchema, { error: "must be a map of name to value declaration" })
  .optional()
  .describe("Values that differ between stacks (dev, prod): each read from the stack's config under the project's namespace, used in entries as ${name}.");

export type ConfigDeclaration = z.output<typeof configValueSchema>;

/**
 * The stack config a manifest is resolved with: the raw text of `<project>:<name>` (as `pulumi
 * config` stores it) and whether it is a secret. Undefined: the caller has no stack (a new user's
 * `try`, a library call): only defaults resolve.
 */
export interface StackValues {
  /** The namespace values are read from (the Pulumi project's name), for messages. */
  namespace: string;
  get(name: string): { value: string; secret: boolean } | undefined;
}

/** Where a `${name}` of an entry took its value from: what drift and pull tell the user to change. */
export interface ValueOrigin {
  /** Property path in the manifest, e.g. `["configurations", "orders", "configuration", "parameters", "api"]`. */
  path: Array<string | number>;
  names: string[];
  /** The string was exactly `${name}`: the value replaced it whole, with its type. */
  whole: boolean;
}

export interface Resolution {
  /** The manifest's data with every `${name}` replaced (and `$${` unescaped). */
  data: unknown;
  origins: ValueOrigin[];
  /** Secret values used as a configuration's `#` value: moved to its `secrets:` (path -> stack config key). */
  secrets: Array<{ section: "configurations"; key: string; path: string; name: string }>;
  problems: ValueProblem[];
}

export interface ValueProblem {
  path: Array<string | number>;
  message: string;
  /** Where in the string at `path` the `${name}` at fault is written (a file's text is located by it). */
  offset?: number;
}

/**
 * A manifest's values, declared and read once, to resolve its strings with: `resolve` each part of
 * the manifest (the entries, then what fn::readFile brought in, which is read only once the paths
 * are resolved), then `settle` the whole.
 */
export interface ConfigValues {
  /** `value` with every `${name}` replaced; `path` is where it sits in the manifest. */
  resolve(value: unknown, path: Array<string | number>): unknown;
  /** Whether resolving found a problem at `path` (its value is left as written). */
  failedAt(path: ReadonlyArray<string | number>): boolean;
  /** The resolution of `data`, the manifest with its entries resolved: secret values moved to their entries' `secrets:`. */
  settle(data: Record<string, unknown>): Resolution;
}

/** Names the provider reads under `keboola:` besides its settings (stack config of the manifest program). */
const RESERVED = ["manifest", "branch"];

const TEMPLATE = /\$\$\{|\$\{([^}]*)\}/g;

/** The manifest with its entries resolved (every section but `config`, which declares the values). */
export function resolveEntries(data: Record<string, unknown>, values: ConfigValues): Record<string, unknown> {
  return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, k === "config" ? v : values.resolve(v, [k])]));
}

/** The values `data`'s `config:` declares, each read from the stack (or its default) and checked once. */
export function configValues(data: Record<string, unknown>, stack: StackValues | undefined): ConfigValues {
  const out: Resolution = { data, origins: [], secrets: [], problems: [] };
  const declared = isRecord(data.config) ? data.config : {};
  const values = new Map<string, { ok: true; value: unknown; secret: boolean } | { ok: false }>();

  // Each declaration checked once, and its value read and typed once.
  for (const [name, decl] of Object.entries(declared)) {
    if (!isRecord(decl)) continue; // the schema reports it
    const type = typeof decl.type === "string" ? valueTypeOf(decl.type) : undefined;
    const secret = decl.secret === true;
    if (name in CONFIG_KEYS || RESERVED.includes(name)) {
      out.problems.push({ path: ["config", name], message: `"${name}" is a setting of the provider (keboola:${name}): in a project named keboola the two would be one stack config key; name the value otherwise` });
      values.set(name, { ok: false });
      continue;
    }
    if (!type) {
      values.set(name, { ok: false });
      continue;
    }
    if (secret && (type.list || type.scalar !== "string")) {
      out.problems.push({ path: ["config", name, "type"], message: "a secret value is a string (it becomes a configuration's # value): declare type: string" });
    }
    if (decl.default !== undefined) {
      const bad = typeProblem(decl.default, type);
      if (bad) out.problems.push({ path: ["config", name, "default"], message: `the default ${bad}` });
      if (secret) out.problems.push({ path: ["config", name, "default"], message: "a secret has no default in the manifest (it would be committed in plain text): remove it and set it per stack with pulumi config set --secret" });
    }
    const set = stack?.get(name);
    if (set === undefined) {
      values.set(name, decl.default !== undefined ? { ok: true, value: decl.default, secret } : { ok: false });
      continue;
    }
    const parsed = parseAs(set.value, type);
    if ("problem" in parsed) {
      out.problems.push({ path: ["config", name], message: `stack config ${stack?.namespace}:${name} ${parsed.problem}: set it with pulumi config set ${name} <${typeName(type)}>` });
      values.set(name, { ok: false });
    } else {
      values.set(name, { ok: true, value: parsed.value, secret: secret || set.secret });
    }
  }

  const missing = (name: string) => {
    const where = stack ? `stack config ${stack.namespace}:${name} is not set` : "no stack config is read here";
    return `\${${name}} has no value: ${where} and config.${name} gives no default; run pulumi config set ${name} <value>${isRecord(declared[name]) && declared[name].secret === true ? " --secret" : ""}, or add a default`;
  };

  const walk = (v: unknown, path: Array<string | number>): unknown => {
    if (Array.isArray(v)) return v.map((x, i) => walk(x, [...path, i]));
    if (isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, [...path, k])]));
    if (typeof v !== "string" || !v.includes("${")) return v;
    const names: string[] = [];
    const whole = /^\$\{([^}]*)\}$/.exec(v);
    const use = (name: string, offset: number): { value: unknown; secret: boolean } | undefined => {
      names.push(name);
      if (!Object.hasOwn(declared, name)) {
        const known = Object.keys(declared);
        out.problems.push({ path, offset, message: `\${${name}} is not declared: add it under config: (config: { ${name}: { type: string } })${known.length ? `, or use one of: ${known.join(", ")}` : ""}` });
        return undefined;
      }
      const value = values.get(name);
      if (!value) return undefined; // its declaration is reported
      if (!value.ok) {
        if (!out.problems.some((p) => p.path.join("\0") === ["config", name].join("\0"))) out.problems.push({ path, offset, message: missing(name) });
        return undefined;
      }
      return value;
    };
    if (whole) {
      const value = use(whole[1], 0);
      out.origins.push({ path, names, whole: true });
      if (!value) return v;
      if (value.secret) return secretUse(path, whole[1], v);
      return value.value;
    }
    const text = v.replace(TEMPLATE, (m: string, name: string | undefined, offset: number) => {
      if (name === undefined) return "${";
      const value = use(name, offset);
      if (!value) return m;
      if (value.secret) {
        out.problems.push({ path, offset, message: `\${${name}} is a secret: use it as the whole value of a # key of a configuration (Keboola encrypts it), never inside another string, which would be stored in plain text` });
        return m;
      }
      if (Array.isArray(value.value)) {
        out.problems.push({ path, offset, message: `\${${name}} is a list: use it as a whole value ("\${${name}}"), not inside a string` });
        return m;
      }
      return String(value.value);
    });
    if (names.length) out.origins.push({ path, names, whole: false });
    return text;
  };

  // A secret value stays out of the data: a configuration's `#` value moves to its `secrets:`,
  // which the program reads with requireSecret (kinds/component-config/declare.ts); anywhere else
  // it would be stored in plain text, and is refused.
  const secretUse = (path: Array<string | number>, name: string, written: string): unknown => {
    const [section, key, ...rest] = path;
    const inDocument = rest[0] === "configuration" || (rest[0] === "rows" && rest[2] === "configuration");
    if (section === "configurations" && typeof key === "string" && inDocument && isSecretKey(String(rest[rest.length - 1]))) {
      out.secrets.push({ section: "configurations", key, path: rest.join("."), name });
      return undefined;
    }
    out.problems.push({ path, message: `\${${name}} is a secret, and ${String(path[path.length - 1])} is not a # key of a configuration: it would be stored in plain text; use it as a "#..." value of a configuration or row, or declare the value without secret: true` });
    return written;
  };

  return {
    resolve: walk,
    failedAt: (path) => out.problems.some((p) => p.path.length === path.length && p.path.every((seg, i) => seg === path[i])),
    settle: (resolved) => {
      // Each moved secret: removed from the document, named in the entry's secrets.
      for (const s of out.secrets) {
        const entry = isRecord(resolved.configurations) ? resolved.configurations[s.key] : undefined;
        if (!isRecord(entry)) continue;
        removeAt(entry, s.path.split("."));
        entry.secrets = { ...(isRecord(entry.secrets) ? entry.secrets : {}), [s.path]: s.name };
      }
      return { ...out, data: resolved };
    },
  };
}

/** Deletes the value at a dotted path (undefined left by resolution). */
function removeAt(obj: Record<string, unknown>, keys: string[]): void {
  let o: unknown = obj;
  for (const k of keys.slice(0, -1)) o = isRecord(o) ? o[k] : Array.isArray(o) ? o[Number(k)] : undefined;
  if (isRecord(o)) delete o[keys[keys.length - 1]];
}

/** A stack config text as the declared type (`pulumi config set` stores text; lists as JSON). */
function parseAs(text: string, type: ValueType): { value: unknown } | { problem: string } {
  if (type.list) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return { problem: `is ${JSON.stringify(text)}, not a JSON list` };
    }
    const bad = typeProblem(value, type);
    return bad ? { problem: bad } : { value };
  }
  if (type.scalar === "string") return { value: text };
  if (type.scalar === "boolean") return text === "true" || text === "false" ? { value: text === "true" } : { problem: `is ${JSON.stringify(text)}, not true or false` };
  const n = text.trim() === "" ? NaN : Number(text);
  if (!Number.isFinite(n)) return { problem: `is ${JSON.stringify(text)}, not a number` };
  if (type.scalar === "integer" && !Number.isInteger(n)) return { problem: `is ${text}, not a whole number` };
  return { value: n };
}

/** Why a value (a default, a parsed list) is not of the type; undefined when it is. */
function typeProblem(value: unknown, type: ValueType): string | undefined {
  const scalarOk = (v: unknown) =>
    type.scalar === "string" ? typeof v === "string" : type.scalar === "boolean" ? typeof v === "boolean" : typeof v === "number" && Number.isFinite(v) && (type.scalar === "number" || Number.isInteger(v));
  if (type.list) {
    if (!Array.isArray(value)) return `is ${JSON.stringify(value)}, not a list (${typeName(type)})`;
    const i = value.findIndex((v) => !scalarOk(v));
    return i < 0 ? undefined : `has ${JSON.stringify(value[i])} at [${i}], not a ${type.scalar}`;
  }
  return scalarOk(value) ? undefined : `is ${JSON.stringify(value)}, not a ${type.scalar}`;
}

/** A string as the manifest writes it literally: `${` escaped as `$${` (what export and pull write). */
export function escapeTemplates(value: unknown): unknown {
  const walk = (v: unknown): unknown => {
    // (a function: in a replacement string "$$" would write one "$")
    if (typeof v === "string") return v.replaceAll("${", () => "$${");
    if (Array.isArray(v)) return v.map(walk);
    if (isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value);
}
