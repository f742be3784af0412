import * as path from "node:path";
import { isRecord } from "../../keboola/json";
import { SHARED_CODE_COMPONENT } from "../../keboola/shared-code";
import { scriptsOfCode } from "../../keboola/code-scripts";
import { configValues, resolveEntries, type Resolution, type StackValues } from "./config-values";
import { readProjectFile } from "./read-file";

// `{ fn::readFile: <path> }` (Pulumi YAML's function of that name) wherever an entry of
// keboola.yaml takes a string: the file's text is the string. Transformation code is kept as kbc
// keeps it (keboola/code-scripts.ts): a code's `script` of a configuration's
// `parameters.blocks[].codes[]`, and a shared code row's `code_content`, read from a file, are
// the scripts kbc would push from that file (SQL statements for the components kbc splits, the
// whole text as one script for any other), so a file kbc wrote deploys to what Keboola holds.
//
// The order: the manifest's `${name}` values are resolved first (a path or a component id may
// use one), then each file is read and split, and only then are the `${name}` in its text
// resolved, statement by statement as inline scripts are, so that a problem of a value is
// reported where the file writes it. The program reads the files each time it runs: editing one
// is a change of its configuration in the next preview.

export const READ_FILE = "fn::readFile";

type Path = Array<string | number>;

/** A value of the manifest read from a file. */
export interface FileRead {
  /** Where the manifest writes `{ fn::readFile: ... }`. */
  path: Path;
  /** The path as the manifest writes it. */
  name: string;
  /** The file as messages name it (beside the manifest as the manifest is named). */
  shown: string;
  text: string;
  /** Code: the component whose way of splitting made the scripts. */
  code?: { componentId: string };
  /** The strings the file became: where each sits in the manifest and starts in the text. */
  pieces: Array<{ path: Path; start: number }>;
}

/** A problem of a value read from a file: at `inFile` when a place in the file is at fault, else where the manifest writes fn::readFile at `path`. */
export interface FileProblem {
  path: Path;
  message: string;
  inFile?: { read: FileRead; offset: number };
}

export interface ManifestValues {
  resolution: Resolution;
  files: FileRead[];
  /** Problems of fn::readFile (the resolution's own are in `resolution.problems`). */
  problems: FileProblem[];
}

/** The manifest's data with its `${name}` values resolved and its files read. */
export function resolveManifestValues(data: unknown, stack: StackValues | undefined, manifestFile: string): ManifestValues {
  if (!isRecord(data)) return { resolution: { data, origins: [], secrets: [], problems: [] }, files: [], problems: [] };
  const values = configValues(data, stack);
  const resolved = resolveEntries(data, values);
  const files: FileRead[] = [];
  const problems: FileProblem[] = [];
  const projectDir = path.dirname(path.resolve(manifestFile));
  const shown = (file: string) => path.join(path.dirname(manifestFile), path.relative(projectDir, file));

  const read = (node: Record<string, unknown>, at: Path): unknown => {
    const name = node[READ_FILE];
    const code = codeAt(resolved, at);
    const placeholder = code ? [] : "";
    if (Object.keys(node).length > 1) {
      problems.push({ path: at, message: `${READ_FILE} stands alone in its map: write { ${READ_FILE}: <path> } with no other key (found ${Object.keys(node).filter((k) => k !== READ_FILE).join(", ")})` });
      return placeholder;
    }
    if (typeof name !== "string") {
      problems.push({ path: at, message: `${READ_FILE} takes the path of a file, relative to the manifest: { ${READ_FILE}: transformations/orders/001-load.sql }` });
      return placeholder;
    }
    // A path whose own `${name}` failed is not read: its problem is reported already.
    if (values.failedAt([...at, READ_FILE])) return placeholder;
    if (code && "problem" in code) {
      problems.push({ path: at, message: code.problem });
      return placeholder;
    }
    const got = readProjectFile(projectDir, name);
    if ("problem" in got) {
      problems.push({ path: at, message: `${READ_FILE}: ${got.problem}` });
      return placeholder;
    }
    const file: FileRead = { path: at, name, shown: shown(got.file), text: got.text, pieces: [] };
    files.push(file);
    if (!code) {
      file.pieces.push({ path: at, start: 0 });
      return values.resolve(got.text, at);
    }
    file.code = { componentId: code.componentId };
    const split = scriptsOfCode(got.text, code.componentId);
    for (const d of split.dropped) problems.push({ path: at, message: droppedMessage(got.text, d, code.componentId), inFile: { read: file, offset: firstQuote(got.text, d) } });
    return split.statements.map((s, i) => {
      file.pieces.push({ path: [...at, i], start: s.start });
      return values.resolve(s.text, [...at, i]);
    });
  };

  const walk = (v: unknown, at: Path): unknown => {
    if (Array.isArray(v)) return v.map((x, i) => walk(x, [...at, i]));
    if (!isRecord(v)) return v;
    if (Object.hasOwn(v, READ_FILE)) return read(v, at);
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, [...at, k])]));
  };
  const withFiles: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(resolved)) withFiles[k] = k === "config" ? v : walk(v, [k]);
  for (const at of readFilesIn(data.config, ["config"])) {
    problems.push({ path: at, message: `${READ_FILE} is read in entries only: write the value in config: itself` });
  }
  return { resolution: values.settle(withFiles), files, problems };
}

