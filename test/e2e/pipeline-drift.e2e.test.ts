// The nightly drift job's step (`keboola-pulumi pr drift`, what examples/ci/github/drift.yml and the
// GitLab job run) against the emulator, the real Pulumi CLI and real git, with a stand-in of
// GitHub's pulls API: nothing drifted (no branch, no pull request); a parameter changed in the UI
// (the branch holds keboola.yaml as `pull` writes it, one pull request with the drift report, the
// checkout, the state and Keboola untouched); the same drift again (no new commit, the same pull
// request); more drift (a new commit, the same pull request); the pull request merged and deployed
// (nothing drifts: the pull request is closed with a note).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startJsonServer } from "../helpers/json-server";
import { startEmulator, type Emulator } from "../../emulator/server";
import { initEmulatorStack, makePulumiWorkspace, ok, runProcess, type PulumiWorkspace } from "./helpers/pulumi";
import { uiClient } from "./helpers/drift";
import { DRIFT_MARKER } from "../../provider/pipeline/change-request";
import type { KeboolaClient } from "../../provider/api/client";
import { KEBOOLA_PULUMI } from "../helpers/cli";

const TOKEN = "e2e-drift-job-token-77a1";
const GITHUB_TOKEN = "ghs-e2e-drift-job-token";
const COMPONENT = "keboola.ex-generic-v2";
const SECRET = "plain-api-key-never-shown-4410";

const MANIFEST = `# The shop's extractors.
configurations:
  orders:
    componentId: ${COMPONENT}
    configId: orders
    name: Orders
    configuration:
      parameters:
        api: { baseUrl: "https://shop.example.com/api/" } # the public API
        config:
          outputBucket: in.c-shop
          "#apiKey": "{{CIPHER}}"
  customers:
    componentId: ${COMPONENT}
    configId: customers
    name: Customers
    configuration: { parameters: { api: { baseUrl: "https://shop.example.com/api/" } } }
    secrets: { "configuration.parameters.api.#token": customersToken } # a stack config secret
`;
const CONFIG_SECRET = "customers-token-from-stack-config-9921";

interface Pull {
  number: number;
  state: "open" | "closed";
  title: string;
  body: string;
  head: { ref: string };
  base: { ref: string };
  html_url: string;
}

/** GitHub's pulls API as the drift job uses it (docs.github.com/en/rest/pulls/pulls), in memory, checking the head branch in the bare remote as GitHub does. */
async function fakeGithub(remote: string) {
  const pulls: Pull[] = [];
  const comments: Array<{ number: number; body: string }> = [];
  const requests: string[] = [];
  const answer = (status: number, body: unknown) => ({ status, body });
  const server = await startJsonServer((req) => {
    const url = req.url;
    requests.push(`${req.method} ${url.pathname}`);
    if (req.headers.authorization !== `Bearer ${GITHUB_TOKEN}`) return answer(401, { message: "Bad credentials" });
    const body = (req.body ?? {}) as Record<string, string>;
    const one = /^\/repos\/acme\/shop\/pulls\/(\d+)$/.exec(url.pathname);
    const note = /^\/repos\/acme\/shop\/issues\/(\d+)\/comments$/.exec(url.pathname);
    if (url.pathname === "/repos/acme/shop/pulls" && req.method === "GET") {
      const head = url.searchParams.get("head");
      return answer(200, pulls.filter((p) => p.state === url.searchParams.get("state") && (!head || `acme:${p.head.ref}` === head)));
    }
    if (url.pathname === "/repos/acme/shop/pulls" && req.method === "POST") {
      try {
        execFileSync("git", ["--git-dir", remote, "rev-parse", "--verify", `refs/heads/${body.head}`], { stdio: "ignore" });
      } catch {
        return answer(422, { message: "Validation Failed", errors: [{ resource: "PullRequest", field: "head", code: "invalid" }] });
      }
      const p: Pull = { number: pulls.length + 1, state: "open", title: body.title, body: body.body, head: { ref: body.head }, base: { ref: body.base }, html_url: `https://github.com/acme/shop/pull/${pulls.length + 1}` };
      pulls.push(p);
      return answer(201, p);
    }
    if (one && req.method === "PATCH") {
      const p = pulls.find((x) => x.number === Number(one[1]));
      if (!p) return answer(404, { message: "Not Found" });
      Object.assign(p, body.state ? { state: body.state } : { title: body.title, body: body.body });
      return answer(200, p);
    }
    if (note && req.method === "POST") {
      comments.push({ number: Number(note[1]), body: body.body });
      return answer(201, { id: comments.length, body: body.body });
    }
    return answer(404, { message: "Not Found" });
  });
  return { url: server.url, pulls, comments, requests, close: server.close };
}

