import * as fs from "node:fs";
import { isMap, isNode, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document } from "yaml";
import type { z } from "zod";
import { pathOf } from "../validation/paths";
import { schemaDef, type Schema } from "../validation/schema-def";
import { isRecord } from "../../keboola/json";
import { isEncrypted, passesUnencrypted, secretLeaves } from "../../keboola/secrets";
import { manifestSchema, REFERENCES, type Manifest } from "./schema";
import { SECTIONS } from "./sections";
import type { StackValues, ValueOrigin } from "./config-values";
import { lineColumn, placeInFile, READ_FILE, resolveManifestValues, type FileRead } from "./file-values";
import { dependsOnCircle, entryKeys, splitOptions, type EntryOptions } from "./entry-options";

// Reading keboola.yaml: YAML with positions (the `yaml` package keeps every node's offset), the
// manifest schema, the references between entries, and each entry against its resource's full
// schema. Every problem names the file, line and column, the property path and the fix; all
// problems are collected before anything is deployed.

export interface ManifestProblem {
  file: string;
  line: number;
  column: number;
  /** Property path in the manifest, e.g. `sinks.actions.columns[2].name`. */
  path: string;
  message: string;
}

export class ManifestError extends Error {
  override readonly name = "ManifestError";
  constructor(readonly problems: ManifestProblem[]) {
    super(
      `${problems.length === 1 ? "1 problem" : `${problems.length} problems`} in the manifest, nothing was deployed:\n` +
        problems.map((p) => `  ${p.file}:${p.line}:${p.column}: ${p.path ? `${p.path}: ` : ""}${p.message}`).join("\n"),
    );
  }
}

type Path = ReadonlyArray<PropertyKey>;

/** What a manifest is read with: the stack config its `${name}` values come from (none: only defaults resolve). */
export interface ReadOptions {
  stack?: StackValues;
}

/** A manifest read, with where its values came from and its entries' options (drift and pull report by them). */
export interface ReadManifest {
  manifest: Manifest;
  /** Where a `${name}` brought a value in. */
  origins: ValueOrigin[];
  /** The entries' `options:`, by `section/key`. */
  options: Map<string, EntryOptions>;
  /** The values read from files (fn::readFile). */
  files: FileRead[];
}

/** Reads and checks a manifest file; throws ManifestError listing every problem. */
export function loadManifest(file: string, options: ReadOptions = {}): Manifest {
  return readManifestFile(file, options).manifest;
}

/** loadManifest, with the values' origins and the entries' options. */
export function readManifestFile(file: string, options: ReadOptions = {}): ReadManifest {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    const why = isRecord(err) && err.code === "ENOENT" ? "the file does not exist" : err instanceof Error ? err.message : String(err);
    throw new ManifestError([
      { file, line: 1, column: 1, path: "", message: `cannot read the manifest: ${why}. Create it, or point stack config keboola:manifest at it (pulumi config set keboola:manifest <path>)` },
    ]);
  }
  return readManifest(text, file, options);
}

/** Parses manifest text; `file` is only used in messages. */
export function parseManifest(text: string, file = "keboola.yaml", options: ReadOptions = {}): Manifest {
  return readManifest(text, file, options).manifest;
}

