// examples/environments as a team runs it: one keboola.yaml, stack dev deploying into the
// development project and stack prod into the production project, two projects on one emulator
// host (as on a real stack, the token decides the project). Each stack's values land in its own
// project and nothing of one in the other; prod's protected entries survive `pulumi destroy`, and
// dev's destroy leaves prod untouched.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as path from "node:path";
import { startTwoProjects, type TwoProjects } from "../../emulator";
import type { ProjectState } from "../../emulator/core/context";
import { describeResult, makePulumiWorkspace, ok, REPO_ROOT, type PulumiWorkspace } from "./helpers/pulumi";

const EXAMPLE = path.join(REPO_ROOT, "examples", "environments");
const SHOP_TOKENS = { dev: "shop-dev-api-token-7c1", prod: "shop-prod-api-token-9e4" };

describe("e2e: one declaration, a development and a production project", () => {
  let two: TwoProjects;
  let ws: PulumiWorkspace;
  const stackFile = (stack: "dev" | "prod", projectId: number) =>
    fs
      .readFileSync(path.join(EXAMPLE, `Pulumi.${stack}.yaml`), "utf8")
      .replace("https://connection.keboola.com", two.emulator.url)
      .replace(/keboola:projectId: "\d+"/, `keboola:projectId: "${projectId}"`);
  /** `pulumi <args> --stack <stack>` with that project's token in KBC_TOKEN, as the example pipelines run it. */
  const pulumi = (stack: "dev" | "prod", args: string[]) =>
    ws.pulumi([...args, "--stack", stack], { env: { KBC_TOKEN: stack === "dev" ? two.a.token : two.b.token }, timeoutMs: 300_000 });

  beforeAll(async () => {
    two = await startTwoProjects({ taskDurationMs: 20 });
    ws = await makePulumiWorkspace({ project: "shop-keboola", stack: "dev", prefix: "keboola-projects-" });
    ws.writeProgram(
      { "keboola.yaml": fs.readFileSync(path.join(EXAMPLE, "keboola.yaml"), "utf8"), "Pulumi.dev.yaml": stackFile("dev", two.a.id), "Pulumi.prod.yaml": stackFile("prod", two.b.id) },
      { linkProjectPackage: true, extraYaml: "main: node_modules/keboola-pulumi/dist/provider/manifest/program.js\n" },
    );
    for (const stack of ["dev", "prod"] as const) {
      ok(await ws.pulumi(["stack", "init", stack]));
      ok(await ws.pulumi(["config", "set", "--secret", "shopApiToken", SHOP_TOKENS[stack], "--stack", stack]));
    }
  }, 300_000);

  afterAll(async () => {
    await ws?.cleanup();
    await two?.close();
  });

  const project = (id: number): ProjectState => {
    const p = two.emulator.projects.find((q) => q.id === id);
    if (!p) throw new Error(`no project ${id}`);
    return p.state;
  };
  const extractor = (s: ProjectState) => Object.values(s.storage.configs).find((c) => c.componentId === "keboola.ex-generic-v2" && c.id === "shop-extractor" && !c.isDeleted);
  const schedule = (s: ProjectState) => Object.values(s.storage.configs).find((c) => c.componentId === "keboola.scheduler" && !c.isDeleted);
  const sinkTables = (s: ProjectState) => Object.values(s.stream.sinks).filter((k) => !k.deleted).map((k) => k.table?.tableId);

  it("deploys each stack's values into its own project, nothing of one in the other", async () => {
    ok(await pulumi("dev", ["up", "--yes", "--skip-preview"]));
    ok(await pulumi("prod", ["up", "--yes", "--skip-preview"]));
    const dev = project(two.a.id);
    const prod = project(two.b.id);

    expect(extractor(dev)?.configuration).toMatchObject({ parameters: { api: { baseUrl: "https://staging.shop.example.com/api/", pagination: { limit: 20 } } } });
    expect(extractor(prod)?.configuration).toMatchObject({ parameters: { api: { baseUrl: "https://shop.example.com/api/", pagination: { limit: 100 } } } });
    expect(sinkTables(dev)).toEqual(["in.c-shop-dev.orders"]);
    expect(sinkTables(prod)).toEqual(["in.c-shop.orders"]);
    expect(schedule(dev)?.configuration).toMatchObject({ schedule: { state: "disabled" } });
    expect(schedule(prod)?.configuration).toMatchObject({ schedule: { state: "enabled" } });
    // Each project's secret reached Keboola encrypted, and only its own.
    for (const [state, own, other] of [[dev, SHOP_TOKENS.dev, SHOP_TOKENS.prod], [prod, SHOP_TOKENS.prod, SHOP_TOKENS.dev]] as const) {
      const text = JSON.stringify(state);
      expect(text).not.toContain(own);
      expect(text).not.toContain(other);
      expect(JSON.stringify(extractor(state)?.configuration)).toMatch(/"#token":"KBC::ProjectSecure::/);
    }
    // Each stack previews no changes afterwards.
    for (const stack of ["dev", "prod"] as const) {
      const preview = await pulumi(stack, ["preview", "--expect-no-changes"]);
      expect(preview.code, describeResult(preview)).toBe(0);
    }
  }, 900_000);

  it("prod's entries are protected from destroy; destroying dev leaves prod as it was", async () => {
    const before = JSON.stringify(project(two.b.id).storage.configs);
    const destroyProd = await pulumi("prod", ["destroy", "--yes", "--skip-preview"]);
    expect(destroyProd.code).not.toBe(0);
    expect(destroyProd.stdout + destroyProd.stderr).toMatch(/protected/);
    expect(extractor(project(two.b.id))).toBeDefined();
    expect(sinkTables(project(two.b.id))).toEqual(["in.c-shop.orders"]);

    ok(await pulumi("dev", ["destroy", "--yes", "--skip-preview"]));
    expect(extractor(project(two.a.id))).toBeUndefined();
    expect(sinkTables(project(two.a.id))).toEqual([]);
    expect(JSON.stringify(project(two.b.id).storage.configs)).toBe(before);
    expect(sinkTables(project(two.b.id))).toEqual(["in.c-shop.orders"]);
  }, 900_000);
});
