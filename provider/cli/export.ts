import { resolveSettings } from "../config";
import { command, UsageError } from "./command";

// `keboola-pulumi export`: a live project's manifest on standard output; notes (secrets to set,
// what was left out) on standard error. The modules that read the project load when it runs, so
// `--help` and wrong arguments answer at once.

export const exportCommand = command({
  name: "keboola-pulumi export",
  summary: "write the manifest (keboola.yaml) of a live project to standard output",
  usage: "keboola-pulumi export --host <storage api url> [--token <token>] [--branch <id>] [--components <id,id,...>] [--schema <path or url>] [--protect] > keboola.yaml",
  description:
    "The token may come from KBC_TOKEN instead (so it is not in the shell history or process list).\nNotes (secrets to set, what was left out) go to standard error. The manifest's header names the exported project\nwith the line that guards a stack to it (`pulumi config set keboola:projectId <id>`); with KBC_PROJECT_ID set, a\ntoken of another project is refused before anything is read.",
  options: {
    host: { type: "string", value: "<url>", help: "Storage API host, e.g. https://connection.keboola.com (or KBC_HOST)" },
    token: { type: "string", value: "<token>", help: "Storage API token (or KBC_TOKEN); a master token reads everything" },
    branch: { type: "string", value: "<id>", help: '"default" (default) or the numeric id of a dev branch' },
    components: { type: "string", value: "<id,id,...>", help: "export only the configurations of these components (default: all)" },
    schema: { type: "string", value: "<path or url>", help: "the $schema for the YAML language server (default node_modules/keboola-pulumi/keboola.schema.json)" },
    protect: { type: "boolean", help: "write options: { protect: true } on every entry (adopting a production project: nothing is deleted until an entry is unprotected)" },
  },
  async run({ values }, io) {
    if (!values.host && !io.env.KBC_HOST) throw new UsageError("the Keboola host is missing: pass --host https://connection.<stack> or set KBC_HOST");
    if (!values.token && !io.env.KBC_TOKEN) throw new UsageError("the token is missing: set KBC_TOKEN (or pass --token)");
    const given: Record<string, string | undefined> = { host: values.host, token: values.token };
    const settings = resolveSettings({ get: (key) => given[key.replace(/^keboola:/, "")] }, io.env);
    const [{ KeboolaClient }, { exportProject }] = await Promise.all([import("../api/client"), import("../manifest/export")]);
    const components = values.components?.split(",").map((s) => s.trim()).filter(Boolean);
    const result = await exportProject(new KeboolaClient(settings), { branch: values.branch, components, schema: values.schema, protect: values.protect });
    io.write(result.yaml);
    for (const note of result.notes) io.error(`note: ${note}\n`);
    return 0;
  },
});
