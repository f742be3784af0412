#!/usr/bin/env node
import * as fs from "node:fs";
import { resolveSettings } from "../config";
import { formatTry, headerArg, signalArg, tryLocally, tryRefused, tryRemotely, TryError } from "./try";
import { pr, PR_USAGE } from "../pipeline/cli";
import { DRIFT_USAGE } from "../drift/usage";

// The modules that load the resource kinds (and with them the Pulumi SDK) load when a command needs
// them: `review`, `pr` and the usage text start in a fraction of that time.

// `keboola-pulumi export --host <url> --token <token> [--branch <id>] [--components a,b] [--schema <path>] > keboola.yaml`
// `keboola-pulumi try <manifest> --source <key> <payload file | -> [--json] [--remote] [--header "Name: value"] [--signal s]`
// The token may come from KBC_TOKEN instead (so it is not in the shell history or process list).
// export: the manifest goes to stdout; notes (secrets to set, what was left out) go to stderr.
// try: per sink of the source, its table and row (a table, or JSON with --json) to stdout; exit 1
// when a sink (or the service) refuses the event, as preview fails on a refused example.

const USAGE = `usage: keboola-pulumi export --host <storage api url> [--token <token>] [--branch <id>] [--components <id,id,...>] [--schema <path or url>] > keboola.yaml
  --host        Storage API host, e.g. https://connection.keboola.com (or KBC_HOST)
  --token       Storage API token (or KBC_TOKEN); a master token reads everything
  --branch      "default" (default) or the numeric id of a dev branch
  --components  export only the configurations of these components (default: all)
  --schema      the $schema for the YAML language server (default node_modules/keboola-pulumi/keboola.schema.json)

usage: keboola-pulumi try <manifest> --source <key> <payload file | -> [--json] [--remote] [--header "Name: value"]... [--signal logs|metrics|traces]
  <manifest>    keboola.yaml (an exported one too)
  --source      the key of the source under sources:
  <payload>     the event: a file with the request body (for an OTLP source one flattened record, a JSON object), or - for standard input
  --json        print JSON instead of a table
  --remote      ask the deployed source's test endpoint instead of evaluating locally (needs --host/KBC_HOST and --token/KBC_TOKEN)
  --header      a request header, repeatable (a JSON payload gets Content-Type: application/json unless one is given)
  --signal      OTLP sources: the record's signal (default logs)

usage: keboola-pulumi review <preview.json | -> > review.md
  the Markdown review of \`pulumi preview --json\` (\`-\` reads standard input); with --show-sames the diagram shows the whole project

${PR_USAGE}

${DRIFT_USAGE}`;

function parseArgs(argv: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const m = /^--([a-z]+)(?:=(.*))?$/.exec(argv[i]);
    if (!m) throw new Error(`unexpected argument "${argv[i]}"`);
    const value = m[2] ?? argv[++i];
    if (value === undefined) throw new Error(`--${m[1]} needs a value`);
    out.set(m[1], value);
  }
  return out;
}

/** `try`'s arguments: two positionals (manifest, payload), flags, options with a value (--header repeatable). */
function parseTryArgs(argv: string[]): { positionals: string[]; flags: Set<string>; options: Map<string, string>; headers: Array<[string, string]> } {
  const positionals: string[] = [];
  const flags = new Set<string>();
  const options = new Map<string, string>();
  const headers: Array<[string, string]> = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const m = /^--([a-z]+)(?:=(.*))?$/.exec(arg);
    if (!m) {
      positionals.push(arg);
      continue;
    }
    const name = m[1];
    if (name === "json" || name === "remote") {
      flags.add(name);
      continue;
    }
    if (!["source", "header", "signal", "host", "token"].includes(name)) throw new TryError(`unknown option --${name}\n${USAGE}`);
    const value = m[2] ?? argv[++i];
    if (value === undefined) throw new TryError(`--${name} needs a value`);
    if (name === "header") headers.push(headerArg(value));
    else options.set(name, value);
  }
  return { positionals, flags, options, headers };
}

