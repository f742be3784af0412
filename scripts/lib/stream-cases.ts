import * as fs from "node:fs";
import * as path from "node:path";
import { z } from "zod";

// The recorded Stream API cases of keboola-as-code (`test/stream/api`), read as its Go harness
// reads them (internal/pkg/utils/testhelper/runner/test.go, runRequests; testhelper.GetTestDirs):
// a case is a `<group>/<case>` folder, its steps are the sub-folders named `[0-9][0-9][0-9]-*` in
// lexical order, each with `request.json`, `expected-http-code` and `expected-response.json`. Every
// `%%NAME%%` is replaced by the test environment's value when a file is read (files trimmed first,
// as ReadFileFromTestDir does). `initial-etcd-kvs.txt` is the etcd state put before the case.

const repeatDefSchema = z.object({
  /** A govaluate expression over the response body; the request repeats until it holds. */
  until: z.string().optional(),
  timeout: z.number().optional(),
  wait: z.number().optional(),
});
export type RepeatDef = z.infer<typeof repeatDefSchema>;

/** A step's request.json (the harness's APIRequest). */
const requestDefSchema = z.object({
  path: z.string(),
  method: z.string(),
  body: z.unknown().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  repeat: repeatDefSchema.optional(),
});
export type RequestDef = z.infer<typeof requestDefSchema>;

export interface RecordedStep {
  name: string;
  request: RequestDef;
  expectedCode: number;
  expectedBody: string;
}

export interface RecordedCase {
  /** `<group>/<case>`, e.g. `sink/list-002-ok`. */
  name: string;
  /** The case's folder, relative to the keboola-as-code tree. */
  dir: string;
  steps: RecordedStep[];
  /** etcd keys and values to put before the case (initial-etcd-kvs.txt), in file order. */
  initialEtcd: EtcdKV[];
  /** Files of the case the replay does not judge (etcd and server-log expectations). */
  unjudgedFiles: string[];
}

export interface EtcdKV {
  key: string;
  value: string;
}

export const CASES_DIR = path.join("test", "stream", "api");

const ENV_PLACEHOLDER = /%%[a-zA-Z0-9][a-zA-Z0-9\-_]*[a-zA-Z0-9]%%/g;

/** testhelper.MustReplaceEnvsString: an unknown name is an error, as in the Go harness. */
export function replaceEnvs(text: string, env: Readonly<Record<string, string>>): string {
  return text.replace(ENV_PLACEHOLDER, (placeholder) => {
    const name = placeholder.slice(2, -2);
    const value = env[name];
    if (value === undefined) throw new Error(`unknown test variable ${placeholder}`);
    return value;
  });
}

function readTrimmed(file: string, env: Readonly<Record<string, string>>): string {
  return replaceEnvs(fs.readFileSync(file, "utf8").trim(), env);
}

/** etcdhelper.PutAllFromSnapshot's format: `<<<<<\n<key>\n-----\n<value>\n>>>>>` blocks. */
export function parseEtcdSnapshot(text: string): EtcdKV[] {
  const out: EtcdKV[] = [];
  const block = /<<<<<\n([^\n]*)\n-----\n([\s\S]*?)\n>>>>>/g;
  for (let m = block.exec(text); m; m = block.exec(text)) out.push({ key: m[1].trim(), value: m[2] });
  return out;
}

const subdirs = (dir: string) =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith("."))
    .map((e) => e.name)
    .sort();

/** Every case under `<kac>/test/stream/api`, in the Go harness's order. */
export function loadCases(kacRoot: string, env: Readonly<Record<string, string>>): RecordedCase[] {
  const root = path.join(kacRoot, CASES_DIR);
  const cases: RecordedCase[] = [];
  for (const group of subdirs(root)) {
    for (const name of subdirs(path.join(root, group))) {
      const dir = path.join(root, group, name);
      const steps = subdirs(dir)
        .filter((s) => /^[0-9]{3}-/.test(s))
        .map((s): RecordedStep => {
          const stepDir = path.join(dir, s);
          return {
            name: s,
            request: requestDefSchema.parse(JSON.parse(readTrimmed(path.join(stepDir, "request.json"), env))),
            expectedCode: Number(readTrimmed(path.join(stepDir, "expected-http-code"), env)),
            expectedBody: readTrimmed(path.join(stepDir, "expected-response.json"), env),
          };
        });
      const etcdFile = path.join(dir, "initial-etcd-kvs.txt");
      const initialEtcd = fs.existsSync(etcdFile) ? parseEtcdSnapshot(readTrimmed(etcdFile, env)) : [];
      const unjudgedFiles = ["expected-etcd-kvs.txt", "expected-server-stdout", "expected-server-stderr"].filter((f) =>
        fs.existsSync(path.join(dir, f)),
      );
      cases.push({ name: `${group}/${name}`, dir: path.relative(kacRoot, dir), steps, initialEtcd, unjudgedFiles });
    }
  }
  return cases;
}