let emu: Emulator;
let gh: Awaited<ReturnType<typeof fakeGithub>>;
let ws: PulumiWorkspace;
let ui: KeboolaClient;
let remote: string;

const git = (...args: string[]) => execFileSync("git", args, { cwd: ws.programDir, encoding: "utf8" }).trim();
const remoteHead = () => execFileSync("git", ["--git-dir", remote, "rev-parse", "--verify", "--quiet", "refs/heads/keboola-drift"], { encoding: "utf8" }).trim();
const branchExists = () => {
  try {
    return remoteHead() !== "";
  } catch {
    return false;
  }
};
const onBranch = (file: string) => execFileSync("git", ["--git-dir", remote, "show", `refs/heads/keboola-drift:${file}`], { encoding: "utf8" });

/** The step as the nightly job runs it (`npx keboola-pulumi pr drift`): the built CLI in the checkout, with the runner's environment. */
async function driftJob(args: string[] = [], forge = true): Promise<{ code: number; out: string; log: string }> {
  const github = forge ? { GITHUB_TOKEN, GITHUB_REPOSITORY: "acme/shop", GITHUB_API_URL: gh.url, GITHUB_REF_NAME: "main", GITHUB_SHA: git("rev-parse", "HEAD") } : {};
  const env = { ...ws.env, ...github, KBC_TOKEN: TOKEN, PULUMI_BIN: path.join(ws.binDir, "pulumi") };
  const res = await runProcess(process.execPath, [KEBOOLA_PULUMI, "pr", "drift", ...args], { cwd: ws.programDir, env, timeoutMs: 300_000 });
  return { code: res.code ?? 1, out: res.stdout, log: res.stderr };
}

async function changeInUi(configId: string, edit: (parameters: { api: { baseUrl: string } }) => void, description: string): Promise<void> {
  const c = emu.state.storage.configs[`${emu.state.project.defaultBranchId}/${COMPONENT}/${configId}`];
  const configuration = structuredClone(c.configuration) as { parameters: { api: { baseUrl: string } } };
  edit(configuration.parameters);
  await ui.storage.updateConfig("default", COMPONENT, configId, { configuration, changeDescription: description });
}

const stateOutputs = async () => JSON.stringify((await ws.exportStack()).deployment.resources?.map((r) => r.outputs));

beforeAll(async () => {
  emu = await startEmulator({ token: TOKEN, taskDurationMs: 10 });
  ui = uiClient(emu.url, TOKEN);
  remote = fs.mkdtempSync(path.join(os.tmpdir(), "drift-job-remote-"));
  execFileSync("git", ["init", "--quiet", "--bare", "--initial-branch", "main", remote]);
  gh = await fakeGithub(remote);
  ws = await makePulumiWorkspace({ project: "shop", stack: "production", prefix: "keboola-drift-job-" });
  const encrypted = await fetch(`${emu.urls.storage}/encryption/encrypt?componentId=${COMPONENT}&projectId=${emu.state.project.id}`, { method: "POST", headers: { "Content-Type": "text/plain" }, body: SECRET });
  ws.writeProgram({ "keboola.yaml": MANIFEST.replace("{{CIPHER}}", await encrypted.text()), ".gitignore": "node_modules/\n" }, { linkProjectPackage: true, extraYaml: "main: node_modules/keboola-pulumi/dist/provider/manifest/program.js\n" });
  await initEmulatorStack(ws, emu.url, TOKEN, { customersToken: { secret: CONFIG_SECRET } });
  ok(await ws.up());
  // The user's repository, as the job's checkout of main sees it.
  git("init", "--quiet", "--initial-branch", "main");
  git("add", ".");
  git("-c", "user.name=Analyst", "-c", "user.email=analyst@example.com", "commit", "--quiet", "-m", "The shop's project");
  git("remote", "add", "origin", remote);
  git("push", "--quiet", "origin", "main");
}, 300_000);
afterAll(async () => {
  await ws?.cleanup();
  await gh?.close();
  await emu?.close();
  if (remote) fs.rmSync(remote, { recursive: true, force: true });
});

