import { spawn } from "node:child_process";

// Running the Pulumi CLI from a pipeline step: the user's own `pulumi` (PATH, or PULUMI_BIN), in
// the Pulumi project's directory, with the pipeline's environment (its backend, passphrase and
// Keboola credentials). Its output is passed through to the step's log as it comes, so a long
// `up` shows progress, and kept to be read.

export interface PulumiRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface PulumiCli {
  /** Runs `pulumi <args>`; `quiet` keeps the standard output out of the log (a JSON document). */
  run(args: string[], options?: { quiet?: boolean }): Promise<PulumiRun>;
}

export function pulumiCli(o: { cwd: string; env?: NodeJS.ProcessEnv; bin?: string; log?: (text: string) => void }): PulumiCli {
  const env = o.env ?? process.env;
  const bin = o.bin ?? env.PULUMI_BIN ?? "pulumi";
  const log = o.log ?? ((text: string) => process.stderr.write(text));
  return {
    run(args, options = {}) {
      log(`$ pulumi ${args.join(" ")}\n`);
      return new Promise((resolve, reject) => {
        // Non-interactive, no colour codes in what a comment quotes.
        const child = spawn(bin, [...args, "--non-interactive", "--color", "never"], { cwd: o.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (d: Buffer) => {
          stdout += d.toString();
          if (!options.quiet) log(d.toString());
        });
        child.stderr.on("data", (d: Buffer) => {
          stderr += d.toString();
          log(d.toString());
        });
        child.on("error", (err) => reject(new Error(`could not run the Pulumi CLI "${bin}": ${err.message} (install it, or set PULUMI_BIN)`)));
        child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
      });
    },
  };
}
