import { isRecord } from "../../keboola/json";
import { renderReview } from "../review/index";
import type { CommentThread } from "./comment";
import type { PulumiCli, PulumiRun } from "./pulumi";

// The pull-request workflow's steps (examples/ci/ calls them; the workflow files stay thin):
// - open / update: the pull request's own stack `pr-<n>`, in development branch `pr-<n>`
//   (stack config keboola:branch, the rest of its config copied from the production stack), is
//   brought up to the pull request's code; then the production stack is previewed with that code
//   and the review of what merging would change in production is posted as the pull request's
//   one comment (replaced on every push);
// - close: the pull request's stack is destroyed (with its branch and all in it) and removed;
// - merge: the production stack is brought up to the merged code.
// Each pull request touches only its own stack and branch, so pipelines of different pull
// requests run side by side; the state backend's lock guards each stack.

export interface Pipeline {
  pulumi: PulumiCli;
  /** The production stack (default `production`). */
  production: string;
  /** The pull request's comment, when the CI environment gives one. */
  thread?: CommentThread;
  /** Where the report also goes (the step's standard output). */
  print(text: string): void;
  /** The commit deployed, for the comment (e.g. GITHUB_SHA). */
  revision?: string;
}

export const prStack = (n: number): string => `pr-${n}`;

const short = (rev: string | undefined) => (rev ? ` (commit ${rev.slice(0, 12)})` : "");

/** The last lines of a failed command's output, for the comment. */
function tail(run: PulumiRun, lines = 40): string {
  const text = `${run.stdout}\n${run.stderr}`.trim().split("\n");
  return text.slice(-lines).join("\n");
}

async function must(p: Pipeline, args: string[], what: string): Promise<PulumiRun> {
  const run = await p.pulumi.run(args);
  if (run.code !== 0) throw new StepError(`${what} failed`, run);
  return run;
}

export class StepError extends Error {
  constructor(
    message: string,
    readonly run?: PulumiRun,
  ) {
    super(message);
  }
}

async function stackExists(p: Pipeline, stack: string): Promise<boolean> {
  const run = await p.pulumi.run(["stack", "ls", "--json"], { quiet: true });
  if (run.code !== 0) throw new StepError("listing the stacks failed", run);
  const list: unknown = JSON.parse(run.stdout);
  if (!Array.isArray(list)) throw new StepError("listing the stacks answered no list", run);
  return list.some((s) => isRecord(s) && typeof s.name === "string" && (s.name === stack || s.name.endsWith(`/${stack}`)));
}

/** What `up` said the development branch leaves out (the manifest's warning), for the comment. */
function leftOut(run: PulumiRun): string[] {
  // The diagnostics' copy of the warning (the progress display repeats it, prefixed).
  const lines = `${run.stdout}\n${run.stderr}`
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => /^warning: .*which cannot hold .* they are left out here/.test(l))
    .map((l) => l.replace(/^warning:\s*/, ""));
  return [...new Set(lines)];
}

/** The id of the stack's Branch, from its state. */
async function branchIdOf(p: Pipeline, stack: string): Promise<string | undefined> {
  const run = await p.pulumi.run(["stack", "export", "--stack", stack], { quiet: true });
  if (run.code !== 0) return undefined;
  const state: unknown = JSON.parse(run.stdout);
  const resources: unknown[] = isRecord(state) && isRecord(state.deployment) && Array.isArray(state.deployment.resources) ? state.deployment.resources : [];
  const found = resources.find((r) => isRecord(r) && r.type === "pulumi-nodejs:dynamic/keboola:Branch");
  const branchId = isRecord(found) && isRecord(found.outputs) ? found.outputs.branchId : undefined;
  return typeof branchId === "string" ? branchId : undefined;
}

