// Configured wins over the environment, with explicit providers (provider/config.ts: an explicit
// provider's argument, then stack config, then KBC_*), under the real Pulumi CLI and the provider
// plugin. A TypeScript program on the generated Node.js SDK and a YAML program each declare two
// explicit providers, one for a development project (A) and one for a production project (B), on
// an emulator serving a third project (C) as well; every command runs with KBC_TOKEN holding C's
// master token and KBC_HOST naming a host where nothing listens. Each provider's objects land in
// its own project, the same bucket name in both, and nothing of theirs in C; refresh, drift and
// destroy read and delete in each provider's project too.
//
// The third token is live, so that using it would show: one more bucket goes through the default
// provider, whose stack config names the host but no token, and so lands in C (KBC_TOKEN counts
// where nothing is configured), and the default provider's host is the stack config's, not
// KBC_HOST's.
//
// The dynamic resources (`require("keboola-pulumi")`) take no explicit provider: their settings are
// the stack's config (dynamic/runtime.ts), so a program with two projects uses the SDK's Provider.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT_A, PROJECT_B, startEmulator, type Emulator, type ProjectAccess, type ProjectState } from "../../emulator";
import { describeResult, makePulumiWorkspace, ok, runProcess, type PulumiWorkspace } from "./helpers/pulumi";
import { installNodeSdk, NODE_SDK_PACKAGE } from "./helpers/node-sdk";
import { KEBOOLA_PULUMI } from "../helpers/cli";

const DEV = PROJECT_A;
const PROD = PROJECT_B;
const THIRD: ProjectAccess = { id: 4444, name: "Project C", token: "project-c-master-token" };
/** Where nothing listens (the discard port): a request sent with KBC_HOST fails. */
const NOWHERE = "http://127.0.0.1:9";
const ENV = { KBC_TOKEN: THIRD.token, KBC_HOST: NOWHERE };

/** An emulator serving the three projects. */
const startThreeProjects = (): Promise<Emulator> =>
  startEmulator({ token: DEV.token, projectId: DEV.id, projectName: DEV.name, projects: [PROD, THIRD], taskDurationMs: 10 });

const stateOf = (emu: Emulator, project: ProjectAccess): ProjectState => {
  const served = emu.projects.find((p) => p.id === project.id);
  if (!served) throw new Error(`the emulator serves no project ${project.id}`);
  return served.state;
};
/** A project's buckets as "id: description", and its sources' names. */
const holdings = (emu: Emulator, project: ProjectAccess) => ({
  buckets: Object.values(stateOf(emu, project).storage.buckets)
    .map((b) => `${b.id}: ${b.description}`)
    .sort(),
  sources: Object.values(stateOf(emu, project).stream.sources)
    .filter((s) => !s.deleted)
    .map((s) => s.name)
    .sort(),
});

/** Each provider's objects in its own project, the default provider's in the third. */
function landedInOwnProjects(emu: Emulator): void {
  expect(holdings(emu, DEV)).toEqual({ buckets: ["in.c-dev-only: ", "in.c-sales: dev sales"], sources: ["dev events"] });
  expect(holdings(emu, PROD)).toEqual({ buckets: ["in.c-prod-only: ", "in.c-sales: prod sales"], sources: ["prod events"] });
  expect(holdings(emu, THIRD)).toEqual({ buckets: ["in.c-default-only: "], sources: [] });
}

/** The projects the requests since the last clear were served in (undefined: a token of none). */
const projectsAsked = (emu: Emulator) => new Set(emu.requests().map((r) => r.projectId));

/**
 * Deploys the program, then refreshes, previews, runs drift and destroys it, every command with
 * ENV: each time each provider's objects are in its own project, and destroy empties all three.
 */
async function deployedToOwnProjects(emu: Emulator, ws: PulumiWorkspace): Promise<void> {
  ok(await ws.up());
  landedInOwnProjects(emu);

  // A refresh reads each object where its provider says: were one read with KBC_TOKEN, it would be
  // gone from the state, and the preview after it would create it again.
  emu.clearRequests();
  ok(await ws.refresh());
  expect(projectsAsked(emu)).toEqual(new Set([DEV.id, PROD.id, THIRD.id]));
  ok(await ws.previewExpectNoChanges());
  landedInOwnProjects(emu);

  // drift reads with each explicit provider's own settings, and finds nothing changed.
  emu.clearRequests();
  const drift = await runProcess(process.execPath, [KEBOOLA_PULUMI, "drift", "--stack", ws.stack], { cwd: ws.programDir, env: ws.env, timeoutMs: 120_000 });
  expect(drift.code, describeResult(drift)).toBe(0);
  expect(projectsAsked(emu)).toEqual(new Set([DEV.id, PROD.id, THIRD.id]));

  ok(await ws.destroy());
  for (const project of [DEV, PROD, THIRD]) expect(holdings(emu, project)).toEqual({ buckets: [], sources: [] });
}

