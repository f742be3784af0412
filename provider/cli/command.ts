import * as fs from "node:fs";
import * as path from "node:path";
import { parseArgs, type ParseArgsConfig } from "node:util";

// One command-line grammar for `keboola-pulumi` and the repository's scripts. A command is declared
// once (its name, summary, usage lines, options as node:util parseArgs takes them, positionals and
// what it runs); this module parses its arguments, answers --help/-h, reports wrong arguments and
// maps the outcome to the exit code, so no command reads argv itself:
//
//   --help, -h        the command's help on standard output, exit 0
//   success           exit 0
//   any error         exit 1: the message on standard error, with the command's usage line when
//                     the arguments were wrong
//   2                 only what a command returns itself for "changes found" (`keboola-pulumi drift`)
//
// Options take their value as `--name value` or `--name=value`; a value may start with a dash
// (`--header -x`), as the hand-written parsers before this one allowed; an empty value is refused
// (an unset shell variable, `--number "$PR"`, is a mistake to report, not a value). A lone `-` is a
// positional (standard input, for the commands that read it). node:util parseArgs tokenizes in its
// non-strict mode so that the messages are ours ("unknown option --x", "--x needs a value") and the
// same in every command, rather than Node's, which also differ between Node versions.

/** An option of a command: node:util parseArgs's `type`/`multiple`, a default, and its help. */
export interface OptionSpec {
  type: "string" | "boolean";
  /** Repeatable: every value, in order (`--header a --header b`). */
  multiple?: boolean;
  default?: string;
  /** The value's placeholder in the help, e.g. `<stack>`. */
  value?: string;
  help: string;
}

export type OptionSpecs = Record<string, OptionSpec>;

/** The parsed value of each option: a flag is a boolean, a repeatable option a list, an option with a default always set. */
export type Values<O extends OptionSpecs> = {
  -readonly [K in keyof O]: O[K] extends { type: "boolean" }
    ? boolean
    : O[K] extends { multiple: true }
      ? string[]
      : O[K] extends { default: string }
        ? string
        : string | undefined;
};

export interface PositionalSpec {
  /** As the usage line writes it, e.g. `<manifest>`. */
  name: string;
  /** What is missing when it is not given, e.g. "the preview file". */
  noun: string;
  help: string;
  optional?: boolean;
  /** Takes every remaining positional (it is then the last one). */
  variadic?: boolean;
}

/** What a command's run gets. */
export interface Args<O extends OptionSpecs> {
  values: Values<O>;
  positionals: string[];
  /** The arguments after a lone `--`, for a command that passes them on (`rest` in its spec). */
  rest: string[];
}

/** Where a command reads and writes; tests give their own. */
export interface CliIo {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Standard output. */
  write(text: string): void;
  /** Standard error. */
  error(text: string): void;
  /** A file's text (relative to cwd), or standard input's for `-`. */
  read(source: string): Promise<string>;
}

/** Wrong arguments: exit 1 with the message and the command's usage line. Commands throw it for checks parseArgs cannot make. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** A declared command, its option types erased, so a dispatch table can hold commands of every shape. */
export interface Command {
  /** How messages name it: the program and the command, e.g. `keboola-pulumi pr open`. */
  readonly name: string;
  readonly summary: string;
  /** The usage lines, each as run (e.g. `keboola-pulumi drift [<manifest>] [--stack <name>] ...`); one that starts with a space continues the line before it. */
  readonly usage: readonly string[];
  /** The long names of its options (the tests hold the usage lines to them). */
  readonly options: readonly string[];
  /** A group's commands, by the name that picks them (the tests walk every command through them). */
  readonly subcommands?: Readonly<Record<string, Command>>;
  help(): string;
  /** Parses `argv`, runs, and answers the exit code; never throws. */
  run(argv: readonly string[], io: CliIo): Promise<number>;
}

export interface CommandSpec<O extends OptionSpecs> {
  name: string;
  summary: string;
  usage: string | readonly string[];
  /** Said under the usage lines in the help: what it does, where things go. */
  description?: string;
  options: O;
  /** Options it does not take but a user may well give (another step's), each with the message that says why. */
  refuse?: Record<string, string>;
  positionals?: readonly PositionalSpec[];
  /** The help of the arguments after a lone `--` (only commands that pass arguments on take them). */
  rest?: string;
  /** The exit codes, when they say more than 0 done and 1 an error. */
  exitCodes?: string;
  run(args: Args<O>, io: CliIo): Promise<number> | number;
}

