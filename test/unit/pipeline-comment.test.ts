import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startJsonServer, type JsonServer } from "../helpers/json-server";
import { commentBody, COMMENT_MARKER, gitlabThread, threadFromEnv } from "../../provider/pipeline/comment";

// The pipeline's one comment: the body it posts, and GitLab's merge request notes API as it uses it
// (docs.gitlab.com/api/notes: GET|POST /projects/:id/merge_requests/:iid/notes, PUT .../notes/:id,
// token in PRIVATE-TOKEN). GitHub's side runs end to end in test/e2e/pipeline.e2e.test.ts.

let server: JsonServer;
let url: string;
const requests: string[] = [];
const notes: Array<{ id: number; body: string }> = [{ id: 1, body: "a reviewer's note" }];

beforeAll(async () => {
  server = await startJsonServer((req) => {
    requests.push(`${req.method} ${req.url.pathname} ${String(req.headers["private-token"])}`);
    if (req.method === "GET") return { status: 200, body: notes };
    const body = String(req.body?.body);
    if (req.method === "POST") {
      const n = { id: notes.length + 1, body };
      notes.push(n);
      return { status: 200, body: n };
    }
    const n = notes.find((x) => req.url.pathname.endsWith(`/notes/${x.id}`))!;
    n.body = body;
    return { status: 200, body: n };
  });
  url = `${server.url}/api/v4`;
});
afterAll(() => server.close());

describe("the pull request's comment", () => {
  it("starts with the marker and is cut to a size GitHub accepts, saying so", () => {
    expect(commentBody("hello")).toBe(`${COMMENT_MARKER}\nhello`);
    const long = commentBody("x".repeat(70_000));
    expect(long.length).toBeLessThanOrEqual(65_000);
    expect(long).toMatch(/longer than a comment may be; the pipeline's log has it whole/);
  });

  it("GitLab: creates the note once, then edits it, leaving other notes alone", async () => {
    const thread = gitlabThread({ apiUrl: url, project: "group/keboola", iid: 5, token: "glpat-secret" });
    expect(thread.where).toBe("merge request !5 of group/keboola");
    await thread.upsert("first");
    await thread.upsert("second");
    expect(notes).toEqual([{ id: 1, body: "a reviewer's note" }, { id: 2, body: `${COMMENT_MARKER}\nsecond` }]);
    expect(requests).toEqual([
      "GET /api/v4/projects/group%2Fkeboola/merge_requests/5/notes glpat-secret",
      "POST /api/v4/projects/group%2Fkeboola/merge_requests/5/notes glpat-secret",
      "GET /api/v4/projects/group%2Fkeboola/merge_requests/5/notes glpat-secret",
      "PUT /api/v4/projects/group%2Fkeboola/merge_requests/5/notes/2 glpat-secret",
    ]);
  });

  it("finds the forge from the CI environment, or none", () => {
    expect(threadFromEnv(3, { GITHUB_TOKEN: "t", GITHUB_REPOSITORY: "a/b" })?.where).toBe("pull request #3 of a/b");
    expect(threadFromEnv(3, { GITLAB_TOKEN: "t", CI_PROJECT_ID: "42", CI_API_V4_URL: url })?.where).toBe("merge request !3 of 42");
    expect(threadFromEnv(3, {})).toBeUndefined();
  });
});
