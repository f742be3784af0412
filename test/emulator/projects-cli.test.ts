import { describe, expect, it } from "vitest";
import { parseCommandLine, USAGE } from "../../emulator/cli-options";

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
