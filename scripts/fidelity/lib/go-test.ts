import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as readline from "node:readline";
import { track } from "./children";
import { parseGoTestEvent, type GoTestEvent } from "./go-test-json";

// Running a Go test package as `go test -json` does, in two steps: the test binary is compiled
// first with the caller's environment (the go command may need the module proxy; the suite's
// HTTPS_PROXY and SSL_CERT_FILE are only for the tests), then run through `go tool test2json`.
// Both under `nice`: the machine is shared.

export interface CompileOptions {
  /** The module directory to run go in. */
  cwd: string;
  /** The package, e.g. ./pkg/keboola/. */
  pkg: string;
  out: string;
  /** Extra go flags, e.g. -p 2. */
  flags?: string[];
  env?: NodeJS.ProcessEnv;
}

/** Compiles the test binary; answers the seconds it took. Throws when the compile fails. */
export function compileTestBinary(o: CompileOptions): number {
  const t0 = Date.now();
  try {
    execFileSync("nice", ["-n", "10", "go", "test", "-c", ...(o.flags ?? []), "-o", o.out, o.pkg], { cwd: o.cwd, env: o.env ?? process.env, stdio: ["ignore", "inherit", "inherit"] });
  } catch (e) {
    throw new Error(`compiling ${o.pkg} failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  return (Date.now() - t0) / 1000;
}

export interface RunOptions {
  /** Where the test binary runs: its package directory, as go test would. */
  cwd: string;
  binary: string;
  /** The package import path test2json reports. */
  importPath: string;
  /** -test.* flags. */
  testArgs: string[];
  env: NodeJS.ProcessEnv;
  jsonFile: string;
  stderrFile: string;
  onEvent?: (e: GoTestEvent) => void;
}

/** Runs the binary through test2json, writing the event stream to `jsonFile`; answers the exit code. */
export async function runTestBinary(o: RunOptions): Promise<number> {
  const jsonOut = fs.createWriteStream(o.jsonFile);
  const errOut = fs.createWriteStream(o.stderrFile);
  const args = ["tool", "test2json", "-t", "-p", o.importPath, o.binary, ...o.testArgs];
  const code = await new Promise<number>((resolve) => {
    const child = track(spawn("nice", ["-n", "10", "go", ...args], { cwd: o.cwd, env: o.env, stdio: ["ignore", "pipe", "pipe"] }));
    const rl = readline.createInterface({ input: child.stdout! });
    rl.on("line", (line) => {
      jsonOut.write(line + "\n");
      const e = parseGoTestEvent(line);
      if (e && o.onEvent) o.onEvent(e);
    });
    child.stderr?.pipe(errOut);
    child.on("exit", (c) => resolve(c ?? 1));
  });
  await new Promise<void>((r) => jsonOut.end(r));
  return code;
}

/** A command line to show in the log, quoted where the shell would need it. */
export function showCommand(args: string[]): string {
  return args.map((a) => (/[\s|^$*()]/.test(a) ? `'${a}'` : a)).join(" ");
}
