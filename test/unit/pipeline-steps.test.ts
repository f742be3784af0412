import { describe, expect, it } from "vitest";
import type { PulumiCli, PulumiRun } from "../../provider/pipeline/pulumi";
import { close, openOrUpdate, StepError, type Pipeline } from "../../provider/pipeline/steps";

// The pipeline's steps read three JSON documents of the Pulumi CLI: `stack ls --json` (whether the
// pull request's stack exists), `stack export` (its Branch's id, for the comment) and a failed
// `preview --json` (its error diagnostics). Here with a fake CLI; test/e2e/pipeline.e2e.test.ts
// runs them with the real one.

const ok = (stdout: string): PulumiRun => ({ code: 0, stdout, stderr: "" });
const exported = (resources: unknown) => ok(JSON.stringify({ version: 3, deployment: { resources } }));

/** What the fake CLI answers unless a test says otherwise: a state and a preview with nothing in them. */
function byDefault(args: string[]): PulumiRun {
  if (args[0] === "stack" && args[1] === "export") return exported([]);
  if (args[0] === "preview") return ok(JSON.stringify({ steps: [], changeSummary: {} }));
  return ok("");
}

function pipeline(answers: (args: string[]) => PulumiRun | undefined): { p: Pipeline; ran: string[]; posted: string[] } {
  const ran: string[] = [];
  const posted: string[] = [];
  const pulumi: PulumiCli = {
    async run(args) {
      ran.push(args.join(" "));
      return answers(args) ?? byDefault(args);
    },
  };
  return { p: { pulumi, production: "production", print: () => undefined, thread: { where: "test", upsert: async (body) => (posted.push(body), "1") } }, ran, posted };
}

describe("pipeline steps", () => {
  it("reads the development branch's id from the stack's state", async () => {
    const branch = { type: "pulumi-nodejs:dynamic/keboola:Branch", outputs: { branchId: "4242" } };
    const { p } = pipeline((args) => (args[1] === "export" ? exported([{ type: "pulumi:pulumi:Stack" }, branch]) : undefined));
    expect(await openOrUpdate(p, 7)).toContain("to development branch **pr-7** (id 4242) by stack `pr-7`");
  });

  it("says no id when the state has no Branch, or a branchId that is not a string, or is no JSON object", async () => {
    for (const answer of [exported([{ type: "pulumi:pulumi:Stack" }]), exported([{ type: "pulumi-nodejs:dynamic/keboola:Branch", outputs: { branchId: 5 } }]), ok("[]"), ok("null")]) {
      const { p } = pipeline((args) => (args[1] === "export" ? answer : undefined));
      expect(await openOrUpdate(p, 7)).toContain("to development branch **pr-7** by stack `pr-7`");
    }
  });

  it("posts a failed preview's error diagnostics, named by the resource, else the output's tail", async () => {
    const diagnostics = [
      { severity: "warning", message: "not this" },
      { severity: "error", urn: "urn:pulumi:production::p::keboola:index:Table::orders", message: "  the table is refused \n" },
      { severity: "error", message: "the program failed" },
      "not a diagnostic",
    ];
    const failed = (stdout: string) => (args: string[]) => (args[0] === "preview" ? { code: 1, stdout, stderr: "the stderr" } : undefined);
    const { p, posted } = pipeline(failed(JSON.stringify({ diagnostics })));
    await expect(openOrUpdate(p, 7)).rejects.toBeInstanceOf(StepError);
    expect(posted.at(-1)).toContain("```\norders: the table is refused\nthe program failed\n```");
    const plain = pipeline(failed("not json"));
    await expect(openOrUpdate(plain.p, 7)).rejects.toBeInstanceOf(StepError);
    expect(plain.posted.at(-1)).toContain("```\nnot json\nthe stderr\n```");
  });

  it("destroys and removes the pull request's stack only when `stack ls` lists it (by name or org/project/name)", async () => {
    for (const [stacks, removed] of [
      [[{ name: "production" }, { name: "pr-7" }], true],
      [[{ name: "org/project/pr-7" }], true],
      [[{ name: "pr-70" }, { name: 7 }, null], false],
    ] as const) {
      const { p, ran } = pipeline((args) => (args[0] === "stack" && args[1] === "ls" ? ok(JSON.stringify(stacks)) : undefined));
      expect(await close(p, 7)).toContain("Closed: development branch **pr-7**");
      expect(ran.some((r) => r.startsWith("destroy"))).toBe(removed);
      expect(ran.includes("stack rm --yes pr-7")).toBe(removed);
    }
  });

  it("fails when `stack ls` fails or answers no list", async () => {
    const failed = pipeline((args) => (args[1] === "ls" ? { code: 1, stdout: "", stderr: "no backend" } : undefined));
    await expect(close(failed.p, 7)).rejects.toThrow("listing the stacks failed");
    const notList = pipeline((args) => (args[1] === "ls" ? ok("{}") : undefined));
    await expect(close(notList.p, 7)).rejects.toThrow();
  });
});
