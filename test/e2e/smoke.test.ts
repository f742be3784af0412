// Smoke test of the end-to-end setup: the real Pulumi CLI (scripts/ensure-pulumi.sh), its Node.js
// language host and the dynamic-provider plugin run a tiny JavaScript program with one
// pulumi.dynamic.Resource through up, preview --expect-no-changes and destroy on a file:// backend.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as path from "node:path";
import { describeResult, makePulumiWorkspace, type PulumiWorkspace } from "./helpers/pulumi";

const PROGRAM = `"use strict";
const pulumi = require("@pulumi/pulumi");

const provider = {
  async create(inputs) {
    return {
      id: "smoke-" + inputs.name,
      outs: { name: inputs.name, greeting: "hello " + inputs.name },
    };
  },
};

class Greeting extends pulumi.dynamic.Resource {
  constructor(name, args, opts) {
    super(provider, name, { greeting: undefined, ...args }, opts, "smoke", "Greeting");
  }
}

const greeting = new Greeting("greeting", { name: "keboola" });
exports.greetingId = greeting.id;
exports.greeting = greeting.greeting;
`;

const GREETING_TYPE = "pulumi-nodejs:dynamic/smoke:Greeting";

describe("e2e smoke: Pulumi CLI with a dynamic resource", () => {
  let ws: PulumiWorkspace;

  beforeAll(async () => {
    // The e2e project's global setup (test/e2e/pulumi-cli.global.ts) has provided the CLI, building
    // it on a first run (minutes); in CI .ci/run builds it beforehand.
    ws = await makePulumiWorkspace({ project: "smoke" });
    ws.writeProgram({ "index.js": PROGRAM });
  }, 30 * 60 * 1000);

  afterAll(async () => {
    await ws?.cleanup();
  });

  it("uses the CLI, language host and dynamic provider of the pinned SDK version (or the user's own, recent enough, when asked)", async () => {
    const readJson = (...p: string[]) => JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", ...p), "utf8")) as Record<string, unknown>;
    const sdkVersion = readJson("node_modules", "@pulumi", "pulumi", "package.json").version as string;
    const version = await ws.pulumi(["version"]);
    expect(version.code, describeResult(version)).toBe(0);
    if (process.env.KEBOOLA_PULUMI_USE_PATH === "1") {
      // scripts/ensure-pulumi.sh may have picked the user's own CLI: any version from engines.pulumi on.
      const minimum = ((readJson("package.json").engines as { pulumi: string }).pulumi.replace(/^>=/, "")).split(".").map(Number);
      const got = /^v(\d+)\.(\d+)\.(\d+)/.exec(version.stdout.trim())?.slice(1).map(Number) ?? [];
      const diff = got.map((n, i) => n - (minimum[i] ?? 0)).find((d) => d !== 0) ?? 0;
      expect(got, version.stdout).toHaveLength(3);
      expect(diff, `pulumi ${version.stdout.trim()} is older than ${minimum.join(".")}`).toBeGreaterThanOrEqual(0);
    } else {
      expect(version.stdout.trim()).toBe(`v${sdkVersion}`);
    }
    for (const bin of ["pulumi", "pulumi-language-nodejs", "pulumi-resource-pulumi-nodejs"]) {
      expect(fs.existsSync(path.join(ws.binDir, bin)), bin).toBe(true);
    }
  });

  it("creates, previews without changes and destroys a dynamic resource", async () => {
    const init = await ws.initStack();
    expect(init.code, describeResult(init)).toBe(0);

    const up = await ws.up();
    expect(up.code, describeResult(up)).toBe(0);
    // Everything is local: no plugin may be downloaded.
    expect(up.stdout + up.stderr).not.toMatch(/download/i);

    expect(await ws.stackOutputs()).toEqual({ greetingId: "smoke-keboola", greeting: "hello keboola" });
    const created = (await ws.stackResources()).filter((r) => r.type === GREETING_TYPE);
    expect(created).toHaveLength(1);
    expect(created[0]?.id).toBe("smoke-keboola");
    expect(created[0]?.outputs).toMatchObject({ name: "keboola", greeting: "hello keboola" });

    const preview = await ws.previewExpectNoChanges();
    expect(preview.code, describeResult(preview)).toBe(0);

    const destroy = await ws.destroy();
    expect(destroy.code, describeResult(destroy)).toBe(0);
    expect((await ws.stackResources()).filter((r) => r.type === GREETING_TYPE)).toEqual([]);
  }, 180_000);
});
