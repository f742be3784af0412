import * as fs from "node:fs";
import * as path from "node:path";
import type { DriftIo } from "../drift/commands";
import type { ChangeRequest, ChangeRequests } from "./change-request";
import { GitError, type Git } from "./git";
import { StepError } from "./steps";

// `keboola-pulumi pr drift`: the nightly job of examples/ci/. The production stack is compared with
// Keboola (drift); when something drifted, the manifest as `pull` writes it is committed on top of
// the checked-out commit to the job's branch (default `keboola-drift`) and one pull request from
// that branch is opened, or its title and description replaced, with the drift report as the
// description. Nothing is written to the working tree, to the stack's state or to Keboola: the
// state stays as the last `up` left it, so a deployment of some other change meanwhile does what
// it did before (it does not revert the UI's change), and the drift is found again on the next run
// until the pull request is merged (its `up` then records Keboola's values) or closed.
// When nothing drifts any more, an open drift pull request is closed with a note.

export interface DriftStep {
  io: DriftIo;
  /** The production stack. */
  stack: string;
  git: Git;
  /** Undefined when the CI environment names no forge: the report and the diff are printed only. */
  requests?: ChangeRequests;
  branch: string;
  base: string;
  remote: string;
  includeDeleted: boolean;
  includeNew: boolean;
  /** The commit checked out, for the description (e.g. GITHUB_SHA). */
  revision?: string;
}

export interface DriftOutcome {
  drifted: boolean;
  pushed: boolean;
  request?: ChangeRequest & { opened: boolean };
  closed?: number;
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

export async function driftStep(s: DriftStep): Promise<DriftOutcome> {
  // The drift modules load the kinds and the Pulumi runtime: only this step pays for them.
  const { planPull, programRefusal } = await import("../drift/commands");
  const { drifted, renderMarkdown, counts } = await import("../drift/report");
  const { unifiedDiff } = await import("../drift/unified-diff");
  const plan = await planPull(s.io, { stack: s.stack, includeDeleted: s.includeDeleted, includeNew: s.includeNew });
  if (plan.program) {
    if (!drifted(plan.report)) return done(s, { drifted: false, pushed: false }, `Nothing drifted in stack ${s.stack}.`);
    throw new StepError(programRefusal(plan, "pr drift").replace(/^keboola-pulumi pr drift: /, "").trim());
  }
  const { name, before, result, report } = plan;
  const changes = unifiedDiff(before, result.text, name);
  const open = s.requests ? await forge(s, () => s.requests!.findOpen(s.branch)) : undefined;
  if (!changes) {
    const why = drifted(report)
      ? `Stack ${s.stack} drifted, but not in what ${name} declares (${result.notes.join("; ")}): no pull request.`
      : `Nothing drifted in stack ${s.stack}.`;
    s.io.write(drifted(report) ? renderMarkdown(report) : "");
    if (!open) return done(s, { drifted: drifted(report), pushed: false }, why);
    const note = `${why} Closing: Keboola and \`${name}\` agree again.`;
    await forge(s, () => s.requests!.close(open.number, note));
    return done(s, { drifted: drifted(report), pushed: false, closed: open.number }, `${why} Closed ${s.requests!.name(open.number)}.`);
  }

  const c = counts(report);
  const parts = [...(c.changed + c.deleted ? [`${plural(c.changed + c.deleted, "object")} changed outside the code`] : []), ...(plan.added ? [`${plural(plan.added, "object")} made in Keboola`] : [])];
  const title = `Keboola drift: ${parts.join(", ")}`;
  const body = [
    renderMarkdown(report),
    "### This pull request",
    "",
    `\`${name}\` as \`keboola-pulumi pull\` writes it${s.revision ? ` on top of ${s.revision.slice(0, 12)}` : ""}, so that it declares what Keboola holds in stack \`${s.stack}\`. Merging it deploys no change to Keboola. Closing it without merging: the next deployment of production puts the code's values back. The job replaces this branch while the drift lasts, and closes this pull request when nothing drifts any more.`,
    ...(result.notes.length ? ["", "Notes:", "", ...result.notes.map((n) => `- ${n}`)] : []),
    "",
  ].join("\n");
  s.io.write(`${changes}\n${body}`);
  if (!s.requests) return done(s, { drifted: drifted(report), pushed: false }, "No forge is configured (GITHUB_TOKEN and GITHUB_REPOSITORY, or GITLAB_TOKEN, CI_PROJECT_ID and CI_API_V4_URL): nothing was pushed.");

  const top = fs.realpathSync(await gitStep(() => s.git.topLevel()));
  const file = path.relative(top, fs.realpathSync(plan.file)).split(path.sep).join("/");
  const head = await gitStep(() => s.git.remoteHead(s.remote, s.branch));
  // The branch already holds this text (an earlier run found the same drift): no new commit, so the pull request's pipelines do not run again for nothing.
  const same = head !== undefined && (await gitStep(() => s.git.remoteFile(s.remote, s.branch, file))) === result.text;
  if (!same) {
    const commit = await gitStep(() => s.git.commitFile(file, result.text, `${title}\n\nWritten by keboola-pulumi pr drift from stack ${s.stack}.\n`));
    await gitStep(() => s.git.push(s.remote, commit, s.branch, head));
  }
  const request = open
    ? { ...(await forge(s, () => s.requests!.update(open.number, { title, body }))), opened: false }
    : { ...(await forge(s, () => s.requests!.open({ branch: s.branch, base: s.base, title, body }))), opened: true };
  return done(s, { drifted: drifted(report), pushed: !same, request }, `${request.opened ? "Opened" : "Updated"} ${s.requests.name(request.number)}${request.url ? ` (${request.url})` : ""} from branch ${s.branch}${same ? " (the branch already held this change)" : ""}.`);
}

function done(s: DriftStep, outcome: DriftOutcome, line: string): DriftOutcome {
  s.io.error(`${line}\n`);
  return outcome;
}

async function gitStep<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    if (err instanceof GitError) throw new StepError(err.message);
    throw err;
  }
}

async function forge<T>(s: DriftStep, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    throw new StepError(`${s.requests?.where ?? "the forge"}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
