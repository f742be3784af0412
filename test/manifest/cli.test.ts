import { describe, expect, it } from "vitest";
import { processIo } from "../../provider/cli/command";
import { main } from "../../provider/cli/main";

// `keboola-pulumi export` arguments: what it refuses, and how (the export itself is covered
// end to end in test/e2e/export.e2e.test.ts).

/** `keboola-pulumi <args>` in process: its exit code and what it wrote. */
async function run(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await main(args, processIo({ env, write: (t) => (out += t), error: (t) => (err += t) }));
  return { code, out, err };
}

describe("keboola-pulumi command line", () => {
  it("prints the usage for help, and fails for an unknown command", async () => {
    const help = await run(["help"]);
    expect(help.code).toBe(0);
    expect(help.out).toContain("keboola-pulumi export --host");
    const unknown = await run(["import"]);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/^keboola-pulumi: unknown command "import"\nusage: keboola-pulumi </);
  });

  it("refuses an unknown option and an option without a value", async () => {
    expect(await run(["export", "--hots", "x"])).toMatchObject({ code: 1, err: expect.stringMatching(/unknown option --hots/) });
    expect(await run(["export", "--host"])).toMatchObject({ code: 1, err: expect.stringMatching(/--host needs a value/) });
  });

  it("says how to give the host and the token when they are missing", async () => {
    const env = { ...process.env };
    delete env.KBC_HOST;
    delete env.KBC_TOKEN;
    expect(await run(["export"], env)).toMatchObject({ code: 1, err: expect.stringMatching(/the Keboola host is missing: pass --host https:\/\/connection.<stack> or set KBC_HOST/) });
    expect(await run(["export", "--host", "http://127.0.0.1:9"], env)).toMatchObject({ code: 1, err: expect.stringMatching(/the token is missing: set KBC_TOKEN \(or pass --token\)/) });
  });
});
