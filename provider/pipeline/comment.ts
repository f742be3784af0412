// The one pull-request comment the pipeline keeps up to date: found by a hidden marker, created
// once, edited afterwards, so a pull request carries a single report however often it is pushed.
// GitHub: the issue comments API (docs.github.com/en/rest/issues/comments: list
// `GET /repos/{owner}/{repo}/issues/{number}/comments`, create `POST` there, edit
// `PATCH /repos/{owner}/{repo}/issues/comments/{id}`). GitLab: merge request notes
// (docs.gitlab.com/api/notes: `GET|POST /projects/{id}/merge_requests/{iid}/notes`,
// `PUT .../notes/{note_id}`).

import { isRecord, parseJson } from "../../keboola/json";

/** The marker that identifies the pipeline's comment (invisible in rendered Markdown). */
export const COMMENT_MARKER = "<!-- keboola-pulumi:pull-request -->";

/** GitHub refuses comment and pull request bodies over 65536 characters; GitLab notes allow 1,000,000. */
const MAX_BODY = 65_000;

export interface CommentThread {
  /** Where the comment goes, for messages ("pull request #7 of owner/repo"). */
  readonly where: string;
  /** Creates the comment, or replaces the text of the one carrying the marker. Answers its id. */
  upsert(body: string): Promise<string>;
}

/** The body as posted: the marker first, cut to the forge's limit with a note when too long. */
export function commentBody(text: string, marker = COMMENT_MARKER): string {
  const body = `${marker}\n${text}`;
  if (body.length <= MAX_BODY) return body;
  const note = "\n\n_The report is longer than a comment may be; the pipeline's log has it whole._\n";
  return body.slice(0, MAX_BODY - note.length) + note;
}

export type Request = (method: string, url: string, body?: unknown) => Promise<unknown>;

export function requester(headers: Record<string, string>, forge: string): Request {
  return async (method, url, body) => {
    const res = await fetch(url, { method, headers: { ...headers, ...(body !== undefined ? { "content-type": "application/json" } : {}) }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    // The token is in the headers only: an error names the request and the answer, never the token.
    if (!res.ok) throw new Error(`${forge} answered ${res.status} to ${method} ${url.replace(/\?.*$/, "")}: ${text.slice(0, 300)}`);
    return text ? parseJson(text) : undefined;
  };
}

const idOf = (v: unknown): string => String((isRecord(v) ? v.id : undefined) ?? "");
const bodyOf = (v: unknown): string => String((isRecord(v) ? v.body : undefined) ?? "");

/** All pages of a listing (100 per page), until a short page. */
export async function everyPage(request: Request, url: (page: number) => string): Promise<unknown[]> {
  const all: unknown[] = [];
  for (let page = 1; ; page++) {
    const got = await request("GET", url(page));
    const list = Array.isArray(got) ? got : [];
    all.push(...list);
    if (list.length < 100) return all;
  }
}

export function githubThread(o: { apiUrl?: string; repository: string; number: number; token: string }): CommentThread {
  const api = (o.apiUrl ?? "https://api.github.com").replace(/\/+$/, "");
  const request = requester(
    { authorization: `Bearer ${o.token}`, accept: "application/vnd.github+json", "x-github-api-version": "2022-11-28", "user-agent": "keboola-pulumi" },
    "GitHub",
  );
  const repo = o.repository;
  return {
    where: `pull request #${o.number} of ${repo}`,
    async upsert(text) {
      const body = commentBody(text);
      const comments = await everyPage(request, (page) => `${api}/repos/${repo}/issues/${o.number}/comments?per_page=100&page=${page}`);
      const mine = comments.find((c) => bodyOf(c).startsWith(COMMENT_MARKER));
      if (mine) return idOf(await request("PATCH", `${api}/repos/${repo}/issues/comments/${idOf(mine)}`, { body }));
      return idOf(await request("POST", `${api}/repos/${repo}/issues/${o.number}/comments`, { body }));
    },
  };
}

export function gitlabThread(o: { apiUrl: string; project: string; iid: number; token: string }): CommentThread {
  const api = o.apiUrl.replace(/\/+$/, "");
  const request = requester({ "private-token": o.token, accept: "application/json" }, "GitLab");
  const project = encodeURIComponent(o.project);
  const notes = `${api}/projects/${project}/merge_requests/${o.iid}/notes`;
  return {
    where: `merge request !${o.iid} of ${o.project}`,
    async upsert(text) {
      const body = commentBody(text);
      const list = await everyPage(request, (page) => `${notes}?per_page=100&page=${page}&sort=asc`);
      const mine = list.find((c) => bodyOf(c).startsWith(COMMENT_MARKER));
      if (mine) return idOf(await request("PUT", `${notes}/${idOf(mine)}`, { body }));
      return idOf(await request("POST", notes, { body }));
    },
  };
}

/**
 * The thread the CI environment points at: GitHub Actions (GITHUB_TOKEN, GITHUB_REPOSITORY,
 * GITHUB_API_URL) or GitLab CI (GITLAB_TOKEN, CI_PROJECT_ID, CI_API_V4_URL). Undefined when
 * neither is configured: the report then goes to standard output only.
 */
export function threadFromEnv(number: number, env: NodeJS.ProcessEnv = process.env): CommentThread | undefined {
  if (env.GITHUB_TOKEN && env.GITHUB_REPOSITORY) {
    return githubThread({ apiUrl: env.GITHUB_API_URL, repository: env.GITHUB_REPOSITORY, number, token: env.GITHUB_TOKEN });
  }
  if (env.GITLAB_TOKEN && env.CI_PROJECT_ID && env.CI_API_V4_URL) {
    return gitlabThread({ apiUrl: env.CI_API_V4_URL, project: env.CI_PROJECT_ID, iid: number, token: env.GITLAB_TOKEN });
  }
  return undefined;
}
