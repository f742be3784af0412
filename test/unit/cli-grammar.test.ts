import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processIo, type Command } from "../../provider/cli/command";
import { keboolaPulumi } from "../../provider/cli/main";
import { benchFleetCommand } from "../../scripts/bench-fleet";
import { fidelityCommand } from "../../scripts/fidelity/index";
import { genSchemaCommand } from "../../scripts/gen-schema";
import { mutateCommand } from "../../scripts/mutate";
import { buildPluginCommand } from "../../scripts/plugin-package/build";
import { pluginFirstCallCommand } from "../../scripts/plugin-first-call";
import { pluginBinCommand } from "../../scripts/plugin-package/bin";
import { quickstartCommand } from "../../scripts/quickstart";
import { stateSizeCommand } from "../../scripts/state-size";
import { KEBOOLA_PULUMI } from "../helpers/cli";

// One command-line grammar (provider/cli/command.ts) for every command of `keboola-pulumi` and of the
// scripts: --help prints the usage on standard output and exits 0; a wrong argument exits 1 with the
// message and the usage line on standard error; 2 is drift's alone ("something drifted", as
// `terraform plan -detailed-exitcode`; test/e2e/drift-stream.e2e.test.ts deploys a stack and drifts
// it for that, here drift's 0 and 1 are checked against a stand-in Pulumi CLI). The commands run in
// process; the built entry points are spawned once each kind, for the process's own exit code.

/** Each program and what runs it with no argument, as `[path of subcommand names, command]`: every command, groups walked. */
function everyCommand(root: Command, at: string[] = []): Array<[string[], Command]> {
  return [[at, root], ...Object.entries(root.subcommands ?? {}).flatMap(([name, c]) => everyCommand(c, [...at, name]))];
}

const PROGRAMS: Record<string, Command> = {
  "keboola-pulumi": keboolaPulumi,
  "bench-fleet": benchFleetCommand,
  "state-size": stateSizeCommand,
  "build:plugin": buildPluginCommand,
  "plugin-first-call": pluginFirstCallCommand,
  "plugin-bin": pluginBinCommand,
  mutate: mutateCommand,
  "gen-schema": genSchemaCommand,
  quickstart: quickstartCommand,
  fidelity: fidelityCommand,
};

const ROWS = Object.entries(PROGRAMS).flatMap(([program, root]) => everyCommand(root).map(([at, c]): [string, string[], Command] => [`${program}${at.map((a) => ` ${a}`).join("")}`, at, c]));

/** A program's command line in process: exit code and both streams. */
async function run(root: Command, argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await root.run(argv, processIo({ env, write: (t) => (out += t), error: (t) => (err += t), read: () => Promise.reject(new Error("no input in this test")) }));
  return { code, out, err };
}

const rootOf = (label: string): Command => PROGRAMS[Object.keys(PROGRAMS).find((p) => label === p || label.startsWith(`${p} `))!]!;
const usageLines = (c: Command) => c.usage.map((line) => (line.startsWith(" ") ? `       ${line}` : `usage: ${line}`)).join("\n");

describe("every command answers --help and -h: its usage on standard output, exit 0", () => {
  it.each(ROWS)("%s", async (label, at, c) => {
    for (const flag of ["--help", "-h"]) {
      const res = await run(rootOf(label), [...at, flag]);
      expect(res, flag).toMatchObject({ code: 0, err: "" });
      expect(res.out.startsWith(`${usageLines(c)}\n`), res.out).toBe(true);
      expect(res.out).toMatch(/\nexit code: 0 /);
    }
    // Every option it declares is in its usage lines and its help, so neither drifts from the declaration.
    for (const option of c.options) {
      expect(c.usage.join(" "), `--${option}`).toContain(`--${option}`);
      expect(c.help()).toContain(`--${option}`);
    }
  });

  it("`help` and `help <command>` of a group are its --help and the command's", async () => {
    expect(await run(keboolaPulumi, ["help"])).toEqual(await run(keboolaPulumi, ["--help"]));
    expect(await run(keboolaPulumi, ["help", "drift"])).toEqual(await run(keboolaPulumi, ["drift", "--help"]));
    expect(await run(keboolaPulumi, ["pr", "help", "open"])).toEqual(await run(keboolaPulumi, ["pr", "open", "--help"]));
    // The overview lists every command's usage.
    const overview = (await run(keboolaPulumi, ["--help"])).out;
    for (const c of Object.values(keboolaPulumi.subcommands ?? {})) for (const line of c.usage) expect(overview).toContain(line);
  });
});

describe("every command refuses an unknown option: the message and its usage on standard error, exit 1", () => {
  it.each(ROWS)("%s", async (label, at, c) => {
    const res = await run(rootOf(label), [...at, "--no-such-flag"]);
    const message = c.subcommands ? "unknown option --no-such-flag (the " : "unknown option --no-such-flag\n";
    expect(res).toMatchObject({ code: 1, out: "" });
    expect(res.err.startsWith(`${c.name}: ${message}`), res.err).toBe(true);
    expect(res.err.endsWith(`\n${usageLines(c)}\n`), res.err).toBe(true);
  });
});

