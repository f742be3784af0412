import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ProjectsConflict } from "../../emulator/core/projects";
import { startEmulator, type EmulatorOptions } from "../../emulator/index";
import { PROJECT_A, PROJECT_B, startTwoProjects } from "../../emulator/two-projects";
import { call } from "./helpers";

// Declaring further projects: the programmatic option, what cannot be served together, and the
// state file keeping each project's data (the command line: projects-cli.test.ts).

describe("projects that cannot be served together", () => {
  it("refuses two projects with one id, or one token in two projects", async () => {
    const both = (projects: EmulatorOptions["projects"]) => startEmulator({ token: "t", limitedToken: "l", projects });
    await expect(both([{ id: 4242, name: "Again", token: "other" }])).rejects.toThrow(new ProjectsConflict("project 4242 is declared twice: every project needs its own id"));
    await expect(both([{ id: 4343, name: "B", token: "t" }])).rejects.toThrow(new ProjectsConflict("project 4343 has a token of project 4242: every project needs its own master token"));
    await expect(both([{ id: 4343, name: "B", token: "l" }])).rejects.toThrow(ProjectsConflict);
    await expect(both([{ id: 4343, name: "B", token: "b" }, { id: 4444, name: "C", token: "b" }])).rejects.toThrow(ProjectsConflict);
  });
});

describe("startTwoProjects", () => {
  it("starts two projects and answers each one's id, name and master token; other ids, names and tokens on request", async () => {
    const defaults = await startTwoProjects();
    try {
      expect([defaults.a, defaults.b]).toEqual([PROJECT_A, PROJECT_B]);
      expect(defaults.emulator.projects.map((p) => [p.id, p.name, p.masterToken])).toEqual([
        [PROJECT_A.id, PROJECT_A.name, PROJECT_A.token],
        [PROJECT_B.id, PROJECT_B.name, PROJECT_B.token],
      ]);
    } finally {
      await defaults.close();
    }
    const custom = await startTwoProjects({ a: { id: 11, name: "Dev" }, b: { id: 12, name: "Prod", token: "prod-token", features: ["queuev2"] } });
    try {
      expect(custom.b).toEqual({ id: 12, name: "Prod", token: "prod-token" });
      const verify = await call(custom.emulator.url, "GET", "/v2/storage/tokens/verify", { token: "prod-token" });
      expect(verify.body.owner).toMatchObject({ id: 12, name: "Prod", features: ["queuev2"] });
      expect((await call(custom.emulator.url, "GET", "/v2/storage/tokens/verify", { token: PROJECT_A.token })).body.owner).toMatchObject({ id: 11, name: "Dev" });
    } finally {
      await custom.close();
    }
  });
});

describe("a state file with several projects", () => {
  it("keeps each project's data across a restart, under its id, and a project no longer declared as it was", async () => {
    const dir = mkdtempSync(join(tmpdir(), "emu-projects-"));
    try {
      const stateFile = join(dir, "state.json");
      const bucket = (url: string, token: string, name: string) => call(url, "POST", "/v2/storage/buckets", { token, json: { name, stage: "in" } });
      const buckets = async (url: string, token: string) => (await call(url, "GET", "/v2/storage/buckets", { token })).body.map((x: { id: string }) => x.id);

      const first = await startTwoProjects({ stateFile, taskDurationMs: 5 });
      expect((await bucket(first.emulator.url, first.a.token, "of-a")).status).toBe(201);
      expect((await bucket(first.emulator.url, first.b.token, "of-b")).status).toBe(201);
      const made = await call(first.emulator.url, "POST", "/v2/storage/tokens", { token: first.b.token, json: { description: "kept" } });
      await first.close();
      const saved = JSON.parse(readFileSync(stateFile, "utf8")) as { project: { id: number }; projects: Array<{ project: { id: number } }> };
      expect([saved.project.id, ...saved.projects.map((p) => p.project.id)]).toEqual([PROJECT_A.id, PROJECT_B.id]);

      // The same declaration, B's token changed (the command line's tokens win, as the first project's do).
      const second = await startTwoProjects({ stateFile, taskDurationMs: 5, b: { token: "b-rotated", name: "B renamed" } });
      try {
        expect(await buckets(second.emulator.url, second.a.token)).toEqual(["in.c-of-a"]);
        expect(await buckets(second.emulator.url, "b-rotated")).toEqual(["in.c-of-b"]);
        expect((await call(second.emulator.url, "GET", "/v2/storage/tokens/verify", { token: PROJECT_B.token })).status).toBe(401);
        expect((await call(second.emulator.url, "GET", "/v2/storage/tokens/verify", { token: made.body.token })).body.owner).toMatchObject({ id: PROJECT_B.id, name: "B renamed" });
      } finally {
        await second.close();
      }

      // Declared no more: served as saved, not thrown away.
      const third = await startEmulator({ token: PROJECT_A.token, stateFile, taskDurationMs: 5 });
      try {
        expect(third.projects.map((p) => p.id)).toEqual([PROJECT_A.id, PROJECT_B.id]);
        expect(await buckets(third.url, "b-rotated")).toEqual(["in.c-of-b"]);
      } finally {
        await third.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("leaves a one-project state file as it always was: no `projects`", async () => {
    const dir = mkdtempSync(join(tmpdir(), "emu-projects-"));
    try {
      const stateFile = join(dir, "state.json");
      const emu = await startEmulator({ token: "t", stateFile });
      await call(emu.url, "POST", "/v2/storage/buckets", { token: "t", json: { name: "one", stage: "in" } });
      await emu.close();
      expect(Object.keys(JSON.parse(readFileSync(stateFile, "utf8")) as object)).not.toContain("projects");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
