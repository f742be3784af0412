import { describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";

// The ready pipelines in examples/ci stay thin and call the steps test/e2e/pipeline.e2e.test.ts
// runs: each event's job runs exactly the `keboola-pulumi pr` step the README's table names, and
// the runs of one pull request, and the production deployments, are serialised.

const ROOT = path.join(__dirname, "../..");
const read = (file: string) => parse(fs.readFileSync(path.join(ROOT, file), "utf8")) as Record<string, unknown>;
type Job = { if?: string; rules?: Array<{ if?: string }>; concurrency?: { group?: string }; resource_group?: string; steps?: Array<{ run?: string }>; script?: string[] };
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
  });
});
