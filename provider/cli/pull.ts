import { command } from "./command";

// `keboola-pulumi pull`: the drift written back into the manifest (provider/drift/commands.ts).

export const pullCommand = command({
  name: "keboola-pulumi pull",
  summary: "write what drifted back into the manifest, print its unified diff, then refresh the pulled objects' state",
  usage: "keboola-pulumi pull [<manifest>] [--stack <name>] [--dry-run] [--include-deleted] [--include-new]",
  description: "Run in the Pulumi project's directory, with the environment `pulumi` itself needs.",
  options: {
    stack: { type: "string", value: "<name>", help: "the stack (default: the selected one)" },
    "dry-run": { type: "boolean", help: "print the diff only: neither the file nor the state is written" },
    "include-deleted": { type: "boolean", help: "remove the entries of objects deleted in Keboola (otherwise the next up creates them again)" },
    "include-new": {
      type: "boolean",
      help: "also add entries for objects made in Keboola that the stack does not manage (with\nadoptExisting: the next up takes them over); never another stack's, never a job's tables",
    },
  },
  positionals: [{ name: "<manifest>", noun: "the manifest", help: "the manifest to write (default: stack config keboola:manifest, else keboola.yaml)", optional: true }],
  exitCodes: "exit code: 0 written (or nothing drifted), 1 an error (wrong arguments too), or a stack made by a program that drifted (pull cannot rewrite code: the changes to make are printed)",
  async run({ values, positionals: [manifest] }, io) {
    const { pull } = await import("../drift/commands");
    return pull({ manifest, stack: values.stack, dryRun: values["dry-run"], includeDeleted: values["include-deleted"], includeNew: values["include-new"] }, io);
  },
});