/** Where `config:` uses fn::readFile. */
function readFilesIn(v: unknown, at: Path): Path[] {
  if (Array.isArray(v)) return v.flatMap((x, i) => readFilesIn(x, [...at, i]));
  if (!isRecord(v)) return [];
  if (Object.hasOwn(v, READ_FILE)) return [at];
  return Object.entries(v).flatMap(([k, x]) => readFilesIn(x, [...at, k]));
}

const isIndex = (seg: string | number | undefined) => typeof seg === "number";

/**
 * Whether the value at `at` is transformation code, whose file is split as kbc splits it, and by
 * which component's rule: a code's `script` (`configuration.parameters.blocks[i].codes[j].script`
 * of a configuration; kbc finds these by the component's genericCodeBlocksUI flag, which is not
 * known at preview, so the place decides), or `code_content` of a row of a shared code
 * configuration, split by the component its `configuration.componentId` names (kbc's
 * mapper/sharedcode/codes). Undefined: not code, the file's text is the value.
 */
function codeAt(data: Record<string, unknown>, at: Path): { componentId: string } | { problem: string } | undefined {
  const [section, key, ...rest] = at;
  if (section !== "configurations" || typeof key !== "string") return undefined;
  const entries = data.configurations;
  const entry = isRecord(entries) ? entries[key] : undefined;
  if (!isRecord(entry)) return undefined;
  const componentId = typeof entry.componentId === "string" ? entry.componentId : "";
  const [a, b, c, i, d, j, e, ...more] = rest;
  if (a === "configuration" && b === "parameters" && c === "blocks" && isIndex(i) && d === "codes" && isIndex(j) && e === "script" && more.length === 0) return { componentId };
  if (componentId === SHARED_CODE_COMPONENT && a === "rows" && isIndex(b) && c === "configuration" && i === "code_content" && rest.length === 4) {
    const target = isRecord(entry.configuration) ? entry.configuration.componentId : undefined;
    if (typeof target === "string" && target !== "") return { componentId: target };
    return {
      problem: `a shared code configuration names the component its code is for in configuration.componentId (e.g. keboola.snowflake-transformation), which decides how a code file is split: add it`,
    };
  }
  return undefined;
}

/** Where a dropped range's unclosed quote is (else its first character). */
function firstQuote(text: string, d: { start: number; end: number }): number {
  for (let i = d.start; i < d.end; i++) if (text[i] === "'" || text[i] === '"') return i;
  let i = d.start;
  while (i < d.end && /\s|;/.test(text[i])) i++;
  return i;
}

function droppedMessage(text: string, d: { start: number; end: number }, componentId: string): string {
  const lost = text.slice(d.start, d.end).trim();
  const shown = lost.length > 60 ? `${lost.slice(0, 57)}...` : lost;
  return (
    `a quote here is never closed, and ${componentId} code is split into statements as kbc splits it, which then drops ${JSON.stringify(shown)}: ` +
    `close the quote (in kbc's split a backslash before a line break escapes nothing)`
  );
}

/** The file and place a problem at manifest `path` (`offset` into its string) is in, when a file gave that string. */
export function placeInFile(files: readonly FileRead[], at: ReadonlyArray<string | number>, offset = 0): { read: FileRead; offset: number } | undefined {
  for (const read of files) {
    const piece = read.pieces.find((p) => p.path.length === at.length && p.path.every((seg, i) => seg === at[i]));
    if (piece) return { read, offset: piece.start + offset };
  }
  return undefined;
}

/** Line and column (from 1, in UTF-16 units as the manifest's positions) of `offset` in `text`. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}
