import * as fs from "node:fs";
import * as path from "node:path";
import { isRecord } from "../../keboola/json";

// The text of a file a manifest names with fn::readFile, read as Pulumi YAML's function of the
// same name reads it (the whole file, as it is), within the project: the manifest's directory and
// what is under it. A file elsewhere would make a deployment depend on the machine that runs it
// (and an absolute path or `..` out of a repository reads what is not committed), so it is refused,
// as is anything that is not UTF-8 text: the value is sent to Keboola as a JSON string.

export type FileText = { text: string; file: string } | { problem: string };

/** The text of `name` (relative to `projectDir`, or absolute within it), or why it cannot be read. */
export function readProjectFile(projectDir: string, name: string): FileText {
  if (name.trim() === "") return { problem: "the path is empty: name a file relative to the manifest, e.g. transformations/orders/001-load.sql" };
  if (name.includes("\0")) return { problem: "the path holds a NUL character: name a file relative to the manifest" };
  const root = path.resolve(projectDir);
  const file = path.resolve(root, name);
  const outside = `is outside the project directory ${root}: keep the file under the manifest's directory and name it relative to the manifest`;
  if (!within(root, file)) return { problem: `${JSON.stringify(name)} ${outside}` };
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (err) {
    return { problem: `${JSON.stringify(name)} ${why(err, file)}` };
  }
  if (stat.isDirectory()) return { problem: `${JSON.stringify(name)} is a directory: name a file in it` };
  // A FIFO or a device would block or never end.
  if (!stat.isFile()) return { problem: `${JSON.stringify(name)} is not a regular file: name a file` };
  // A link inside the project may lead out of it.
  const real = realpath(file);
  if (real !== undefined && !within(realpath(root) ?? root, real)) return { problem: `${JSON.stringify(name)} is a link to ${real}, which ${outside}` };
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (err) {
    return { problem: `${JSON.stringify(name)} ${why(err, file)}` };
  }
  const binary = notText(bytes);
  if (binary) return { problem: `${JSON.stringify(name)} ${binary}: fn::readFile reads UTF-8 text (SQL, Python, R, JSON, ...)` };
  return { text: bytes.toString("utf8"), file };
}

/** Whether `file` is `root` itself or under it. */
function within(root: string, file: string): boolean {
  const rel = path.relative(root, file);
  return rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

function realpath(file: string): string | undefined {
  try {
    return fs.realpathSync(file);
  } catch {
    return undefined;
  }
}

/** A read error as the fix it calls for. */
function why(err: unknown, file: string): string {
  const code = isRecord(err) && typeof err.code === "string" ? err.code : "";
  if (code === "ENOENT") return `does not exist (looked for ${file}): create it, or fix the path (relative to the manifest)`;
  if (code === "ENOTDIR") return `does not exist (a part of the path is a file, looked for ${file}): fix the path`;
  if (code === "EACCES" || code === "EPERM") return `cannot be read: permission denied (${file}); make it readable`;
  return `cannot be read (${file}): ${err instanceof Error ? err.message : String(err)}`;
}

/** Why the bytes are not UTF-8 text (a NUL byte or an invalid sequence, with its line), or undefined. */
function notText(bytes: Buffer): string | undefined {
  const lineOf = (offset: number) => bytes.subarray(0, offset).filter((b) => b === 0x0a).length + 1;
  const nul = bytes.indexOf(0);
  if (nul >= 0) return `holds a NUL byte (line ${lineOf(nul)}): it is a binary file`;
  const decoder = new TextDecoder("utf-8", { fatal: true });
  try {
    decoder.decode(bytes);
    return undefined;
  } catch {
    // The first line that does not decode.
    let start = 0;
    for (let line = 1; start <= bytes.length; line++) {
      const end = bytes.indexOf(0x0a, start);
      const stop = end < 0 ? bytes.length : end;
      try {
        decoder.decode(bytes.subarray(start, stop));
      } catch {
        return `is not UTF-8 text (an invalid byte sequence on line ${line}): save it as UTF-8`;
      }
      start = stop + 1;
    }
    return "is not UTF-8 text: save it as UTF-8";
  }
}
