import * as path from "node:path";
import type { Pipeline } from "../pipeline/steps";
import { command, group, UsageError, type CliIo, type OptionSpecs } from "./command";

// `keboola-pulumi pr <open|update|close|merge|drift>`: the pull-request workflow's steps
// (provider/pipeline/steps.ts) and the nightly drift job's (provider/pipeline/drift.ts), as
// examples/ci/ runs them. The Pulumi project is the current directory (or --dir); the production
// stack is `production` (or --production); the pull request's comment goes to the forge the CI
// environment names (GITHUB_TOKEN and GITHUB_REPOSITORY, or GitLab's GITLAB_TOKEN, CI_PROJECT_ID
// and CI_API_V4_URL), and always to standard output. Each step declares only the options it reads,
// so an option another step takes is refused rather than ignored. What a step runs loads when it
// runs: `pr --help` and wrong arguments load none of it.

const PROJECT = {
  production: { type: "string", default: "production", value: "<stack>", help: "the production stack (default production)" },
  dir: { type: "string", value: "<pulumi project>", help: "the Pulumi project's directory (default: the current one)" },
} as const satisfies OptionSpecs;

const NUMBER = { type: "string", value: "<pull request>", help: "the pull request's number" } as const;

/** `--number`'s value as a pull request number. */
function numberOf(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!(Number.isInteger(n) && n > 0)) throw new UsageError(`--number must be a pull request number, got "${raw}"`);
  return n;
}

/** The steps that run one pull request's stack: open, update, close, merge. */
function pullRequestStep(step: "open" | "update" | "close" | "merge", summary: string) {
  const needsNumber = step !== "merge";
  return command({
    name: `keboola-pulumi pr ${step}`,
    summary,
    usage: `keboola-pulumi pr ${step} ${needsNumber ? "--number <pull request>" : "[--number <pull request>]"} [--production <stack>] [--dir <pulumi project>]`,
    options: { number: needsNumber ? NUMBER : { ...NUMBER, help: "the merged pull request: its comment notes the deployment" }, ...PROJECT },
    async run({ values }, io: CliIo) {
      const number = numberOf(values.number);
      if (number === undefined && needsNumber) throw new UsageError(`pr ${step} needs --number <pull request>`);
      const [{ threadFromEnv }, { pulumiCli }, steps] = await Promise.all([import("../pipeline/comment"), import("../pipeline/pulumi"), import("../pipeline/steps")]);
      const pipeline: Pipeline = {
        pulumi: pulumiCli({ cwd: path.resolve(io.cwd, values.dir ?? "."), env: io.env, log: io.error }),
        production: values.production,
        ...(number !== undefined ? { thread: threadFromEnv(number, io.env) } : {}),
        print: io.write,
        revision: io.env.GITHUB_SHA ?? io.env.CI_COMMIT_SHA,
      };
      if (step === "merge") await steps.merge(pipeline, number);
      // number is set here (checked above); the test only narrows its type.
      else if (number !== undefined) await (step === "close" ? steps.close : steps.openOrUpdate)(pipeline, number);
      return 0;
    },
  });
}

const driftStepCommand = command({
  name: "keboola-pulumi pr drift",
  summary: "the nightly drift job: what drifted in production proposed as one pull request with the drift report",
  description:
    "Compares the production stack with Keboola. When something drifted, the manifest as `pull` writes it is committed to\n--branch and pushed, and one pull request into --base is opened or updated with the drift report; when nothing\ndrifts any more, it is closed. It finds its pull request by its branch (it takes no --number), and writes neither\nthe working tree, the stack's state nor Keboola.",
  usage: "keboola-pulumi pr drift [--base <branch>] [--branch <branch>] [--remote <name>] [--include-deleted] [--include-new] [--production <stack>] [--dir <pulumi project>]",
  options: {
    base: { type: "string", value: "<branch>", help: "the branch the pull request goes into (default: the CI's default branch, CI_DEFAULT_BRANCH or GITHUB_REF_NAME)" },
    branch: { type: "string", default: "keboola-drift", value: "<branch>", help: "the branch the pulled manifest is pushed to (default keboola-drift)" },
    remote: { type: "string", default: "origin", value: "<name>", help: "the git remote (default origin)" },
    "include-deleted": { type: "boolean", help: "as pull's: remove the entries of objects deleted in Keboola" },
    "include-new": { type: "boolean", help: "as pull's: add entries for objects made in Keboola that the stack does not manage" },
    ...PROJECT,
  },
  refuse: { number: "pr drift takes no --number: it finds its pull request by its branch" },
  exitCodes: "exit code: 0 done (drift or not: the pull request says it), 1 an error (wrong arguments too)",
  async run({ values }, io) {
    const base = values.base ?? io.env.CI_DEFAULT_BRANCH ?? io.env.GITHUB_REF_NAME;
    if (!base) throw new UsageError("pr drift needs --base <branch> (the branch the pull request goes into) outside GitHub Actions and GitLab CI");
    const [{ driftStep }, { changeRequestsFromEnv }, { gitIn }] = await Promise.all([import("../pipeline/drift"), import("../pipeline/change-request"), import("../pipeline/git")]);
    const dir = path.resolve(io.cwd, values.dir ?? ".");
    await driftStep({
      io: { env: io.env, cwd: dir, write: io.write, error: io.error },
      stack: values.production,
      git: gitIn(dir, io.env),
      requests: changeRequestsFromEnv(io.env),
      branch: values.branch,
      base,
      remote: values.remote,
      includeDeleted: values["include-deleted"],
      includeNew: values["include-new"],
      revision: io.env.GITHUB_SHA ?? io.env.CI_COMMIT_SHA,
    });
    return 0;
  },
});

export const prCommand = group({
  name: "keboola-pulumi pr",
  summary: "the pull-request pipeline's steps (open, update, close, merge) and the nightly drift job's (drift)",
  noun: "step",
  commands: {
    open: pullRequestStep("open", "deploy stack pr-<number> into dev branch pr-<number>, then comment the review of what merging would change in production"),
    update: pullRequestStep("update", "the same as open, on every push: the stack brought up to the pull request's code, the comment replaced"),
    close: pullRequestStep("close", "destroy stack pr-<number> with its dev branch, and remove the stack"),
    merge: pullRequestStep("merge", "pulumi up of the production stack (--number: also note it in the pull request's comment)"),
    drift: driftStepCommand,
  },
});