/** The pull request's stack brought up to its code, and the review of what merging would change in production posted. */
export async function openOrUpdate(p: Pipeline, n: number): Promise<string> {
  const stack = prStack(n);
  const sections: string[] = [`## Keboola: pull request #${n}`];
  try {
    await must(p, ["stack", "select", "--create", stack], `selecting stack ${stack}`);
    // The production stack's config (host, token, manifest, secrets), then the branch: every push
    // picks up what production's config says now.
    await must(p, ["config", "cp", "--stack", p.production, "--dest", stack], `copying the config of stack ${p.production} to ${stack}`);
    await must(p, ["config", "set", "--stack", stack, "keboola:branch", stack], `setting keboola:branch of stack ${stack}`);
    const up = await must(p, ["up", "--yes", "--skip-preview", "--stack", stack], `pulumi up of stack ${stack}`);
    const branchId = await branchIdOf(p, stack);
    sections.push(
      `Deployed${short(p.revision)} to development branch **${stack}**${branchId ? ` (id ${branchId})` : ""} by stack \`${stack}\`: try the change there; production is untouched until the merge.`,
    );
    const left = leftOut(up);
    if (left.length) sections.push(left.map((l) => `> ${l}`).join("\n"));
  } catch (err) {
    if (!(err instanceof StepError)) throw err;
    sections.push(`**The development branch could not be deployed**${short(p.revision)}: ${err.message}.\n\n\`\`\`\n${err.run ? tail(err.run) : ""}\n\`\`\``);
    await post(p, sections.join("\n\n"));
    throw err;
  }
  // What merging changes in production: the production stack previewed with this code.
  // --show-sames: the diagram then shows the whole project, the changed objects highlighted in it.
  const preview = await p.pulumi.run(["preview", "--json", "--show-sames", "--stack", p.production], { quiet: true });
  sections.push(`### What merging changes in production (stack \`${p.production}\`)`);
  if (preview.code === 0) {
    sections.push(demoteHeadings(renderReview(preview.stdout, `pulumi preview --json --stack ${p.production}`)));
  } else {
    sections.push(`**The preview of production fails**: merging this would fail too.\n\n\`\`\`\n${previewErrors(preview)}\n\`\`\``);
  }
  const text = sections.join("\n\n");
  await post(p, text);
  if (preview.code !== 0) throw new StepError(`the preview of stack ${p.production} failed`, preview);
  return text;
}

/** The pull request's stack destroyed (its branch and everything in it) and removed. */
export async function close(p: Pipeline, n: number): Promise<string> {
  const stack = prStack(n);
  if (await stackExists(p, stack)) {
    await must(p, ["destroy", "--yes", "--skip-preview", "--stack", stack], `pulumi destroy of stack ${stack}`);
    await must(p, ["stack", "rm", "--yes", stack], `removing stack ${stack}`);
  }
  const text = `## Keboola: pull request #${n}\n\nClosed: development branch **${stack}** and stack \`${stack}\` were removed, with everything in them.`;
  await post(p, text);
  return text;
}

/** The production stack brought up to the merged code. */
export async function merge(p: Pipeline, n: number | undefined): Promise<string> {
  await must(p, ["up", "--yes", "--skip-preview", "--stack", p.production], `pulumi up of stack ${p.production}`);
  const text = `## Keboola: pull request${n !== undefined ? ` #${n}` : ""}\n\nMerged and deployed to production${short(p.revision)} by stack \`${p.production}\`.`;
  if (n !== undefined) await post(p, text);
  else p.print(`${text}\n`);
  return text;
}

async function post(p: Pipeline, text: string): Promise<void> {
  p.print(`${text}\n`);
  if (p.thread) await p.thread.upsert(text);
}

/** The review's headings one level down, under the comment's own. */
function demoteHeadings(markdown: string): string {
  let fenced = false;
  return markdown
    .split("\n")
    .map((line) => {
      if (/^(```|~~~)/.test(line)) fenced = !fenced;
      return !fenced && /^#{1,5} /.test(line) ? `##${line}` : line;
    })
    .join("\n");
}

/** The errors of a failed `pulumi preview --json`: its diagnostics when the JSON has them. */
function previewErrors(run: PulumiRun): string {
  try {
    const doc: unknown = JSON.parse(run.stdout);
    const diagnostics: unknown[] = isRecord(doc) && Array.isArray(doc.diagnostics) ? doc.diagnostics : [];
    const text = (v: unknown) => (typeof v === "string" ? v : "");
    const errors = diagnostics.filter(isRecord).filter((d) => d.severity === "error").map((d) => `${text(d.urn) ? `${text(d.urn).split("::").pop()}: ` : ""}${text(d.message).trim()}`);
    if (errors.length) return errors.join("\n");
  } catch {
    // not JSON: the output itself
  }
  return tail(run);
}
