#!/usr/bin/env node
import { readInput, review } from "../review/cli";

// `keboola-pulumi export --host <url> --token <token> [--branch <id>] [--components a,b] [--schema <path>] > keboola.yaml`
// The token may come from KBC_TOKEN instead (so it is not in the shell history or process list).
// The manifest goes to stdout; notes (secrets to set, what was left out) go to stderr.

const USAGE = `usage: keboola-pulumi export --host <storage api url> [--token <token>] [--branch <id>] [--components <id,id,...>] [--schema <path or url>] > keboola.yaml
  --host        Storage API host, e.g. https://connection.keboola.com (or KBC_HOST)
  --token       Storage API token (or KBC_TOKEN); a master token reads everything
  --branch      "default" (default) or the numeric id of a dev branch
  --components  export only the configurations of these components (default: all)
  --schema      the $schema for the YAML language server (default node_modules/keboola-pulumi/keboola.schema.json)
       keboola-pulumi review <preview.json | -> > review.md
  the Markdown review of \`pulumi preview --json\` (\`-\` reads standard input); with --show-sames the diagram shows the whole project`;

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

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === "review") return review(rest, { read: readInput, write: (text) => process.stdout.write(text), error: (text) => process.stderr.write(text) });
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
  // Loaded here, not at the top: `review` needs none of the API client (it starts in a tenth of the time).
  const [{ KeboolaClient }, { resolveSettings }, { exportProject }] = await Promise.all([import("../api/client"), import("../config"), import("./export")]);
  const settings = resolveSettings({ get: (key) => args.get(key.replace(/^keboola:/, "")) });
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
