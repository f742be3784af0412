// schema.json is a Pulumi package schema the real CLI accepts: `pulumi schema check` (which checks
// the schema spec and what each target language's code generator needs) passes on it, and fails
// on a copy with one type broken, so the check is not vacuous. And the provider plugin
// (pulumi-resource-keboola) serves it: the CLI starts the plugin and asks it for its schema.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { ensurePulumiBinDir, REPO_ROOT } from "./helpers/pulumi";

const pulumiCli = async (args: string[]) => {
  const pulumi = path.join(await ensurePulumiBinDir(), "pulumi");
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "schema-check-"));
  try {
    return spawnSync(pulumi, args, { encoding: "utf8", env: { PATH: process.env.PATH, HOME: home, PULUMI_HOME: home, PULUMI_SKIP_UPDATE_CHECK: "true" } });
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
};
const check = (file: string) => pulumiCli(["schema", "check", file]);

describe("e2e: schema.json and `pulumi schema check`", () => {
  it("passes the check, and a copy with a broken type does not", async () => {
    const ok = await check(path.join(REPO_ROOT, "schema.json"));
    expect(ok.stderr + ok.stdout).toBe("");
    expect(ok.status).toBe(0);

    const schema = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "schema.json"), "utf8")) as { resources: Record<string, { inputProperties: Record<string, { type?: string }> }> };
    schema.resources["keboola:index:Source"].inputProperties.name.type = "text";
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "schema-broken-"));
    try {
      fs.writeFileSync(path.join(dir, "schema.json"), JSON.stringify(schema));
      const bad = await check(path.join(dir, "schema.json"));
      expect(bad.status).not.toBe(0);
      expect(bad.stderr).toContain("#/resources/keboola:index:Source/inputProperties/name/type: unknown type kind text");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is what the provider plugin answers to GetSchema, as the CLI reads it", async () => {
    // The plugin as npm installs its bin: an executable named pulumi-resource-keboola.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "plugin-"));
    try {
      const plugin = path.join(dir, "pulumi-resource-keboola");
      fs.writeFileSync(plugin, `#!/bin/sh\nexec "${process.execPath}" "${path.join(REPO_ROOT, "dist", "provider", "plugin", "main.js")}" "$@"\n`, { mode: 0o755 });
      const res = await pulumiCli(["package", "get-schema", plugin]);
      expect(res.stderr).toBe("");
      expect(res.status).toBe(0);
      // The CLI binds the schema and writes it anew: equal as data, not as text.
      expect(JSON.parse(res.stdout)).toEqual(JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "schema.json"), "utf8")));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
