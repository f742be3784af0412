import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

// The git the drift job needs: one file's new text committed on top of the checked-out commit and
// pushed to the job's own branch. It goes through git's plumbing (a blob, a tree built in a
// temporary index, a commit) so that the runner's working tree, its index and its current branch
// are never touched: the job may run in a checkout someone is working in.

export class GitError extends Error {}

export interface Git {
  /** The repository's top directory. */
  topLevel(): Promise<string>;
  /** A commit whose tree is HEAD's with `file` (relative to the top directory) holding `text`. Answers its id. */
  commitFile(file: string, text: string, message: string): Promise<string>;
  /** The commit `branch` points at on `remote`, or undefined when it has no such branch. */
  remoteHead(remote: string, branch: string): Promise<string | undefined>;
  /** `file`'s text in a commit fetched from `remote`'s `branch`, or undefined when it does not hold it. */
  remoteFile(remote: string, branch: string, file: string): Promise<string | undefined>;
  /** `commit` pushed as `branch`, replacing what is there only if it is still `expected` (undefined: the branch must not exist). */
  push(remote: string, commit: string, branch: string, expected: string | undefined): Promise<void>;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

// A commit needs an author; the CI's own identity is used when it sets one (GIT_AUTHOR_NAME, ...).
const IDENTITY = { name: "keboola-pulumi drift", email: "keboola-pulumi-drift@users.noreply.github.com" };

export function gitIn(cwd: string, env: NodeJS.ProcessEnv = process.env, bin = "git"): Git {
  const run = (args: string[], o: { input?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Run> =>
    new Promise((resolve, reject) => {
      // Standard input only for the commands that read it: a command that exits without reading
      // it would otherwise fail our write with EPIPE.
      const child = spawn(bin, args, { cwd, env: { ...env, ...o.env }, stdio: [o.input === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
      child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
      child.on("error", (err) => reject(new GitError(`could not run git: ${err.message}`)));
      child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
      if (o.input !== undefined) {
        // A git that fails before reading its input says why on stderr; the broken pipe adds nothing.
        child.stdin!.on("error", () => undefined);
        child.stdin!.end(o.input);
      }
    });
  const must = async (args: string[], o: { input?: string; env?: NodeJS.ProcessEnv } = {}): Promise<string> => {
    const r = await run(args, o);
    if (r.code !== 0) throw new GitError(`git ${args[0]} failed: ${(r.stderr || r.stdout).trim()}`);
    return r.stdout.trim();
  };
  const fetched = async (remote: string, branch: string): Promise<boolean> => (await run(["fetch", "--quiet", "--no-tags", remote, `refs/heads/${branch}`])).code === 0;
  return {
    topLevel: () => must(["rev-parse", "--show-toplevel"]),
    async commitFile(file, text, message) {
      const blob = await must(["hash-object", "-w", "--stdin"], { input: text });
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "keboola-pulumi-git-"));
      try {
        const index = { GIT_INDEX_FILE: path.join(dir, "index") };
        await must(["read-tree", "HEAD"], { env: index });
        await must(["update-index", "--add", "--cacheinfo", `100644,${blob},${file}`], { env: index });
        const tree = await must(["write-tree"], { env: index });
        const who = {
          GIT_AUTHOR_NAME: env.GIT_AUTHOR_NAME ?? IDENTITY.name,
          GIT_AUTHOR_EMAIL: env.GIT_AUTHOR_EMAIL ?? IDENTITY.email,
          GIT_COMMITTER_NAME: env.GIT_COMMITTER_NAME ?? env.GIT_AUTHOR_NAME ?? IDENTITY.name,
          GIT_COMMITTER_EMAIL: env.GIT_COMMITTER_EMAIL ?? env.GIT_AUTHOR_EMAIL ?? IDENTITY.email,
        };
        return await must(["commit-tree", tree, "-p", "HEAD", "-F", "-"], { input: message, env: who });
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
    async remoteHead(remote, branch) {
      const out = await must(["ls-remote", "--heads", remote, `refs/heads/${branch}`]);
      return out ? out.split(/\s+/)[0] : undefined;
    },
    async remoteFile(remote, branch, file) {
      if (!(await fetched(remote, branch))) return undefined;
      const r = await run(["show", `FETCH_HEAD:${file}`]);
      return r.code === 0 ? r.stdout : undefined;
    },
    async push(remote, commit, branch, expected) {
      // The branch is the job's own; the lease refuses to replace a push made since this run looked at it.
      await must(["push", "--quiet", `--force-with-lease=refs/heads/${branch}:${expected ?? ""}`, remote, `${commit}:refs/heads/${branch}`]);
    },
  };
}
