import { command } from "./command";

// `keboola-pulumi drift`: what changed in Keboola outside the code since the stack's last `up`
// (provider/drift/commands.ts). The one command whose exit code 2 says "changes found", as
// `terraform plan -detailed-exitcode`, so a pipeline can tell drift from a failure.

export const driftCommand = command({
  name: "keboola-pulumi drift",
  summary: "what changed in Keboola outside the code, per object the stack manages (nothing is written)",
  usage: "keboola-pulumi drift [<manifest>] [--stack <name>] [--json] [--markdown <file>]",
  description: "Run in the Pulumi project's directory, with the environment `pulumi` itself needs.",
  options: {
    stack: { type: "string", value: "<name>", help: "the stack (default: the selected one)" },
    json: { type: "boolean", help: "the report as JSON on standard output" },
    markdown: { type: "string", value: "<file>", help: "also write the report as Markdown (the review report's format) to <file>" },
  },
  // Taken as pull takes it, so the two command lines read alike; drift reads the stack, not the file.
  positionals: [{ name: "<manifest>", noun: "the manifest", help: "accepted as pull takes it; drift compares the stack's state with Keboola and does not read it", optional: true }],
  exitCodes: "exit code: 0 nothing drifted, 2 something drifted, 1 an error (wrong arguments too, or an object that could not be read)",
  async run({ values }, io) {
    const { drift } = await import("../drift/commands");
    return drift({ stack: values.stack, json: values.json, markdown: values.markdown }, io);
  },
});
