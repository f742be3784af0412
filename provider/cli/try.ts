import { resolveSettings } from "../config";
import { command, UsageError } from "./command";

// `keboola-pulumi try`: per sink of a source, its table and the row an event becomes (a table, or
// JSON with --json) on standard output. Exit 1 when a sink (or the service) refuses the event, as
// preview fails on a refused example: a refusal is the answer the user is looking for, and a
// pipeline that tries its examples must fail on it.

export const tryCommand = command({
  name: "keboola-pulumi try",
  summary: "what an event becomes: per sink of a source, its table and row (offline, or --remote by the deployed source)",
  usage: 'keboola-pulumi try <manifest> --source <key> <payload file | -> [--json] [--remote] [--header "Name: value"]... [--signal logs|metrics|traces] [--host <url>] [--token <token>]',
  options: {
    source: { type: "string", value: "<key>", help: "the key of the source under sources:" },
    json: { type: "boolean", help: "print JSON instead of a table" },
    remote: { type: "boolean", help: "ask the deployed source's test endpoint instead of evaluating locally (needs --host/KBC_HOST and --token/KBC_TOKEN)" },
    header: { type: "string", multiple: true, value: '"Name: value"', help: "a request header, repeatable (a JSON payload gets Content-Type: application/json unless one is given)" },
    signal: { type: "string", value: "logs|metrics|traces", help: "OTLP sources: the record's signal (default logs)" },
    host: { type: "string", value: "<url>", help: "with --remote: the Storage API host (or KBC_HOST)" },
    token: { type: "string", value: "<token>", help: "with --remote: a Storage API token (or KBC_TOKEN)" },
  },
  positionals: [
    { name: "<manifest>", noun: "the manifest", help: "keboola.yaml (an exported one too)" },
    { name: "<payload>", noun: "the payload (a file, or - for standard input)", help: "the event: a file with the request body (for an OTLP source one flattened record, a JSON object), or - for standard input" },
  ],
  exitCodes: "exit code: 0 every sink takes the event, 1 a sink or the service refuses it, or an error (wrong arguments too)",
  async run({ values, positionals: [file, payloadArg] }, io) {
    if (!values.source) throw new UsageError("name the source: --source <key under sources>");
    const { formatTry, headerArg, signalArg, tryLocally, tryRefused, tryRemotely, TryError } = await import("../manifest/try");
    const headers = values.header.map(headerArg);
    const signal = signalArg(values.signal);
    const { loadManifest } = await import("../manifest/parse");
    const manifest = loadManifest(file);
    let payload: string;
    try {
      payload = await io.read(payloadArg);
    } catch (err) {
      throw new TryError(`cannot read the payload ${payloadArg}: ${err instanceof Error ? err.message : String(err)}`);
    }
    const input = { source: values.source, payload, headers: Object.fromEntries(headers), ...(signal ? { signal } : {}) };
    let result;
    if (values.remote) {
      if (!values.host && !io.env.KBC_HOST) throw new TryError("--remote needs the Keboola host: pass --host https://connection.<stack> or set KBC_HOST");
      if (!values.token && !io.env.KBC_TOKEN) throw new TryError("--remote needs a token: set KBC_TOKEN (or pass --token)");
      const { KeboolaClient } = await import("../api/client");
      const given: Record<string, string | undefined> = { host: values.host, token: values.token };
      const client = new KeboolaClient(resolveSettings({ get: (key) => given[key.replace(/^keboola:/, "")] }, io.env));
      result = await tryRemotely(manifest, input, client);
    } else {
      result = tryLocally(manifest, input);
    }
    io.write(values.json ? `${JSON.stringify(result, null, 2)}\n` : formatTry(result));
    return tryRefused(result) ? 1 : 0;
  },
});