async function runTry(argv: string[], stdin: () => string): Promise<number> {
  const { positionals, flags, options, headers } = parseTryArgs(argv);
  if (positionals.length !== 2) throw new TryError(`give the manifest and the payload (a file, or - for standard input)\n${USAGE}`);
  const source = options.get("source");
  if (!source) throw new TryError(`name the source: --source <key under sources>\n${USAGE}`);
  const [file, payloadArg] = positionals;
  const { loadManifest } = await import("./parse");
  const manifest = loadManifest(file);
  let payload: string;
  try {
    payload = payloadArg === "-" ? stdin() : fs.readFileSync(payloadArg, "utf8");
  } catch (err) {
    throw new TryError(`cannot read the payload ${payloadArg}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const input = { source, payload, headers: Object.fromEntries(headers), ...(options.has("signal") ? { signal: signalArg(options.get("signal")) } : {}) };
  let result;
  if (flags.has("remote")) {
    if (!options.get("host") && !process.env.KBC_HOST) throw new TryError(`--remote needs the Keboola host: pass --host https://connection.<stack> or set KBC_HOST`);
    if (!options.get("token") && !process.env.KBC_TOKEN) throw new TryError(`--remote needs a token: set KBC_TOKEN (or pass --token)`);
    const { KeboolaClient } = await import("../api/client");
    const client = new KeboolaClient(resolveSettings({ get: (key) => options.get(key.replace(/^keboola:/, "")) }));
    result = await tryRemotely(manifest, input, client);
  } else {
    result = tryLocally(manifest, input);
  }
  process.stdout.write(flags.has("json") ? `${JSON.stringify(result, null, 2)}\n` : formatTry(result));
  return tryRefused(result) ? 1 : 0;
}

export async function main(argv: string[], stdin: () => string = () => fs.readFileSync(0, "utf8")): Promise<number> {
  const [command, ...rest] = argv;
  if (command === "try") return runTry(rest, stdin);
  if (command === "pr") return pr(rest, { env: process.env, write: (text) => process.stdout.write(text), error: (text) => process.stderr.write(text) });
  if (command === "drift" || command === "pull") {
    const cli = await import("../drift/cli");
    const io = { env: process.env, cwd: process.cwd(), write: (text: string) => process.stdout.write(text), error: (text: string) => process.stderr.write(text) };
    return command === "drift" ? cli.drift(rest, io) : cli.pull(rest, io);
  }
  if (command === "review") {
    const { readInput, review } = await import("../review/cli");
    return review(rest, { read: readInput, write: (text) => process.stdout.write(text), error: (text) => process.stderr.write(text) });
  }
  if (command !== "export") {
    process.stderr.write(`${USAGE}\n`);
    return command === "--help" || command === "help" ? 0 : 2;
  }
  const args = parseArgs(rest);
  const known = ["host", "token", "branch", "components", "schema"];
  const unknown = [...args.keys()].filter((k) => !known.includes(k));
  if (unknown.length) throw new Error(`unknown option --${unknown[0]}\n${USAGE}`);
  if (!args.get("host") && !process.env.KBC_HOST) throw new Error(`the Keboola host is missing: pass --host https://connection.<stack> or set KBC_HOST\n${USAGE}`);
  if (!args.get("token") && !process.env.KBC_TOKEN) throw new Error(`the token is missing: set KBC_TOKEN (or pass --token)\n${USAGE}`);
  const settings = resolveSettings({ get: (key) => args.get(key.replace(/^keboola:/, "")) });
  const { KeboolaClient } = await import("../api/client");
  const { exportProject } = await import("./export");
  const client = new KeboolaClient(settings);
  const components = args.get("components")?.split(",").map((s) => s.trim()).filter(Boolean);
  const result = await exportProject(client, { branch: args.get("branch"), components, schema: args.get("schema") });
  process.stdout.write(result.yaml);
  for (const note of result.notes) process.stderr.write(`note: ${note}\n`);
  return 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`keboola-pulumi: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
