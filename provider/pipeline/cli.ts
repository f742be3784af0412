import * as path from "node:path";
import { threadFromEnv } from "./comment";
import { pulumiCli } from "./pulumi";
import { close, merge, openOrUpdate, StepError, type Pipeline } from "./steps";

// `keboola-pulumi pr <open|update|close|merge|drift>`: the pull-request workflow's steps (and the
// nightly drift job's, drift.ts), as examples/ci/ runs them. The Pulumi project is the current
// directory (or --dir); the production stack is `production` (or --production); the pull
// request's comment goes to the forge the CI environment names (GITHUB_TOKEN and GITHUB_REPOSITORY, or GitLab's GITLAB_TOKEN, CI_PROJECT_ID
// and CI_API_V4_URL), and always to standard output.

export const PR_USAGE = `usage: keboola-pulumi pr <open|update|close|merge|drift> [--number <pull request>] [--production <stack>] [--dir <pulumi project>]
  open, update  deploy stack pr-<number> into dev branch pr-<number>, then comment the review of
                what merging would change in production
  close         destroy stack pr-<number> with its dev branch, and remove the stack
  merge         pulumi up of the production stack (--number: also note it in the comment)
  drift         compare the production stack with Keboola; when something drifted, push the
                manifest as \`pull\` writes it to branch --branch (keboola-drift) and open or update one
                pull request into --base (the CI's default branch) with the drift report; close it
                when nothing drifts any more. Also --remote (origin), --include-deleted,
                --include-new (as pull's).`;

export interface PrIo {
  write(text: string): void;
  error(text: string): void;
  env: NodeJS.ProcessEnv;
}

const FLAGS = ["include-deleted", "include-new"];

function options(args: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    if (FLAGS.includes(args[i].slice(2)) && args[i].startsWith("--")) {
      out.set(args[i].slice(2), "true");
      continue;
    }
    const m = /^--(number|production|dir|branch|base|remote)(?:=(.*))?$/.exec(args[i]);
    if (!m) throw new UsageError(`unexpected argument "${args[i]}"`);
    const value = m[2] ?? args[++i];
    if (value === undefined || value === "") throw new UsageError(`--${m[1]} needs a value`);
    out.set(m[1], value);
  }
  return out;
}

class UsageError extends Error {}

export async function pr(args: string[], io: PrIo): Promise<number> {
  const [step, ...rest] = args;
  try {
    if (!step || !["open", "update", "close", "merge", "drift"].includes(step)) throw new UsageError(step ? `unknown step "${step}"` : "the step is missing");
    const o = options(rest);
    const raw = o.get("number");
    const number = raw === undefined ? undefined : Number(raw);
    if (number !== undefined && !(Number.isInteger(number) && number > 0)) throw new UsageError(`--number must be a pull request number, got "${raw}"`);
    if (step === "drift") return await drift(o, io);
    if (number === undefined && step !== "merge") throw new UsageError(`pr ${step} needs --number <pull request>`);
    const pipeline: Pipeline = {
      pulumi: pulumiCli({ cwd: path.resolve(o.get("dir") ?? "."), env: io.env, log: io.error }),
      production: o.get("production") ?? "production",
      ...(number !== undefined ? { thread: threadFromEnv(number, io.env) } : {}),
      print: io.write,
      revision: io.env.GITHUB_SHA ?? io.env.CI_COMMIT_SHA,
    };
    if (step === "open" || step === "update") await openOrUpdate(pipeline, number!);
    else if (step === "close") await close(pipeline, number!);
    else await merge(pipeline, number);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      io.error(`keboola-pulumi pr: ${err.message}\n${PR_USAGE}\n`);
      return 2;
    }
    if (err instanceof StepError) {
      io.error(`keboola-pulumi pr ${step}: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}

/** The nightly drift job's step; what it needs (the kinds, the runtime) loads only here. */
async function drift(o: Map<string, string>, io: PrIo): Promise<number> {
  if (o.has("number")) throw new UsageError("pr drift takes no --number: it finds its pull request by its branch");
  const [{ driftStep }, { changeRequestsFromEnv }, { gitIn }, { DriftError }, { ConfigurationError }, { ManifestError }] = await Promise.all([
    import("./drift"),
    import("./change-request"),
    import("./git"),
    import("../drift/stack"),
    import("../config"),
    import("../manifest/parse"),
  ]);
  const dir = path.resolve(o.get("dir") ?? ".");
  const base = o.get("base") ?? io.env.CI_DEFAULT_BRANCH ?? io.env.GITHUB_REF_NAME;
  if (!base) throw new UsageError("pr drift needs --base <branch> (the branch the pull request goes into) outside GitHub Actions and GitLab CI");
  const step = driftStep({
    io: { env: io.env, cwd: dir, write: io.write, error: io.error },
    stack: o.get("production") ?? "production",
    git: gitIn(dir, io.env),
    requests: changeRequestsFromEnv(io.env),
    branch: o.get("branch") ?? "keboola-drift",
    base,
    remote: o.get("remote") ?? "origin",
    includeDeleted: o.has("include-deleted"),
    includeNew: o.has("include-new"),
    revision: io.env.GITHUB_SHA ?? io.env.CI_COMMIT_SHA,
  });
  try {
    await step;
  } catch (err) {
    // A stack that cannot be read, a manifest that does not parse: the step's failure, said as drift and pull say it.
    if (err instanceof DriftError || err instanceof ConfigurationError || err instanceof ManifestError) throw new StepError(err.message);
    throw err;
  }
  return 0;
}