/** parseManifest, with the values' origins and the entries' options. */
export function readManifest(text: string, file = "keboola.yaml", options: ReadOptions = {}): ReadManifest {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const problems: ManifestProblem[] = [];
  // Values standing in for files that could not be read: what the checks below say of them is noise.
  let stoodIn: Path[] = [];
  const at = (offset: number, path: Path, message: string) => {
    if (stoodIn.some((p) => p.every((seg, i) => String(seg) === String(path[i])))) return;
    const { line, col } = lineCounter.linePos(offset);
    problems.push({ file, line, column: col, path: pathOf(path), message });
  };

  for (const err of doc.errors) {
    const path = pathAtOffset(doc, err.pos[0]);
    if (err.code === "DUPLICATE_KEY") {
      const name = String(path[path.length - 1] ?? text.slice(err.pos[0], err.pos[1]));
      const first = firstKeyOffset(doc, path.slice(0, -1), name);
      const where = first === undefined ? "" : ` (first at line ${lineCounter.linePos(first).line})`;
      at(err.pos[0], path.slice(0, -1), `duplicate key "${name}"${where}: each key may appear once; rename one or merge them`);
    } else {
      at(err.pos[0], path, `YAML syntax: ${err.message.split("\n")[0]}`);
    }
  }
  if (problems.length) throw new ManifestError(sorted(problems, file));

  // `${name}` values and files first: everything below sees what the stack deploys, and a problem
  // of a value is reported where the manifest (or the file it reads) uses or declares it.
  const { resolution, files, problems: fileProblems } = resolveManifestValues(doc.toJS() ?? {}, options.stack, file);
  const inFile = (place: { read: FileRead; offset: number }, path: Path, message: string) => {
    const { line, column } = lineColumn(place.read.text, place.offset);
    const where = lineCounter.linePos(offsetOf(doc, [...place.read.path, READ_FILE]));
    problems.push({ file: place.read.shown, line, column, path: pathOf(path), message: `${message} (${READ_FILE} at ${file}:${where.line}:${where.col})` });
  };
  for (const p of resolution.problems) {
    const place = placeInFile(files, p.path, p.offset);
    if (place) inFile(place, p.path, p.message);
    else at(offsetOf(doc, p.path), p.path, p.message);
  }
  for (const p of fileProblems) {
    if (p.inFile) inFile(p.inFile, p.path, p.message);
    else at(offsetOf(doc, [...p.path, READ_FILE]), p.path, p.message);
  }
  stoodIn = fileProblems.flatMap((p) => (p.inFile ? [] : [p.path]));
  const data = resolution.data;
  const parsed = manifestSchema.safeParse(data);
  if (!parsed.success) for (const issue of parsed.error.issues) report(doc, issue, [], at);

  // References, on the data as written, so they are reported together with the schema's problems.
  const raw = isRecord(data) ? data : {};
  const sectionOf = (name: string): Record<string, unknown> => {
    const v = raw[name];
    return isRecord(v) ? v : {};
  };
  for (const ref of REFERENCES) {
    const targets = Object.keys(sectionOf(ref.target));
    for (const [key, entry] of Object.entries(sectionOf(ref.section))) {
      const fields = isRecord(entry) ? entry : {};
      const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
      const holders: Array<[Path, unknown]> = ref.inRows
        ? list(fields.rows).map((row: unknown, i: number): [Path, unknown] => [[ref.section, key, "rows", i, ref.field], isRecord(row) ? row[ref.field] : undefined])
        : ref.inTasks
          ? list(fields.phases).flatMap((phase: unknown, i: number) =>
              list(isRecord(phase) ? phase.tasks : undefined).map((task: unknown, j: number): [Path, unknown] => [[ref.section, key, "phases", i, "tasks", j, ref.field], isRecord(task) ? task[ref.field] : undefined]),
            )
          : [[[ref.section, key, ref.field], fields[ref.field]]];
      for (const [path, name] of holders) {
        if (typeof name !== "string" || targets.includes(name)) continue;
        const choice = targets.length ? `one of: ${targets.join(", ")}` : `none is declared: add it under ${ref.target}`;
        at(offsetOf(doc, path), path, `"${name}" is not a key under ${ref.target} (${choice}): name an entry of ${ref.target}`);
      }
    }
  }
  checkOptions(doc, raw, at);
  if (!parsed.success || problems.length) throw new ManifestError(sorted(problems, file));
  const { manifest, options: entryOptions } = splitOptions(parsed.data);

  // A secret of a row must name a row that exists.
  for (const [key, entry] of Object.entries(manifest.configurations ?? {})) {
    for (const secretPath of Object.keys(entry.secrets ?? {})) {
      const row = /^rows\.(\d+)\./.exec(secretPath);
      if (row && Number(row[1]) >= entry.rows.length) {
        const path = ["configurations", key, "secrets", secretPath];
        at(keyOffset(doc, path) ?? offsetOf(doc, path), path, `rows.${row[1]} does not exist (the configuration has ${entry.rows.length} row(s), counted from 0): fix the row number`);
      }
    }
  }

  // A secret written in plain text in the file is refused (it would be committed); a ciphertext
  // (what export writes) stays as it is, and so do empty values and {{variable}} placeholders.
  for (const [key, entry] of Object.entries(manifest.configurations ?? {})) {
    const documents: Array<[Path, unknown]> = [[["configuration"], entry.configuration], ...entry.rows.map((r, i): [Path, unknown] => [["rows", i, "configuration"], r.configuration])];
    for (const [prefix, document] of documents) {
      for (const leaf of secretLeaves(document)) {
        if (isEncrypted(leaf.value) || passesUnencrypted(leaf.value)) continue;
        const path = ["configurations", key, ...prefix, ...leaf.path];
        const secretPath = [...prefix, ...leaf.path].join(".");
        at(
          offsetOf(doc, path),
          path,
          `a secret in plain text: remove the value and name a stack config key under secrets (secrets: { ${JSON.stringify(secretPath)}: <key> }, then pulumi config set --secret <key> <value>); a KBC::...Secure:: ciphertext, as export writes it, may stay`,
        );
      }
    }
  }

  // Each entry against its resource's complete schema (refinements included); references
  // stand in with a placeholder, so only the entry's own fields can fail here.
  const sections: Record<string, unknown> = manifest;
  for (const section of SECTIONS) {
    const entries = sections[section.name];
    for (const [key, entry] of Object.entries(isRecord(entries) ? entries : {})) {
      if (!isRecord(entry)) continue;
      for (const { schema, toInputs } of section.checks) {
        const result = schema.safeParse(toInputs(entry));
        if (!result.success) for (const issue of result.error.issues) report(doc, issue, [section.name, key], at);
      }
    }
  }
  if (problems.length) throw new ManifestError(sorted(problems, file));
  // The entries keep their `options` (declareManifest splits them again; a caller may declare a parsed manifest).
  return { manifest: parsed.data, origins: resolution.origins, options: entryOptions, files };
}

