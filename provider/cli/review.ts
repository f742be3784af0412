import { isRecord } from "../../keboola/json";
import { command } from "./command";

// `keboola-pulumi review <preview.json | ->`: the Markdown review on standard output. Exit 1 when
// the input cannot be read or is not `pulumi preview --json` output (the message says which and
// what to give instead), as for wrong arguments.

export const reviewCommand = command({
  name: "keboola-pulumi review",
  summary: "the Markdown review of `pulumi preview --json` (what a reviewer reads in the pull request)",
  usage: "keboola-pulumi review <preview.json | ->",
  description:
    'pulumi preview --json --show-sames > preview.json && keboola-pulumi review preview.json > review.md\n"-" reads standard input. Without --show-sames Pulumi leaves unchanged resources out, and the\ndiagram shows only the changed ones and what they refer to.',
  options: {},
  positionals: [{ name: "<preview.json | ->", noun: "the preview file", help: "the output of `pulumi preview --json`, or - for standard input" }],
  async run({ positionals: [source] }, io) {
    const { renderReview, ReviewInputError } = await import("../review/index");
    let text: string;
    try {
      text = await io.read(source);
    } catch (err) {
      const code = isRecord(err) ? err.code : undefined;
      const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : code === "EACCES" ? "permission denied" : err instanceof Error ? err.message : String(err);
      throw new ReviewInputError(`cannot read ${source}: ${why} (write it with \`pulumi preview --json > ${source}\`, or give \`-\` to read standard input)`);
    }
    io.write(renderReview(text, source === "-" ? "standard input" : source));
    return 0;
  },
});