/** The stack: the default provider's host (no token), and each explicit provider's token as a secret of the program. */
async function initStack(ws: PulumiWorkspace, emu: Emulator): Promise<void> {
  ok(await ws.initStack());
  ok(await ws.setConfigs({ "keboola:host": emu.url, [`${ws.project}:devToken`]: { secret: DEV.token }, [`${ws.project}:prodToken`]: { secret: PROD.token } }));
}

describe("e2e: explicit providers for two projects, KBC_TOKEN of a third: a TypeScript program on the Node.js SDK", () => {
  let emu: Emulator;
  let ws: PulumiWorkspace;
  let sdk: Awaited<ReturnType<typeof installNodeSdk>> | undefined;

  beforeAll(async () => {
    sdk = await installNodeSdk();
    emu = await startThreeProjects();
    ws = await makePulumiWorkspace({ project: "providers", prefix: "explicit-providers-ts-", plugin: true, env: ENV });
    const program = [
      `import * as pulumi from "@pulumi/pulumi";`,
      `import * as keboola from "${NODE_SDK_PACKAGE}";`,
      ``,
      `const config = new pulumi.Config();`,
      `const host = ${JSON.stringify(emu.url)};`,
      `const providers = {`,
      `  dev: new keboola.Provider("dev", { host, token: config.requireSecret("devToken") }),`,
      `  prod: new keboola.Provider("prod", { host, token: config.requireSecret("prodToken") }),`,
      `};`,
      `for (const [env, provider] of Object.entries(providers)) {`,
      `  new keboola.Bucket(\`\${env}-sales\`, { stage: "in", name: "sales", description: \`\${env} sales\` }, { provider });`,
      `  new keboola.Bucket(\`\${env}-only\`, { stage: "in", name: \`\${env}-only\` }, { provider });`,
      `  new keboola.Source(\`\${env}-events\`, { name: \`\${env} events\` }, { provider });`,
      `}`,
      `// The default provider: the stack config's host, and no token configured.`,
      `new keboola.Bucket("default-only", { stage: "in", name: "default-only" });`,
      ``,
    ].join("\n");
    ws.writeProgram({ "index.ts": program });
    ws.linkPackage(NODE_SDK_PACKAGE, sdk.dir);
    await initStack(ws, emu);
  }, 240_000);
  afterAll(async () => {
    await ws?.cleanup();
    await emu?.close();
    sdk?.cleanup();
  });

  it("each provider's objects land in its own project and are refreshed, checked for drift and destroyed there", async () => {
    await deployedToOwnProjects(emu, ws);
  }, 300_000);
});

describe("e2e: explicit providers for two projects, KBC_TOKEN of a third: a YAML program (the plugin)", () => {
  let emu: Emulator;
  let ws: PulumiWorkspace;

  beforeAll(async () => {
    emu = await startThreeProjects();
    ws = await makePulumiWorkspace({ project: "providers", prefix: "explicit-providers-yaml-", plugin: true, env: ENV });
    const perProject = (env: "dev" | "prod") => [
      `  ${env}:`,
      `    type: pulumi:providers:keboola`,
      `    properties:`,
      `      host: ${emu.url}`,
      `      token: \${${env}Token}`,
      `  ${env}-sales:`,
      `    type: keboola:index:Bucket`,
      `    properties: { stage: in, name: sales, description: ${env} sales }`,
      `    options:`,
      `      provider: \${${env}}`,
      `  ${env}-only:`,
      `    type: keboola:index:Bucket`,
      `    properties: { stage: in, name: ${env}-only }`,
      `    options:`,
      `      provider: \${${env}}`,
      `  ${env}-events:`,
      `    type: keboola:index:Source`,
      `    properties: { name: ${env} events }`,
      `    options:`,
      `      provider: \${${env}}`,
    ];
    const program = [
      "config:",
      "  devToken: { type: string, secret: true }",
      "  prodToken: { type: string, secret: true }",
      "resources:",
      ...perProject("dev"),
      ...perProject("prod"),
      "  # The default provider: the stack config's host, and no token configured.",
      "  default-only:",
      "    type: keboola:index:Bucket",
      "    properties: { stage: in, name: default-only }",
    ].join("\n");
    ws.writeProgram({}, { runtime: "yaml", extraYaml: program });
    await initStack(ws, emu);
  }, 120_000);
  afterAll(async () => {
    await ws?.cleanup();
    await emu?.close();
  });

  it("each provider's objects land in its own project and are refreshed, checked for drift and destroyed there", async () => {
    await deployedToOwnProjects(emu, ws);
  }, 300_000);
});