/** `options:` of every entry: dependsOn names entries that exist (no circle), ignoreChanges paths the entry has. */
function checkOptions(doc: Document, raw: Record<string, unknown>, at: (offset: number, path: Path, message: string) => void): void {
  const keys = entryKeys(raw);
  const edges = new Map<string, string[]>();
  for (const section of SECTIONS) {
    const entries = raw[section.name];
    for (const [key, entry] of Object.entries(isRecord(entries) ? entries : {})) {
      const opts = isRecord(entry) && isRecord(entry.options) ? entry.options : undefined;
      if (!opts) continue;
      const me = `${section.name}/${key}`;
      (Array.isArray(opts.dependsOn) ? opts.dependsOn : []).forEach((name: unknown, i: number) => {
        if (typeof name !== "string") return;
        const path = [section.name, key, "options", "dependsOn", i];
        const target = keys.get(name);
        if (target === undefined) {
          const where = [...keys.keys()].filter((k) => k.endsWith(`.${name}`));
          at(offsetOf(doc, path), path, where.length > 1 ? `"${name}" is a key in several sections: write ${where.join(" or ")}` : `"${name}" is not the key of an entry: name one of: ${[...keys.keys()].filter((k) => !k.includes(".")).join(", ")}`);
        } else if (target === me) {
          at(offsetOf(doc, path), path, "an entry cannot depend on itself: remove it");
        } else {
          edges.set(me, [...(edges.get(me) ?? []), target]);
        }
      });
      (Array.isArray(opts.ignoreChanges) ? opts.ignoreChanges : []).forEach((p: unknown, i: number) => {
        if (typeof p !== "string") return;
        const path = [section.name, key, "options", "ignoreChanges", i];
        const problem = ignorePathProblem([section.name, key], p);
        if (problem) at(offsetOf(doc, path), path, problem);
      });
    }
  }
  const circle = dependsOnCircle(edges);
  if (circle) {
    const [section, key] = circle[0].split("/");
    const path = [section, key, "options", "dependsOn"];
    at(offsetOf(doc, path), path, `dependsOn runs in a circle: ${circle.join(" -> ")}; remove one of them`);
  }
}

