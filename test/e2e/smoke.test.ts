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
    // First call may build the CLI (minutes); in CI .ci/run builds it beforehand.
    ws = await makePulumiWorkspace({ project: "smoke" });
    ws.writeProgram({ "index.js": PROGRAM });
  }, 30 * 60 * 1000);

  afterAll(async () => {
    await ws?.cleanup();
  });

  it("uses the CLI, language host and dynamic provider of the pinned SDK version", async () => {
    const sdkVersion = (
      JSON.parse(
        fs.readFileSync(path.join(__dirname, "..", "..", "node_modules", "@pulumi", "pulumi", "package.json"), "utf8"),
      ) as { version: string }
    ).version;
    const version = await ws.pulumi(["version"]);
    expect(version.code, describeResult(version)).toBe(0);
    expect(version.stdout.trim()).toBe(`v${sdkVersion}`);
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
