import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { processIo } from "../../provider/cli/command";
import { main } from "../../provider/cli/main";
import { KEBOOLA_PULUMI } from "../helpers/cli";
import { FIXTURES, fixtureText, GOLDEN } from "./helpers";

// The `keboola-pulumi review` command: the built CLI as a user runs it (a file, `-` for standard
// input, exit codes and messages for bad input), and its argument handling in process.

const ROOT = path.join(__dirname, "..", "..");

const run = (args: string[], input?: string) => spawnSync(process.execPath, [KEBOOLA_PULUMI, ...args], { cwd: ROOT, input, encoding: "utf8", timeout: 60_000 });

describe("keboola-pulumi review (the built command)", () => {
  it("writes the review of a file to standard output", () => {
    const res = run(["review", path.join(FIXTURES, "quickstart-change.json")]);
    expect(res.stderr).toBe("");
    expect(res.status).toBe(0);
    expect(res.stdout).toBe(fs.readFileSync(path.join(GOLDEN, "quickstart-change.md"), "utf8"));
  });

  it("reads standard input for -", () => {
    const res = run(["review", "-"], fixtureText("quickstart-change"));
    expect(res.status).toBe(0);
    expect(res.stdout).toBe(fs.readFileSync(path.join(GOLDEN, "quickstart-change.md"), "utf8"));
  });

  it("exits 1 naming the file and the fix when it does not exist", () => {
    const missing = path.join(os.tmpdir(), "no-such-preview-7f3a.json");
    const res = run(["review", missing]);
    expect(res.status).toBe(1);
    expect(res.stdout).toBe("");
    expect(res.stderr).toBe(`keboola-pulumi review: cannot read ${missing}: no such file (write it with \`pulumi preview --json > ${missing}\`, or give \`-\` to read standard input)\n`);
  });

  it("exits 1 for text that is not preview JSON: the text preview, other JSON, nothing", () => {
    const text = run(["review", "-"], "Previewing update (dev):\n     Type                 Name\n +   pulumi:pulumi:Stack  keboola-dev  create\n");
    expect(text.status).toBe(1);
    expect(text.stderr).toMatch(/^keboola-pulumi review: standard input is not JSON \(.*; it starts with "Previewing update \(dev\):"\): give the output of `pulumi preview --json`/);
    const other = run(["review", "-"], JSON.stringify({ version: 3, deployment: { resources: [] } }));
    expect(other.status).toBe(1);
    expect(other.stderr).toContain('standard input is JSON but not a preview: it has none of "steps", "changeSummary", "diagnostics"');
    const wrongShape = run(["review", "-"], JSON.stringify({ steps: [{ op: "update" }] }));
    expect(wrongShape.status).toBe(1);
    expect(wrongShape.stderr).toContain("standard input is not a preview as `pulumi preview --json` prints it: steps.0.urn:");
    const empty = run(["review", "-"], "");
    expect(empty.status).toBe(1);
    expect(empty.stderr).toContain("standard input is empty");
    for (const res of [text, other, wrongShape, empty]) {
      expect(res.stdout).toBe("");
      expect(res.stderr).not.toMatch(/\n\s+at /); // no stack trace
    }
  });

  it("exits 1 with the usage for wrong arguments", () => {
    const none = run(["review"]);
    expect(none.status).toBe(1);
    expect(none.stderr).toMatch(/^keboola-pulumi review: the preview file is missing\nusage: keboola-pulumi review <preview.json \| ->/);
    expect(run(["review", "a.json", "b.json"]).status).toBe(1);
    expect(run(["review", "--diff", "a.json"]).stderr).toContain("unknown option --diff");
    expect(run(["review", "--help"]).status).toBe(0);
  });
});

describe("review arguments (in process)", () => {
  /** `keboola-pulumi <args>` in process, every file read answering `input`. */
  const review = async (args: string[], input = "") => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(args, processIo({ read: async () => input, write: (t) => out.push(t), error: (t) => err.push(t) }));
    return { code, out, err };
  };

  it("reviews what it reads and names the source in errors", async () => {
    const ok = await review(["review", "preview.json"], fixtureText("secret-changed"));
    expect(ok.code).toBe(0);
    expect(ok.out.join("")).toContain("changed (secret, not shown)");
    const bad = await review(["review", "preview.json"], "{}");
    expect(bad.code).toBe(1);
    expect(bad.err.join("")).toContain("preview.json is JSON but not a preview");
  });

  it("is listed in the command's usage", async () => {
    const help = await review(["help"]);
    expect(help.code).toBe(0);
    expect(help.out.join("")).toContain("keboola-pulumi review <preview.json | ->");
  });
});