const DEFAULT_EXIT_CODES = "exit code: 0 done, 1 an error (wrong arguments too)";

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** "usage: " before each usage line; a line that starts with a space continues the one before it. */
function usageText(usage: readonly string[]): string {
  return usage.map((line) => (line.startsWith(" ") ? `       ${line}` : `usage: ${line}`)).join("\n");
}

/** Two columns: the names padded to the widest, continuation lines of a help indented under it. */
function table(rows: Array<[string, string]>): string {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right.replace(/\n/g, `\n  ${" ".repeat(width)}  `)}`).join("\n");
}

/** Wrong arguments reported: the message, then the usage line(s). */
function usageFailure(name: string, usage: readonly string[], err: UsageError, io: CliIo): number {
  io.error(`${name}: ${err.message}\n${usageText(usage)}\n`);
  return 1;
}

function parse<O extends OptionSpecs>(spec: CommandSpec<O>, argv: readonly string[]): Args<O> | "help" {
  const config: ParseArgsConfig = {
    args: [...argv],
    options: { ...Object.fromEntries(Object.entries(spec.options).map(([name, o]) => [name, { type: o.type, multiple: o.multiple === true }])), help: { type: "boolean", short: "h" } },
    strict: false,
    allowPositionals: true,
    tokens: true,
  };
  const tokens = parseArgs(config).tokens ?? [];
  const terminator = tokens.findIndex((t) => t.kind === "option-terminator");
  const before = terminator < 0 ? tokens : tokens.slice(0, terminator);
  // --help anywhere before `--` wins over everything else on the line, wrong arguments included.
  if (before.some((t) => t.kind === "option" && t.name === "help")) return "help";
  const values: Record<string, string | boolean | string[]> = {};
  const positionals: string[] = [];
  const rest: string[] = [];
  let passed = false;
  for (const t of tokens) {
    if (t.kind === "option-terminator") {
      passed = spec.rest !== undefined;
      continue;
    }
    if (t.kind === "positional") {
      (passed ? rest : positionals).push(t.value);
      continue;
    }
    const o = Object.hasOwn(spec.options, t.name) ? spec.options[t.name] : undefined;
    if (!o) throw new UsageError(spec.refuse && Object.hasOwn(spec.refuse, t.name) ? spec.refuse[t.name] : `unknown option ${t.rawName}`);
    if (o.type === "boolean") {
      if (t.value !== undefined) throw new UsageError(`--${t.name} takes no value`);
      values[t.name] = true;
    } else if (t.value === undefined || t.value === "") {
      throw new UsageError(`--${t.name} needs a value`);
    } else if (o.multiple) {
      const list = values[t.name];
      values[t.name] = Array.isArray(list) ? [...list, t.value] : [t.value];
    } else {
      values[t.name] = t.value;
    }
  }
  for (const [name, o] of Object.entries(spec.options)) {
    if (values[name] !== undefined) continue;
    if (o.type === "boolean") values[name] = false;
    else if (o.multiple) values[name] = [];
    else if (o.default !== undefined) values[name] = o.default;
  }
  const declared = spec.positionals ?? [];
  const variadic = declared.at(-1)?.variadic === true;
  if (!variadic && positionals.length > declared.length) throw new UsageError(`unexpected argument "${positionals[declared.length]}"`);
  const missing = declared.find((p, i) => !p.optional && positionals.length <= i);
  if (missing) throw new UsageError(`${missing.noun} is missing`);
  // The one conversion from the checked record to the declared shape: every key of spec.options was
  // set above with the type Values<O> gives it (flags false, lists [], defaults their value).
  return { values: values as Values<O>, positionals, rest };
}

/** Declares a command; `const` keeps the options' literal types, so `values` is typed by them. */
export function command<const O extends OptionSpecs>(spec: CommandSpec<O>): Command {
  const usage = typeof spec.usage === "string" ? [spec.usage] : [...spec.usage];
  const help = (): string => {
    const rows: Array<[string, string]> = [
      ...(spec.positionals ?? []).map((p): [string, string] => [p.name, p.help]),
      ...Object.entries(spec.options).map(([name, o]): [string, string] => [`--${name}${o.type === "string" ? ` ${o.value ?? "<value>"}` : ""}`, o.help]),
    ];
    if (spec.rest !== undefined) rows.push(["-- <args>...", spec.rest]);
    rows.push(["-h, --help", "print this help"]);
    return `${usageText(usage)}\n${spec.description ? `${spec.description}\n` : ""}\n${table(rows)}\n\n${spec.exitCodes ?? DEFAULT_EXIT_CODES}\n`;
  };
  return {
    name: spec.name,
    summary: spec.summary,
    usage,
    options: Object.keys(spec.options),
    help,
    async run(argv, io) {
      try {
        const args = parse(spec, argv);
        if (args === "help") {
          io.write(help());
          return 0;
        }
        return await spec.run(args, io);
      } catch (err) {
        if (err instanceof UsageError) return usageFailure(spec.name, usage, err, io);
        // Messages only: every error a user can meet says what to do; a stack trace would bury it.
        io.error(`${spec.name}: ${messageOf(err)}\n`);
        return 1;
      }
    },
  };
}

export interface GroupSpec {
  /** e.g. `keboola-pulumi` or `keboola-pulumi pr`. */
  name: string;
  /** How it is run, when not by its name (a script run through npm: `npm run fidelity --`). */
  program?: string;
  summary: string;
  /** What the first argument names: "command", "step", "suite". */
  noun: string;
  description?: string;
  exitCodes?: string;
  commands: Readonly<Record<string, Command>>;
}

/** A command whose first argument picks one of its commands (`keboola-pulumi <command>`, `keboola-pulumi pr <step>`). */
export function group(spec: GroupSpec): Command {
  const names = Object.keys(spec.commands);
  const program = spec.program ?? spec.name;
  const usage = [`${program} <${names.join("|")}> [options]`];
  const help = (): string => {
    const entries = Object.values(spec.commands).map((c) => `${c.usage.map((line) => `  ${line}`).join("\n")}\n      ${c.summary.replace(/\n/g, "\n      ")}`);
    return `${usageText(usage)}\n${spec.description ? `${spec.description}\n` : ""}\n${entries.join("\n")}\n\n\`${program} <${spec.noun}> --help\` describes a ${spec.noun}'s options.\n${spec.exitCodes ?? DEFAULT_EXIT_CODES}\n`;
  };
  return {
    name: spec.name,
    summary: spec.summary,
    usage,
    options: [],
    subcommands: spec.commands,
    help,
    async run(argv, io) {
      const [first, ...rest] = argv;
      if (first === "--help" || first === "-h" || (first === "help" && rest.length === 0)) {
        io.write(help());
        return 0;
      }
      // `help <name>` is `<name> --help`.
      const [name, args] = first === "help" ? [rest[0], ["--help"]] : [first, rest];
      if (name === undefined) return usageFailure(spec.name, usage, new UsageError(`the ${spec.noun} is missing`), io);
      const child = Object.hasOwn(spec.commands, name) ? spec.commands[name] : undefined;
      if (!child) return usageFailure(spec.name, usage, new UsageError(name.startsWith("-") ? `unknown option ${name} (the ${spec.noun} comes first)` : `unknown ${spec.noun} "${name}"`), io);
      return child.run(args, io);
    },
  };
}

