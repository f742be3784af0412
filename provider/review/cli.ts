import * as fs from "node:fs";
import { isRecord } from "../../keboola/json";
import { renderReview, ReviewInputError } from "./index";

// `keboola-pulumi review <preview.json | ->`: the Markdown review on standard output. Exit codes:
// 0 the review was written; 1 the input cannot be read or is not `pulumi preview --json` output
// (the message says which and what to give instead); 2 wrong arguments (with the usage).

export const REVIEW_USAGE = `usage: keboola-pulumi review <preview.json | ->
  pulumi preview --json --show-sames > preview.json && keboola-pulumi review preview.json > review.md
  "-" reads standard input. Without --show-sames Pulumi leaves unchanged resources out, and the
  diagram shows only the changed ones and what they refer to.`;

export interface ReviewIo {
  read(source: string): Promise<string>;
  write(text: string): void;
  error(text: string): void;
}

/** Reads a file, or standard input for `-`. */
export async function readInput(source: string): Promise<string> {
  if (source === "-") {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
    return Buffer.concat(chunks).toString("utf8");
  }
  try {
    return await fs.promises.readFile(source, "utf8");
  } catch (err) {
    const code = isRecord(err) ? err.code : undefined;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : code === "EACCES" ? "permission denied" : err instanceof Error ? err.message : String(err);
    throw new ReviewInputError(`cannot read ${source}: ${why} (write it with \`pulumi preview --json > ${source}\`, or give \`-\` to read standard input)`);
  }
}

export async function review(args: string[], io: ReviewIo): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    io.write(`${REVIEW_USAGE}\n`);
    return 0;
  }
  const options = args.filter((a) => a.startsWith("--"));
  if (options.length || args.length !== 1) {
    io.error(`keboola-pulumi review: ${options.length ? `unknown option ${options[0]}` : args.length ? "give one preview file" : "the preview file is missing"}\n${REVIEW_USAGE}\n`);
    return 2;
  }
  const source = args[0];
  try {
    const text = await io.read(source);
    io.write(renderReview(text, source === "-" ? "standard input" : source));
    return 0;
  } catch (err) {
    if (!(err instanceof ReviewInputError)) throw err;
    io.error(`keboola-pulumi review: ${err.message}\n`);
    return 1;
  }
}
