import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import * as path from "node:path";
import { parseCommandLine, USAGE } from "../../emulator/cli-options";
import { call } from "./helpers";

/** The built emulator (test/build.global.ts builds it when stale), as `npm run emulator` runs it. */
const CLI = path.join(__dirname, "..", "..", "dist", "emulator", "cli.js");

/** Runs the emulator with `flags`; answers its base URL (the first stdout line) or how it ended. */
function runEmulator(flags: string[]) {
  const child = spawn(process.execPath, [CLI, "--port", "0", ...flags], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const ended = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
      if (stdout.includes("\n")) resolve(stdout.split("\n")[0]!.trim());
    });
    void ended.then((code) => reject(new Error(`the emulator exited (${String(code)}) before printing its URL:\n${stderr}`)));
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode === null) child.kill("SIGTERM");
    await ended;
  };
  return { url, ended, stderr: () => stderr, stop };
}

// The emulator's command line for further projects: `--project <id>:<name>:<master-token>`
// (repeatable) and `--project-name`, mapped to EmulatorOptions `projects` and `projectName`.

describe("--project on the command line", () => {
  it("declares further projects, repeatable, the name between the id and the token (colons allowed in it)", () => {
    const cli = parseCommandLine(["--token", "t", "--project-name", "Dev", "--project", "4343:Prod: EU:tb", "--project", "4444:Other:tc"]);
    expect(cli.kind === "options" && cli.options.projectName).toBe("Dev");
    expect(cli.kind === "options" && cli.options.projects).toEqual([
      { id: 4343, name: "Prod: EU", token: "tb" },
      { id: 4444, name: "Other", token: "tc" },
    ]);
    // Without the flag, nothing changes in the options.
    const plain = parseCommandLine(["--token", "t"]);
    expect(plain.kind === "options" && "projects" in plain.options).toBe(false);
  });

  it("refuses a malformed declaration with the fix, never quoting the token", () => {
    for (const [flag, problem] of [
      ["4343:tb", "--project needs an id, a name and a master token"],
      ["x:Prod:tb", '--project: the id "x" is not a positive whole number'],
      ["4343: :tb", "--project 4343: the name is empty"],
      ["4343:Prod:", "--project 4343: the master token is empty"],
    ] as const) {
      const cli = parseCommandLine(["--token", "t", "--project", flag]);
      expect(cli.kind).toBe("error");
      const message = cli.kind === "error" ? cli.message : "";
      expect(message).toContain(problem);
      expect(message).toContain("use --project <id>:<name>:<master-token>");
      expect(message).not.toContain(":tb");
    }
  });

  it("is described in --help", () => {
    expect(USAGE).toContain("--project <id>:<name>:<master-token>");
    expect(USAGE).toContain("--project-name <name>");
  });
});

describe("the emulator process with --project", () => {
  it("serves both projects and logs each request's project", async () => {
    const emu = runEmulator(["--token", "dev-token", "--project-name", "Dev", "--project", "5001:Prod:prod-token"]);
    try {
      const url = await emu.url;
      const owner = async (token: string) => (await call(url, "GET", "/v2/storage/tokens/verify", { token })).body.owner;
      expect(await owner("dev-token")).toMatchObject({ id: 4242, name: "Dev" });
      expect(await owner("prod-token")).toMatchObject({ id: 5001, name: "Prod" });
      const prod = await call(url, "GET", "/_emulator/requests?projectId=5001");
      expect(prod.body.map((r: { path: string; projectId: number }) => [r.path, r.projectId])).toEqual([["/v2/storage/tokens/verify", 5001]]);
      expect(emu.stderr()).toContain("Projects: 4242 (Dev), 5001 (Prod)");
    } finally {
      await emu.stop();
    }
  });

  it("stops with the reason when two projects share a token", async () => {
    const emu = runEmulator(["--token", "same", "--project", "5001:Prod:same"]);
    await expect(emu.url).rejects.toThrow();
    expect(await emu.ended).toBe(1);
    expect(emu.stderr()).toBe("emulator: project 5001 has a token of project 4242: every project needs its own master token\n");
  });
});
