import { afterEach, describe, expect, it, vi } from "vitest";
import { main } from "../../provider/manifest/cli";

// `keboola-pulumi export` arguments: what it refuses, and how (the export itself is covered
// end to end in test/e2e/export.e2e.test.ts).

describe("keboola-pulumi command line", () => {
  afterEach(() => vi.restoreAllMocks());

  it("prints the usage for help, and fails for an unknown command", async () => {
    const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    expect(await main(["help"])).toBe(0);
    expect(await main(["import"])).toBe(2);
    expect(String(err.mock.calls[0][0])).toMatch(/^usage: keboola-pulumi export --host/);
  });

  it("refuses an unknown option and an option without a value", async () => {
    await expect(main(["export", "--hots", "x"])).rejects.toThrow(/unknown option --hots/);
    await expect(main(["export", "--host"])).rejects.toThrow(/--host needs a value/);
  });

  it("says how to give the host and the token when they are missing", async () => {
    const env = { ...process.env };
    delete process.env.KBC_HOST;
    delete process.env.KBC_TOKEN;
    try {
      await expect(main(["export"])).rejects.toThrow(/the Keboola host is missing: pass --host https:\/\/connection.<stack> or set KBC_HOST/);
      await expect(main(["export", "--host", "http://127.0.0.1:9"])).rejects.toThrow(/the token is missing: set KBC_TOKEN \(or pass --token\)/);
    } finally {
      process.env = env;
    }
  });
});