/** Why an ignoreChanges path is not one of the entry's properties (undefined when it is): its steps walk the entry's schema, free-form values (a configuration) taking any path below. */
function ignorePathProblem(entryPath: Path, text: string): string | undefined {
  const steps = text.split(/\.|\[(\d+|\*)\]/).filter((s) => s !== undefined && s !== "");
  if (steps[0] === "options") return "options cannot be ignored: name a property of the entry";
  let schema: Schema | undefined = manifestSchema;
  for (const seg of entryPath) schema = child(schema, seg);
  for (const [i, step] of steps.entries()) {
    const d = defOf(unwrap(schema));
    if (!d || ["unknown", "any", "json"].includes(d.type) || (d.type === "record" && isFreeForm(d.valueType))) return undefined;
    const next = child(schema, /^\d+$|^\*$/.test(step) ? 0 : step);
    if (next === undefined) {
      const keys = objectKeys(schema);
      return `"${text}": ${steps.slice(0, i + 1).join(".")} is not a property of this entry${keys ? `; it has: ${keys.filter((k) => k !== "options").join(", ")}` : ""}`;
    }
    schema = next;
  }
  return undefined;
}

const isFreeForm = (schema: Schema | undefined): boolean => {
  const d = defOf(unwrap(schema));
  return !d || ["unknown", "any"].includes(d.type);
};

/** Issue of a resource schema, reported at the manifest path `prefix + issue.path`. */
function report(doc: Document, issue: z.core.$ZodIssue, prefix: Path, at: (offset: number, path: Path, message: string) => void): void {
  const path = [...prefix, ...issue.path];
  // A schedule's target fields are written flat in its entry.
  if (prefix.length === 2 && prefix[0] === "schedules" && issue.path[0] === "target") path.splice(2, 1);
  if (prefix.length === 2 && prefix[0] === "sources" && issue.path.length && ["stagingUploadTrigger", "targetImportTrigger", "syncWait"].includes(String(issue.path[0]))) {
    path.splice(2, 0, "settings");
  }
  if (issue.code === "unrecognized_keys") {
    for (const key of issue.keys) {
      const keyPath = [...path, key];
      at(keyOffset(doc, keyPath) ?? offsetOf(doc, path), keyPath, `unknown key "${key}": remove it${suggest(path)}`);
    }
    return;
  }
  const located = locate(doc, path);
  let message = issue.message;
  if (issue.code === "invalid_type") {
    if (!located.complete) message = `required: add ${String(path[path.length - 1])} (${issue.expected})`;
    else message = `${message}: write ${YAML_KINDS[issue.expected] ?? `a value of type ${issue.expected}`}`;
  }
  at(located.offset, path, message);
}

/** How to write each expected type in YAML. */
const YAML_KINDS: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  object: "a map (key: value)",
  record: "a map of keys to entries",
  array: "a list (- item)",
};

/** ", or use one of: a, b" with the keys the schema allows at `path`. */
function suggest(path: Path): string {
  let schema: Schema | undefined = manifestSchema;
  for (const seg of path) schema = child(schema, seg);
  const keys = objectKeys(schema);
  return keys ? `, or use one of: ${keys.join(", ")}` : "";
}

const defOf = (schema: Schema | undefined) => (schema ? schemaDef(schema) : undefined);

/**
 * The default the manifest's schema fills in for the value at `path` (list items at any index), or
 * undefined where it fills in none: what `pull` leaves unwritten, as an author leaves it.
 */
export function manifestDefaultAt(path: ReadonlyArray<PropertyKey>): { value: unknown } | undefined {
  let schema: Schema | undefined = manifestSchema;
  for (const seg of path) schema = child(schema, seg);
  for (let d = defOf(schema); d && ["optional", "default", "nullable", "prefault"].includes(d.type); d = defOf(schema)) {
    if (d.type === "default") return { value: d.defaultValue };
    schema = d.innerType;
  }
  return undefined;
}

/** Past wrappers (optional, default, nullable, pipe) to the schema that holds the value. */
function unwrap(schema: Schema | undefined): Schema | undefined {
  for (let d = defOf(schema); d && ["optional", "default", "nullable", "pipe", "prefault"].includes(d.type); d = defOf(schema)) {
    schema = d.type === "pipe" ? d.in : d.innerType;
  }
  return schema;
}