/** Standard input, whole. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString("utf8");
}

/** The process's own streams, environment and directory; any part may be replaced (tests). */
export function processIo(over: Partial<CliIo> & { stdin?: () => Promise<string> } = {}): CliIo {
  const cwd = over.cwd ?? process.cwd();
  const stdin = over.stdin ?? readStdin;
  return {
    env: over.env ?? process.env,
    cwd,
    write: over.write ?? ((text) => process.stdout.write(text)),
    error: over.error ?? ((text) => process.stderr.write(text)),
    read: over.read ?? ((source) => (source === "-" ? stdin() : fs.promises.readFile(path.resolve(cwd, source), "utf8"))),
  };
}

/**
 * Runs a command as the process: its exit code becomes the process's. The process ends when nothing
 * is left to do; what may still hold it (an HTTP client's idle keep-alive sockets, a child's pipes)
 * gets 200 ms, then it is ended: the command is done and its output written.
 */
export function runMain(cmd: Command, argv: readonly string[] = process.argv.slice(2)): void {
  const exit = (code: number): void => {
    process.exitCode = code;
    setTimeout(() => process.exit(code), 200).unref();
  };
  // run never rejects (it answers 1 for every error); the second handler is for a bug in this module.
  cmd.run(argv, processIo()).then(exit, (err: unknown) => {
    process.stderr.write(`${cmd.name}: ${messageOf(err)}\n`);
    exit(1);
  });
}
