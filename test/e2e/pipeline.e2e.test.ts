// The pull-request pipeline's steps (`keboola-pulumi pr ...`, what examples/ci/ calls), run in the
// order the workflow runs them against the emulator, the real Pulumi CLI with a file backend, and a
// stand-in of GitHub's issue comments API: a pull request opened (its stack and dev branch made, one
// comment with the review of what merging changes in production), updated after an edit while a
// second pull request opens beside it (the same comment replaced; neither touches the other's stack
// or branch), closed (its stack and branch gone, the comment says so), merged (production deployed).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as path from "node:path";
import { startJsonServer } from "../helpers/json-server";
import { startEmulator, type Emulator } from "../../emulator/server";
import { initEmulatorStack, makePulumiWorkspace, ok, REPO_ROOT, type PulumiWorkspace } from "./helpers/pulumi";
import { processIo } from "../../provider/cli/command";
import { main } from "../../provider/cli/main";
import { COMMENT_MARKER } from "../../provider/pipeline/comment";

const TOKEN = "e2e-pipeline-token-3c9a";
const GITHUB_TOKEN = "ghs-e2e-pipeline-token";
const REPOSITORY = "acme/keboola-project";

/** GitHub's issue comments API as the pipeline uses it (docs.github.com/en/rest/issues/comments), in memory. */
interface FakeGithub {
  url: string;
  comments: Map<number, Array<{ id: number; body: string }>>;
  requests: string[];
  close(): Promise<void>;
}

async function fakeGithub(): Promise<FakeGithub> {
  const comments = new Map<number, Array<{ id: number; body: string }>>();
  const requests: string[] = [];
  let nextId = 1000;
  const server = await startJsonServer((req) => {
    const url = req.url;
    requests.push(`${req.method} ${url.pathname}`);
    if (req.headers.authorization !== `Bearer ${GITHUB_TOKEN}`) return { status: 401, body: { message: "Bad credentials" } };
    const list = /^\/repos\/acme\/keboola-project\/issues\/(\d+)\/comments$/.exec(url.pathname);
    const one = /^\/repos\/acme\/keboola-project\/issues\/comments\/(\d+)$/.exec(url.pathname);
    if (list && req.method === "GET") {
      const all = comments.get(Number(list[1])) ?? [];
      const page = Number(url.searchParams.get("page") ?? 1);
      const per = Number(url.searchParams.get("per_page") ?? 30);
      return { status: 200, body: all.slice((page - 1) * per, page * per) };
    }
    if (list && req.method === "POST") {
      const c = { id: nextId++, body: String(req.body?.body) };
      comments.set(Number(list[1]), [...(comments.get(Number(list[1])) ?? []), c]);
      return { status: 201, body: c };
    }
    if (one && req.method === "PATCH") {
      for (const all of comments.values()) {
        const c = all.find((x) => x.id === Number(one[1]));
        if (c) {
          c.body = String(req.body?.body);
          return { status: 200, body: c };
        }
      }
      return { status: 404, body: { message: "Not Found" } };
    }
    return { status: 404, body: { message: "Not Found" } };
  });
  return { url: server.url, comments, requests, close: server.close };
}

let emu: Emulator;
let gh: FakeGithub;
let ws: PulumiWorkspace;

/** A step as the workflow runs it: `keboola-pulumi pr <args>` in the project directory, with the runner's environment. */
async function step(...args: string[]): Promise<{ code: number; out: string; log: string }> {
  let out = "";
  let log = "";
  const env = { ...ws.env, GITHUB_TOKEN, GITHUB_REPOSITORY: REPOSITORY, GITHUB_API_URL: gh.url, GITHUB_SHA: "0123456789abcdef0123", KBC_TOKEN: TOKEN, PULUMI_BIN: path.join(ws.binDir, "pulumi") };
  const code = await main(["pr", ...args, "--dir", ws.programDir], processIo({ env, write: (t) => (out += t), error: (t) => (log += t) }));
  return { code, out, log };
}

const branchNamed = (name: string) => Object.values(emu.state.storage.branches).filter((b) => b.name === name);
const stacks = async () => (JSON.parse(ok(await ws.pulumi(["stack", "ls", "--json"])).stdout) as Array<{ name: string }>).map((s) => s.name).sort();
const baseUrlIn = (branchId: number) =>
  Object.values(emu.state.storage.configs).find((c) => c.branchId === branchId && c.componentId === "keboola.ex-generic-v2" && !c.isDeleted)?.configuration as { parameters?: { api?: { baseUrl?: string } } } | undefined;