describe("the rest of the grammar, the same in every command", () => {
  it("wrong arguments of each kind exit 1 with the message and the usage line", async () => {
    const cases: Array<[string[], string]> = [
      [[], "keboola-pulumi: the command is missing"],
      [["import"], 'keboola-pulumi: unknown command "import"'],
      [["pr"], "keboola-pulumi pr: the step is missing"],
      [["pr", "deploy"], 'keboola-pulumi pr: unknown step "deploy"'],
      [["export", "--host"], "keboola-pulumi export: --host needs a value"],
      [["export", "--host="], "keboola-pulumi export: --host needs a value"],
      [["drift", "--json=yes"], "keboola-pulumi drift: --json takes no value"],
      [["pull", "a.yaml", "b.yaml"], 'keboola-pulumi pull: unexpected argument "b.yaml"'],
      [["review"], "keboola-pulumi review: the preview file is missing"],
      [["try", "keboola.yaml", "-"], "keboola-pulumi try: name the source: --source <key under sources>"],
      [["pr", "close"], "keboola-pulumi pr close: pr close needs --number <pull request>"],
      [["pr", "update", "--number", "seven"], 'keboola-pulumi pr update: --number must be a pull request number, got "seven"'],
      [["pr", "open", "--number", "1", "--branch", "x"], "keboola-pulumi pr open: unknown option --branch"],
      [["pr", "drift", "--number", "1"], "keboola-pulumi pr drift: pr drift takes no --number: it finds its pull request by its branch"],
    ];
    for (const [argv, message] of cases) {
      const res = await run(keboolaPulumi, argv, {});
      expect(res.code, argv.join(" ")).toBe(1);
      expect(res.err, argv.join(" ")).toMatch(new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\nusage: `));
    }
    expect((await run(mutateCommand, ["nope"])).err).toMatch(/^mutate: unknown folder\(s\) nope: choose among resources, /);
    expect((await run(benchFleetCommand, ["--sources", "0"])).err).toMatch(/^bench-fleet: --sources must be a whole number of at least 1, got "0"\nusage: /);
    expect((await run(fidelityCommand, ["sdk-go"])).err).toMatch(/^fidelity sdk-go: --sdk <keboola-sdk-go tree> is missing\nusage: /);
  });

  it("an error that is not about the arguments: the message alone, exit 1", async () => {
    const res = await run(keboolaPulumi, ["review", "preview.json"]);
    expect(res).toEqual({ code: 1, out: "", err: "keboola-pulumi review: cannot read preview.json: no input in this test (write it with `pulumi preview --json > preview.json`, or give `-` to read standard input)\n" });
  });

  it("options take --name value and --name=value, repeat where declared, and a value may start with a dash", async () => {
    // try refuses the header before it reads anything: what it says shows how each form was read.
    for (const argv of [["--header", "-x"], ["--header=-x"], ["--header", "A: b", "--header", "-x"]]) {
      const res = await run(keboolaPulumi, ["try", "keboola.yaml", "--source", "s", "-", ...argv]);
      expect(res.err).toBe('keboola-pulumi try: --header must be "Name: value", got "-x"\n');
    }
  });
});

describe("drift's exit codes: 0 nothing drifted, 1 an error, and 2 only for drift", () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "cli-grammar-"));
    // A stand-in Pulumi CLI: a stack with no resources, or one whose state cannot be read.
    fs.writeFileSync(path.join(dir, "empty"), `#!/bin/sh\ncase "$1" in stack) echo '{"deployment":{"resources":[]}}';; config) echo '{}';; esac\n`, { mode: 0o755 });
    fs.writeFileSync(path.join(dir, "broken"), `#!/bin/sh\necho "error: no stack named 'nope' found" >&2\nexit 255\n`, { mode: 0o755 });
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("nothing drifted: 0; the stack cannot be read: 1, with the message", async () => {
    const none = await run(keboolaPulumi, ["drift", "--stack", "dev"], { ...process.env, PULUMI_BIN: path.join(dir, "empty") });
    expect(none).toMatchObject({ code: 0, err: "" });
    const broken = await run(keboolaPulumi, ["drift", "--stack", "nope"], { ...process.env, PULUMI_BIN: path.join(dir, "broken") });
    expect(broken.code).toBe(1);
    expect(broken.err).toMatch(/^keboola-pulumi drift: reading the stack's (state|config) failed .*no stack named 'nope' found\n$/);
  });

  it("no other command answers 2: their help says 0 and 1 only", () => {
    for (const [label, , c] of ROWS) {
      const codes = /^exit code: (.*)$/m.exec(c.help())?.[1] ?? "";
      expect(codes.includes("2 "), label).toBe(label === "keboola-pulumi" || label === "keboola-pulumi drift");
    }
  });
});

describe("the built entry points exit with the command's code", () => {
  const spawn = (file: string, args: string[]) => spawnSync(process.execPath, [file, ...args], { encoding: "utf8", timeout: 60_000 });

  it("keboola-pulumi (package.json bin) and a script", () => {
    expect(spawn(KEBOOLA_PULUMI, ["--help"])).toMatchObject({ status: 0, stderr: "" });
    expect(spawn(KEBOOLA_PULUMI, ["drift", "--bogus"])).toMatchObject({ status: 1, stdout: "", stderr: expect.stringMatching(/^keboola-pulumi drift: unknown option --bogus\nusage: /) });
    const mutate = path.join(__dirname, "..", "..", "dist", "scripts", "mutate.js");
    expect(spawn(mutate, ["--help"])).toMatchObject({ status: 0, stderr: "" });
    expect(spawn(mutate, ["nope"])).toMatchObject({ status: 1, stdout: "" });
  });
});
