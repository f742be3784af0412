// The one pull request (GitHub) or merge request (GitLab) the nightly drift job keeps open: found by
// its source branch, opened once, its title and description replaced on later runs, closed when
// nothing drifts any more.
// GitHub: the pulls API (docs.github.com/en/rest/pulls/pulls: list
// `GET /repos/{owner}/{repo}/pulls?state=open&head={owner}:{branch}`, create `POST .../pulls`
// {title, head, base, body}, edit or close `PATCH .../pulls/{number}` {title, body} / {state:
// "closed"}); a note on close goes through the issue comments API, as comment.ts posts.
// GitLab: merge requests (docs.gitlab.com/api/merge_requests: list
// `GET /projects/{id}/merge_requests?state=opened&source_branch={branch}`, create `POST` there
// {source_branch, target_branch, title, description}, edit or close `PUT .../merge_requests/{iid}`
// {title, description} / {state_event: "close"}; a note through `POST .../notes`).

import { isRecord } from "../../keboola/json";
import { commentBody, everyPage, requester } from "./comment";

/** The marker in the description of the drift job's pull request (invisible in rendered Markdown). */
export const DRIFT_MARKER = "<!-- keboola-pulumi:drift -->";

export interface ChangeRequest {
  number: number;
  url: string;
}

export interface ChangeRequests {
  /** Where they are opened, for messages ("acme/keboola-project on GitHub"). */
  readonly where: string;
  /** What a change request is called there, with its number ("pull request #12", "merge request !12"). */
  name(number: number): string;
  /** The open change request from `branch`, if there is one. */
  findOpen(branch: string): Promise<ChangeRequest | undefined>;
  open(o: { branch: string; base: string; title: string; body: string }): Promise<ChangeRequest>;
  update(number: number, o: { title: string; body: string }): Promise<ChangeRequest>;
  /** Closes it (not merged), after a note saying why. */
  close(number: number, note: string): Promise<void>;
}

const num = (v: unknown, key: string): number => Number(isRecord(v) ? v[key] : NaN);
const str = (v: unknown, key: string): string => String((isRecord(v) ? v[key] : undefined) ?? "");

export function githubPullRequests(o: { apiUrl?: string; repository: string; token: string }): ChangeRequests {
  const api = (o.apiUrl ?? "https://api.github.com").replace(/\/+$/, "");
  const request = requester(
    { authorization: `Bearer ${o.token}`, accept: "application/vnd.github+json", "x-github-api-version": "2022-11-28", "user-agent": "keboola-pulumi" },
    "GitHub",
  );
  const repo = o.repository;
  const owner = repo.split("/")[0];
  const asRequest = (v: unknown): ChangeRequest => ({ number: num(v, "number"), url: str(v, "html_url") });
  return {
    where: `${repo} on GitHub`,
    name: (n) => `pull request #${n}`,
    async findOpen(branch) {
      const head = encodeURIComponent(`${owner}:${branch}`);
      const list = await everyPage(request, (page) => `${api}/repos/${repo}/pulls?state=open&head=${head}&per_page=100&page=${page}`);
      // The head filter is the API's; the branch is checked again in case a proxy or an older server ignores it.
      const mine = list.find((p) => isRecord(p) && isRecord(p.head) && p.head.ref === branch);
      return mine ? asRequest(mine) : undefined;
    },
    async open({ branch, base, title, body }) {
      return asRequest(await request("POST", `${api}/repos/${repo}/pulls`, { title, head: branch, base, body: commentBody(body, DRIFT_MARKER) }));
    },
    async update(n, { title, body }) {
      return asRequest(await request("PATCH", `${api}/repos/${repo}/pulls/${n}`, { title, body: commentBody(body, DRIFT_MARKER) }));
    },
    async close(n, note) {
      await request("POST", `${api}/repos/${repo}/issues/${n}/comments`, { body: note });
      await request("PATCH", `${api}/repos/${repo}/pulls/${n}`, { state: "closed" });
    },
  };
}

export function gitlabMergeRequests(o: { apiUrl: string; project: string; token: string }): ChangeRequests {
  const api = o.apiUrl.replace(/\/+$/, "");
  const request = requester({ "private-token": o.token, accept: "application/json" }, "GitLab");
  const base = `${api}/projects/${encodeURIComponent(o.project)}/merge_requests`;
  const asRequest = (v: unknown): ChangeRequest => ({ number: num(v, "iid"), url: str(v, "web_url") });
  return {
    where: `project ${o.project} on GitLab`,
    name: (n) => `merge request !${n}`,
    async findOpen(branch) {
      const list = await everyPage(request, (page) => `${base}?state=opened&source_branch=${encodeURIComponent(branch)}&per_page=100&page=${page}`);
      const mine = list.find((m) => isRecord(m) && m.source_branch === branch);
      return mine ? asRequest(mine) : undefined;
    },
    async open({ branch, base: target, title, body }) {
      return asRequest(await request("POST", base, { source_branch: branch, target_branch: target, title, description: commentBody(body, DRIFT_MARKER), remove_source_branch: true }));
    },
    async update(n, { title, body }) {
      return asRequest(await request("PUT", `${base}/${n}`, { title, description: commentBody(body, DRIFT_MARKER) }));
    },
    async close(n, note) {
      await request("POST", `${base}/${n}/notes`, { body: note });
      await request("PUT", `${base}/${n}`, { state_event: "close" });
    },
  };
}

/** The forge the CI environment points at, as comment.ts's threadFromEnv reads it; undefined when neither is configured. */
export function changeRequestsFromEnv(env: NodeJS.ProcessEnv = process.env): ChangeRequests | undefined {
  if (env.GITHUB_TOKEN && env.GITHUB_REPOSITORY) return githubPullRequests({ apiUrl: env.GITHUB_API_URL, repository: env.GITHUB_REPOSITORY, token: env.GITHUB_TOKEN });
  if (env.GITLAB_TOKEN && env.CI_PROJECT_ID && env.CI_API_V4_URL) return gitlabMergeRequests({ apiUrl: env.CI_API_V4_URL, project: env.CI_PROJECT_ID, token: env.GITLAB_TOKEN });
  return undefined;
}