function child(schema: Schema | undefined, seg: PropertyKey): Schema | undefined {
  const d = defOf(unwrap(schema));
  if (d?.type === "union") return (d.options ?? []).map((o) => child(o, seg)).find((c) => c !== undefined);
  if (d?.type === "object") return d.shape?.[String(seg)];
  if (d?.type === "array") return d.element;
  if (d?.type === "record") return d.valueType;
  return undefined;
}

/** The keys an object schema allows (of every option of a union), in order, each once. */
function objectKeys(schema: Schema | undefined): string[] | undefined {
  const d = defOf(unwrap(schema));
  if (d?.type === "union") {
    // e.g. a column: the keys of every kind of column
    const options = (d.options ?? []).map(objectKeys).filter((x): x is string[] => x !== undefined);
    return options.length ? [...new Set(options.flat())] : undefined;
  }
  return d?.type === "object" && d.shape ? Object.keys(d.shape) : undefined;
}

/** Offset of the node at `path`, or of its deepest existing ancestor. */
function locate(doc: Document, path: Path): { offset: number; complete: boolean } {
  let node: unknown = doc.contents;
  let offset = rangeStart(node) ?? 0;
  for (const seg of path) {
    let next: unknown;
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
      next = pair?.value ?? undefined;
      if (pair && next === undefined) return { offset: rangeStart(pair.key) ?? offset, complete: true };
    } else if (isSeq(node) && typeof seg === "number") {
      next = node.items[seg];
    }
    if (next === undefined || next === null) return { offset, complete: false };
    node = next;
    offset = rangeStart(node) ?? offset;
  }
  return { offset, complete: true };
}

const offsetOf = (doc: Document, path: Path) => locate(doc, path).offset;

function keyOffset(doc: Document, path: Path): number | undefined {
  const parent = doc.getIn(path.slice(0, -1), true);
  if (!isMap(parent)) return undefined;
  const pair = parent.items.find((p) => isScalar(p.key) && String(p.key.value) === String(path[path.length - 1]));
  return pair ? rangeStart(pair.key) : undefined;
}

function firstKeyOffset(doc: Document, mapPath: Path, name: string): number | undefined {
  const map = mapPath.length ? doc.getIn(mapPath, true) : doc.contents;
  if (!isMap(map)) return undefined;
  const pair = map.items.find((p) => isScalar(p.key) && String(p.key.value) === name);
  return pair ? rangeStart(pair.key) : undefined;
}

/** The property path of the node containing `offset` (for YAML errors). */
function pathAtOffset(doc: Document, offset: number): Array<string | number> {
  const path: Array<string | number> = [];
  let node: unknown = doc.contents;
  for (;;) {
    if (isMap(node)) {
      const pair = node.items.find((p) => {
        const start = rangeStart(p.key);
        const end = rangeEnd(p.value) ?? rangeEnd(p.key);
        return start !== undefined && end !== undefined && start <= offset && offset <= end;
      });
      if (!pair || !isScalar(pair.key)) return path;
      path.push(String(pair.key.value));
      if (rangeStart(pair.key)! <= offset && offset <= rangeEnd(pair.key)!) return path;
      node = pair.value;
    } else if (isSeq(node)) {
      const i = node.items.findIndex((n) => (rangeStart(n) ?? Infinity) <= offset && offset <= (rangeEnd(n) ?? -1));
      if (i < 0) return path;
      path.push(i);
      node = node.items[i];
    } else {
      return path;
    }
  }
}

function rangeStart(node: unknown): number | undefined {
  return isNode(node) ? node.range?.[0] : undefined;
}

function rangeEnd(node: unknown): number | undefined {
  return isNode(node) ? node.range?.[1] : undefined;
}

/** Each problem once, the manifest's first, then each file's (by name), by position. */
function sorted(problems: ManifestProblem[], manifest: string): ManifestProblem[] {
  const unique = problems.filter((p, i) => problems.findIndex((q) => q.file === p.file && q.line === p.line && q.column === p.column && q.message === p.message) === i);
  const fileOrder = (a: ManifestProblem, b: ManifestProblem) => (a.file === b.file ? 0 : a.file === manifest ? -1 : b.file === manifest ? 1 : a.file < b.file ? -1 : 1);
  return unique.sort((a, b) => fileOrder(a, b) || a.line - b.line || a.column - b.column);
}
