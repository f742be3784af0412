import { describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";

// The ready pipelines in examples/ci stay thin and call the steps test/e2e/pipeline.e2e.test.ts
// runs: each event's job runs exactly the `keboola-pulumi pr` step the README's table names, and
// the runs of one pull request, and the production deployments, are serialised.

const ROOT = path.join(__dirname, "../..");
const read = (file: string) => parse(fs.readFileSync(path.join(ROOT, file), "utf8")) as Record<string, unknown>;
type Job = { if?: string; rules?: Array<{ if?: string }>; concurrency?: { group?: string }; resource_group?: string; steps?: Array<{ run?: string; uses?: string; with?: Record<string, string>; env?: Record<string, string> }>; script?: string[] };
const runs = (job: Job) => [...(job.steps ?? []).map((s) => s.run ?? ""), ...(job.script ?? [])].filter((r) => r.includes("keboola-pulumi"));

describe("examples/ci", () => {
  it("GitHub Actions: pull request events run pr update / pr close with the pull request's number, a push runs pr merge; each serialised", () => {
    const wf = read("examples/ci/github/keboola.yml");
    expect(wf.on).toEqual({ pull_request: { types: ["opened", "reopened", "synchronize", "closed"] }, push: { branches: ["main"] } });
    const jobs = wf.jobs as Record<string, Job>;
    expect(runs(jobs["pull-request"])).toEqual(["npx keboola-pulumi pr update --number ${{ github.event.pull_request.number }}"]);
    expect(runs(jobs.closed)).toEqual(["npx keboola-pulumi pr close --number ${{ github.event.pull_request.number }}"]);
    expect(runs(jobs.production)).toEqual(["npx keboola-pulumi pr merge"]);
    expect(jobs["pull-request"].concurrency?.group).toBe("keboola-pr-${{ github.event.pull_request.number }}");
    expect(jobs.closed.concurrency?.group).toBe(jobs["pull-request"].concurrency?.group);
    expect(jobs.production.concurrency?.group).toBe("keboola-production");
    expect(wf.permissions).toMatchObject({ "pull-requests": "write" });
    // Large stacks (README): every job's Pulumi runs without checkpoints when the repository says so.
    expect((wf.env as Record<string, string>).PULUMI_SKIP_CHECKPOINTS).toBe("${{ vars.PULUMI_SKIP_CHECKPOINTS }}");
  });

  it("GitLab CI: the merge request runs pr update, stopping its environment pr close, the default branch pr merge; each serialised", () => {
    const ci = read("examples/ci/gitlab/.gitlab-ci.yml") as Record<string, Job & { environment?: { name?: string; on_stop?: string; action?: string } }>;
    expect(runs(ci["pull-request"])).toEqual(['npx keboola-pulumi pr update --number "$CI_MERGE_REQUEST_IID"']);
    expect(runs(ci.closed)).toEqual(['npx keboola-pulumi pr close --number "$CI_MERGE_REQUEST_IID"']);
    expect(runs(ci.production)).toEqual(["npx keboola-pulumi pr merge"]);
    expect(ci["pull-request"].environment).toMatchObject({ on_stop: "closed" });
    expect(ci.closed.environment).toMatchObject({ name: ci["pull-request"].environment?.name, action: "stop" });
    expect(ci["pull-request"].resource_group).toBe("keboola-pr-$CI_MERGE_REQUEST_IID");
    expect(ci.production.resource_group).toBe("keboola-production");
    // A scheduled pipeline (the drift job's) on the default branch deploys nothing.
    expect(ci.production.rules).toEqual([{ if: '$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH && $CI_PIPELINE_SOURCE != "schedule"' }]);
  });

  it("GitHub Actions drift.yml: a nightly (and manual) run of pr drift, never beside a production deployment, allowed to push its branch and open its pull request", () => {
    const wf = read("examples/ci/github/drift.yml");
    expect(Object.keys(wf.on as object).sort()).toEqual(["schedule", "workflow_dispatch"]);
    const [{ cron }] = (wf.on as { schedule: Array<{ cron: string }> }).schedule;
    expect(cron).toMatch(/^\d+ \d+ \* \* \*$/); // once a day
    const jobs = wf.jobs as Record<string, Job>;
    expect(Object.keys(jobs)).toEqual(["drift"]);
    expect(runs(jobs.drift)).toEqual(["npx keboola-pulumi pr drift --include-deleted"]);
    // The same group as keboola.yml's production job.
    const main = read("examples/ci/github/keboola.yml").jobs as Record<string, Job>;
    expect(jobs.drift.concurrency?.group).toBe(main.production.concurrency?.group);
    expect(wf.permissions).toEqual({ contents: "write", "pull-requests": "write" });
    // The checkout pushes with the token the step opens the pull request with.
    const checkout = jobs.drift.steps?.find((s) => s.uses?.startsWith("actions/checkout"));
    const step = jobs.drift.steps?.find((s) => s.run?.includes("pr drift"));
    expect(checkout?.with?.token).toBe(step?.env?.GITHUB_TOKEN);
    // The production stack reached as keboola.yml reaches it: the same Keboola and state settings.
    const mainEnv = read("examples/ci/github/keboola.yml").env as Record<string, string>;
    const env = wf.env as Record<string, string>;
    expect(Object.keys(env)).toEqual(expect.arrayContaining(["KBC_HOST", "KBC_TOKEN", "PULUMI_BACKEND_URL", "PULUMI_CONFIG_PASSPHRASE"]));
    for (const [k, v] of Object.entries(env)) expect(v, k).toBe(mainEnv[k]);
  });

  it("GitLab CI drift job: scheduled pipelines of the default branch run pr drift, pushing with GITLAB_TOKEN, never beside a production deployment", () => {
    const ci = read("examples/ci/gitlab/.gitlab-ci.yml") as Record<string, Job>;
    expect(ci.drift.rules).toEqual([{ if: '$CI_PIPELINE_SOURCE == "schedule" && $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH' }]);
    expect(runs(ci.drift)).toEqual(["npx keboola-pulumi pr drift --include-deleted"]);
    expect(ci.drift.script?.[0]).toBe('git remote set-url origin "https://oauth2:${GITLAB_TOKEN}@${CI_SERVER_HOST}/${CI_PROJECT_PATH}.git"');
    expect(ci.drift.resource_group).toBe(ci.production.resource_group);
    // The merge request jobs do not run in a scheduled pipeline.
    for (const job of ["pull-request", "closed"]) expect(ci[job].rules?.every((r) => r.if?.includes('"merge_request_event"'))).toBe(true);
  });

  it("examples/environments: a pull request deploys stack dev with the dev project's token, a merge stack prod with prod's; each stack file guards its project", () => {
    const wf = read("examples/environments/ci/github/keboola.yml");
    const jobs = wf.jobs as Record<string, Job & { env?: Record<string, string> }>;
    const pulumiRuns = (job: Job) => [...(job.steps ?? []).map((s) => s.run ?? ""), ...(job.script ?? [])].filter((r) => r.startsWith("pulumi "));
    expect(jobs.dev.if).toBe("github.event_name == 'pull_request'");
    expect(jobs.prod.if).toBe("github.event_name == 'push'");
    for (const [job, stack, token] of [["dev", "dev", "KBC_DEV_TOKEN"], ["prod", "prod", "KBC_PROD_TOKEN"]] as const) {
      expect(pulumiRuns(jobs[job]).every((r) => r.endsWith(`--stack ${stack}`))).toBe(true);
      expect(pulumiRuns(jobs[job]).at(-1)).toBe(`pulumi up --yes --skip-preview --stack ${stack}`);
      expect(jobs[job].env?.KBC_TOKEN).toBe(`\${{ secrets.${token} }}`);
    }
    expect(jobs.dev.concurrency?.group).not.toBe(jobs.prod.concurrency?.group);
    const ci = read("examples/environments/ci/gitlab/.gitlab-ci.yml") as Record<string, Job & { extends?: string; variables?: Record<string, string> }>;
    expect(ci.dev.variables).toMatchObject({ STACK: "dev", KBC_TOKEN: "$KBC_DEV_TOKEN" });
    expect(ci.prod.variables).toMatchObject({ STACK: "prod", KBC_TOKEN: "$KBC_PROD_TOKEN" });
    expect(ci[".deploy"].script?.at(-1)).toBe('pulumi up --yes --skip-preview --stack "$STACK"');
    // Each stack names its own project, and the two differ.
    const ids = ["dev", "prod"].map((s) => (read(`examples/environments/Pulumi.${s}.yaml`).config as Record<string, string>)["keboola:projectId"]);
    expect(ids.every((id) => /^\d+$/.test(id))).toBe(true);
    expect(ids[0]).not.toBe(ids[1]);
  });
});
