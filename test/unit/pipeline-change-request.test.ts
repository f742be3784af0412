import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startJsonServer, type JsonServer } from "../helpers/json-server";
import { changeRequestsFromEnv, DRIFT_MARKER, gitlabMergeRequests } from "../../provider/pipeline/change-request";

// The drift job's one merge request on GitLab, as the client uses the merge requests API
// (docs.gitlab.com/api/merge_requests: GET /projects/:id/merge_requests?state=opened&source_branch=,
// POST /projects/:id/merge_requests, PUT /projects/:id/merge_requests/:iid with title/description
// or state_event=close; a note through POST .../notes; token in PRIVATE-TOKEN). GitHub's pulls API
// runs end to end in test/e2e/pipeline-drift.e2e.test.ts.

interface Mr {
  iid: number;
  state: "opened" | "closed";
  source_branch: string;
  target_branch: string;
  title: string;
  description: string;
  web_url: string;
}

let server: JsonServer;
let url: string;
const requests: string[] = [];
const mrs: Mr[] = [{ iid: 1, state: "opened", source_branch: "feature", target_branch: "main", title: "A colleague's change", description: "", web_url: "https://gitlab.example.com/group/keboola/-/merge_requests/1" }];
const notes: Array<{ iid: number; body: string }> = [];

beforeAll(async () => {
  server = await startJsonServer((req) => {
    const u = req.url;
    requests.push(`${req.method} ${u.pathname}${u.search.replace(/&per_page=100&page=1$/, "")} ${String(req.headers["private-token"])}`);
    const body = (req.body ?? {}) as Record<string, string>;
    const one = /\/merge_requests\/(\d+)$/.exec(u.pathname);
    const note = /\/merge_requests\/(\d+)\/notes$/.exec(u.pathname);
    if (req.method === "GET") {
      return { status: 200, body: mrs.filter((m) => m.state === u.searchParams.get("state") && m.source_branch === u.searchParams.get("source_branch")) };
    }
    if (req.method === "POST" && note) {
      notes.push({ iid: Number(note[1]), body: body.body });
      return { status: 200, body: { id: notes.length } };
    }
    if (req.method === "POST") {
      const m: Mr = { iid: mrs.length + 1, state: "opened", source_branch: body.source_branch, target_branch: body.target_branch, title: body.title, description: body.description, web_url: `https://gitlab.example.com/group/keboola/-/merge_requests/${mrs.length + 1}` };
      mrs.push(m);
      return { status: 200, body: m };
    }
    const m = mrs.find((x) => x.iid === Number(one?.[1]));
    if (!m) return { status: 404, body: { message: "404 Not found" } };
    if (body.state_event === "close") m.state = "closed";
    else Object.assign(m, { title: body.title, description: body.description });
    return { status: 200, body: m };
  });
  url = `${server.url}/api/v4`;
});
afterAll(() => server.close());

describe("the drift job's merge request on GitLab", () => {
  it("is found by its source branch only, opened once, then edited, then closed with a note", async () => {
    const mr = gitlabMergeRequests({ apiUrl: url, project: "group/keboola", token: "glpat-secret" });
    expect(await mr.findOpen("keboola-drift")).toBeUndefined(); // the colleague's merge request is not it
    const opened = await mr.open({ branch: "keboola-drift", base: "main", title: "Keboola drift: 1 object", body: "report 1" });
    expect(opened).toEqual({ number: 2, url: "https://gitlab.example.com/group/keboola/-/merge_requests/2" });
    expect(await mr.findOpen("keboola-drift")).toEqual(opened);
    await mr.update(2, { title: "Keboola drift: 2 objects", body: "report 2" });
    expect(mrs[1]).toMatchObject({ state: "opened", source_branch: "keboola-drift", target_branch: "main", title: "Keboola drift: 2 objects", description: `${DRIFT_MARKER}\nreport 2` });
    await mr.close(2, "Nothing drifts any more.");
    expect(mrs[1].state).toBe("closed");
    expect(mrs[0].state).toBe("opened");
    expect(notes).toEqual([{ iid: 2, body: "Nothing drifts any more." }]);
    expect(await mr.findOpen("keboola-drift")).toBeUndefined();
    expect(mr.name(2)).toBe("merge request !2");
    expect(requests).toEqual([
      "GET /api/v4/projects/group%2Fkeboola/merge_requests?state=opened&source_branch=keboola-drift glpat-secret",
      "POST /api/v4/projects/group%2Fkeboola/merge_requests glpat-secret",
      "GET /api/v4/projects/group%2Fkeboola/merge_requests?state=opened&source_branch=keboola-drift glpat-secret",
      "PUT /api/v4/projects/group%2Fkeboola/merge_requests/2 glpat-secret",
      "POST /api/v4/projects/group%2Fkeboola/merge_requests/2/notes glpat-secret",
      "PUT /api/v4/projects/group%2Fkeboola/merge_requests/2 glpat-secret",
      "GET /api/v4/projects/group%2Fkeboola/merge_requests?state=opened&source_branch=keboola-drift glpat-secret",
    ]);
  });

  it("is chosen from the CI environment as the comment's forge is, and a forge's refusal names the request, never the token", async () => {
    expect(changeRequestsFromEnv({})).toBeUndefined();
    expect(changeRequestsFromEnv({ GITHUB_TOKEN: "t", GITHUB_REPOSITORY: "acme/shop" })?.where).toBe("acme/shop on GitHub");
    expect(changeRequestsFromEnv({ GITLAB_TOKEN: "t", CI_PROJECT_ID: "42", CI_API_V4_URL: url })?.where).toBe("project 42 on GitLab");
    const mr = gitlabMergeRequests({ apiUrl: url, project: "group/keboola", token: "glpat-secret" });
    const err = await mr.update(99, { title: "t", body: "b" }).catch((e: unknown) => e as Error);
    expect((err as Error).message).toBe('GitLab answered 404 to PUT ' + url + '/projects/group%2Fkeboola/merge_requests/99: {"message":"404 Not found"}');
    expect((err as Error).message).not.toContain("glpat-secret");
  });
});