beforeAll(async () => {
  emu = await startEmulator({ token: TOKEN, taskDurationMs: 10 });
  gh = await fakeGithub();
  ws = await makePulumiWorkspace({ project: "acme-keboola", stack: "production", prefix: "keboola-pipeline-" });
  // A user's repository: a Pulumi.yaml pointing at the package's manifest program, and the manifest.
  const manifest = fs.readFileSync(path.join(REPO_ROOT, "examples/quickstart/keboola.yaml"), "utf8");
  ws.writeProgram(
    { "keboola.yaml": manifest, "countries.csv": fs.readFileSync(path.join(REPO_ROOT, "examples/quickstart/countries.csv"), "utf8") },
    { linkProjectPackage: true, extraYaml: "main: node_modules/keboola-pulumi/dist/provider/manifest/program.js\n" },
  );
  await initEmulatorStack(ws, emu.url, TOKEN, { usersApiToken: { secret: "users-api-token-pipeline" } });
  ok(await ws.up());
}, 300_000);
afterAll(async () => {
  await ws?.cleanup();
  await gh?.close();
  await emu?.close();
});

describe("e2e: the pull-request pipeline's steps in the workflow's order", () => {
  it("open, update (beside another pull request), close, merge: the right stacks, branches and comment", async () => {
    const main = emu.state.project.defaultBranchId;
    const prodBaseUrl = baseUrlIn(main)?.parameters?.api?.baseUrl;

    // open #7
    const opened = await step("open", "--number", "7");
    expect(opened.code, opened.log).toBe(0);
    expect(await stacks()).toEqual(["pr-7", "production"]);
    expect(branchNamed("pr-7")).toHaveLength(1);
    expect(gh.comments.get(7)).toHaveLength(1);
    const first = { ...gh.comments.get(7)![0] }; // the server edits its own copy
    expect(first.body.startsWith(COMMENT_MARKER)).toBe(true);
    expect(first.body).toMatch(/Deployed \(commit 0123456789ab\) to development branch \*\*pr-7\*\* \(id \d+\) by stack `pr-7`/);
    expect(first.body.match(/left out here and deployed by the production stack/g)).toHaveLength(1);
    expect(first.body).toMatch(/### What merging changes in production \(stack `production`\)/);
    expect(first.body).not.toContain("users-api-token-pipeline");
    expect(opened.out).toBe(`${first.body.slice(COMMENT_MARKER.length + 1)}\n`);

    // An edit pushed to #7 while #8 opens beside it.
    const file = path.join(ws.programDir, "keboola.yaml");
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("https://api.example.com/v1/", "https://api.example.com/v2/"));
    const [updated, other] = await Promise.all([step("update", "--number", "7"), step("open", "--number", "8")]);
    expect(updated.code, updated.log).toBe(0);
    expect(other.code, other.log).toBe(0);
    expect(gh.comments.get(7)).toHaveLength(1);
    expect(gh.comments.get(8)).toHaveLength(1);
    const body7 = gh.comments.get(7)![0].body;
    expect(body7).not.toBe(first.body);
    expect(body7).toContain("https://api.example.com/v2/");
    const [b7] = branchNamed("pr-7");
    const [b8] = branchNamed("pr-8");
    expect(b7.id).not.toBe(b8.id);
    expect(baseUrlIn(b7.id)?.parameters?.api?.baseUrl).toBe("https://api.example.com/v2/");
    // Production is untouched until the merge.
    expect(baseUrlIn(main)?.parameters?.api?.baseUrl).toBe(prodBaseUrl);

    // close #7
    const closed = await step("close", "--number", "7");
    expect(closed.code, closed.log).toBe(0);
    expect(await stacks()).toEqual(["pr-8", "production"]);
    expect(branchNamed("pr-7")).toHaveLength(0);
    expect(branchNamed("pr-8")).toHaveLength(1);
    expect(gh.comments.get(7)![0].body).toMatch(/Closed: development branch \*\*pr-7\*\* and stack `pr-7` were removed/);

    // merge #7: production deployed.
    const merged = await step("merge", "--number", "7");
    expect(merged.code, merged.log).toBe(0);
    expect(baseUrlIn(main)?.parameters?.api?.baseUrl).toBe("https://api.example.com/v2/");
    expect(gh.comments.get(7)![0].body).toMatch(/Merged and deployed to production \(commit 0123456789ab\) by stack `production`/);
    ok(await ws.previewExpectNoChanges());

    // #8 closes without merging: its branch and stack go, production stays.
    expect((await step("close", "--number", "8")).code).toBe(0);
    expect(await stacks()).toEqual(["production"]);
    expect(branchNamed("pr-8")).toHaveLength(0);
    expect(gh.requests.every((r) => r.startsWith("GET") || r.startsWith("POST") || r.startsWith("PATCH"))).toBe(true);
  }, 600_000);

  it("refuses a step without a pull request number, or an unknown step, with the usage (exit 1)", async () => {
    const missing = await step("open");
    expect(missing.code).toBe(1);
    expect(missing.log).toMatch(/pr open needs --number <pull request>\nusage: keboola-pulumi pr/);
    expect((await step("deploy", "--number", "1")).log).toMatch(/unknown step "deploy"/);
  });
});