describe("e2e: the nightly drift job (keboola-pulumi pr drift)", () => {
  it("opens one pull request with what the UI changed, keeps it while the drift lasts, and closes it once merged", async () => {
    // Nothing drifted (a # value from stack config, a secret nested in the state, is compared as what it was written as): no branch, no pull request.
    const quiet = await driftJob();
    expect(quiet.code, quiet.log).toBe(0);
    expect(quiet.log).toContain("Nothing drifted in stack production.");
    expect(branchExists()).toBe(false);
    expect(gh.pulls).toHaveLength(0);

    // A parameter changed in the UI.
    await changeInUi("orders", (p) => (p.api.baseUrl = "https://shop.example.com/api/v2/"), "Parameters edited");
    const statusBefore = git("status", "--porcelain");
    const fileBefore = fs.readFileSync(path.join(ws.programDir, "keboola.yaml"), "utf8");
    const stateBefore = await stateOutputs();
    const opened = await driftJob();
    expect(opened.code, opened.log).toBe(0);
    expect(opened.log).toContain("Opened pull request #1 (https://github.com/acme/shop/pull/1) from branch keboola-drift");
    expect(gh.pulls).toHaveLength(1);
    const [p] = gh.pulls;
    expect(p).toMatchObject({ state: "open", head: { ref: "keboola-drift" }, base: { ref: "main" }, title: "Keboola drift: 1 object changed outside the code" });
    expect(p.body.startsWith(`${DRIFT_MARKER}\n## Keboola drift`)).toBe(true);
    expect(p.body).toContain("configuration.parameters.api.baseUrl");
    expect(p.body).toContain("Parameters edited");
    // The branch: main's commit plus keboola.yaml as pull writes it (the comment kept, one line changed).
    const pulled = onBranch("keboola.yaml");
    expect(pulled).toBe(fileBefore.replace('api: { baseUrl: "https://shop.example.com/api/" } # the public API', 'api: { baseUrl: "https://shop.example.com/api/v2/" } # the public API'));
    expect(execFileSync("git", ["--git-dir", remote, "rev-parse", "refs/heads/keboola-drift^"], { encoding: "utf8" }).trim()).toBe(git("rev-parse", "HEAD"));
    // Nothing else was written: the checkout, its branch, the stack's state.
    expect(git("status", "--porcelain")).toBe(statusBefore);
    expect(git("rev-parse", "--abbrev-ref", "HEAD")).toBe("main");
    expect(fs.readFileSync(path.join(ws.programDir, "keboola.yaml"), "utf8")).toBe(fileBefore);
    expect(await stateOutputs()).toBe(stateBefore);
    // Never the secret, anywhere.
    for (const text of [p.body, opened.out, opened.log, pulled]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(CONFIG_SECRET);
    }

    // The same drift the next night: no new commit, the same pull request.
    const head1 = remoteHead();
    const again = await driftJob();
    expect(again.code, again.log).toBe(0);
    expect(again.log).toContain("Updated pull request #1");
    expect(again.log).toContain("the branch already held this change");
    expect(remoteHead()).toBe(head1);
    expect(gh.pulls).toHaveLength(1);

    // More drift: a new commit on the branch, the same pull request with both changes.
    await changeInUi("customers", (p) => (p.api.baseUrl = "https://crm.example.com/"), "Moved to the CRM");
    const more = await driftJob();
    expect(more.code, more.log).toBe(0);
    expect(remoteHead()).not.toBe(head1);
    expect(gh.pulls).toHaveLength(1);
    expect(gh.pulls[0].title).toBe("Keboola drift: 2 objects changed outside the code");
    expect(gh.pulls[0].body).toContain("Moved to the CRM");
    expect(onBranch("keboola.yaml")).toContain("https://crm.example.com/");

    // The pull request merged (its branch into main) and production deployed: nothing drifts, the pull request is closed with a note.
    git("fetch", "--quiet", "origin", "keboola-drift");
    git("merge", "--quiet", "--ff-only", "FETCH_HEAD");
    ok(await ws.up());
    const merged = await driftJob();
    expect(merged.code, merged.log).toBe(0);
    expect(merged.log).toContain("Nothing drifted in stack production. Closed pull request #1.");
    expect(gh.pulls[0].state).toBe("closed");
    expect(gh.comments).toEqual([{ number: 1, body: expect.stringContaining("Keboola and `keboola.yaml` agree again") }]);
    expect(gh.requests.filter((r) => r.startsWith("POST /repos/acme/shop/pulls"))).toHaveLength(1);
  }, 600_000);

  it("without a forge in the environment it prints the report and the diff and pushes nothing; --number is refused", async () => {
    await changeInUi("orders", (p) => (p.api.baseUrl = "https://shop.example.com/api/v3/"), "Parameters edited again");
    const { code, out, log } = await driftJob(["--base", "main"], false);
    expect(code, log).toBe(0);
    expect(out).toContain('+        api: { baseUrl: "https://shop.example.com/api/v3/" } # the public API');
    expect(out).toContain("## Keboola drift");
    expect(log).toContain("No forge is configured");
    expect(execFileSync("git", ["--git-dir", remote, "show", "refs/heads/keboola-drift:keboola.yaml"], { encoding: "utf8" })).not.toContain("/api/v3/");
    const refused = await driftJob(["--number", "3"]);
    expect(refused.code).toBe(1);
    expect(refused.log).toContain("pr drift takes no --number");
  }, 300_000);
});
